"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { WebhookParams } from "@/lib/api/schemas/webhooks";
import { formAction } from "../action";
import type { NewWebhookState } from "./create-webhook";

const RotateForm = z.object({ agentId: WebhookParams.shape.id, webhookId: WebhookParams.shape.webhookId });

/** POST /v1/agents/:id/webhooks/:webhookId/rotate-secret: the new secret is shown once and signs from now on. */
export const rotateWebhookSecretAction = formAction(
  RotateForm,
  { signIn: (v) => `/agents/${encodeURIComponent(v.agentId ?? "")}` },
  async ({ agentId, webhookId }, { api }): Promise<NewWebhookState> => {
    const { data } = await api.rotateWebhookSecret({ params: { id: agentId, webhookId } });
    revalidatePath(`/agents/${agentId}`);
    return { created: { id: data.endpoint.id, url: data.endpoint.url, secret: data.secret } };
  },
);
