"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { WebhookParams } from "@/lib/api/schemas/webhooks";
import { formAction } from "../action";
import { OwnerField, pageOfEndpoints, signInTo } from "./endpoint-owner";
import type { NewWebhookState } from "./create-webhook";

const RotateForm = z.object({ agentId: OwnerField, webhookId: WebhookParams.shape.webhookId });

/** POST …/webhooks/:webhookId/rotate-secret: the new secret is shown once and signs from now on. */
export const rotateWebhookSecretAction = formAction(
  RotateForm,
  { signIn: signInTo },
  async ({ agentId, webhookId }, { api }): Promise<NewWebhookState> => {
    const { data } = agentId
      ? await api.rotateWebhookSecret({ params: { id: agentId, webhookId } })
      : await api.rotateMyWebhookSecret({ params: { webhookId } });
    revalidatePath(pageOfEndpoints(agentId));
    return { created: { id: data.endpoint.id, url: data.endpoint.url, secret: data.secret } };
  },
);
