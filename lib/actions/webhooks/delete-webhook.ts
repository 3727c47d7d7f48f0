"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { WebhookParams } from "@/lib/api/schemas/webhooks";
import { formAction, type FormState } from "../action";
import { OwnerField, pageOfEndpoints, signInTo } from "./endpoint-owner";

const DeleteForm = z.object({ agentId: OwnerField, webhookId: WebhookParams.shape.webhookId });

/** DELETE …/webhooks/:webhookId (an agent's or one's own): the endpoint and its log go; nothing more is sent. */
export const deleteWebhookAction = formAction(
  DeleteForm,
  { signIn: signInTo },
  async ({ agentId, webhookId }, { api }): Promise<FormState> => {
    if (agentId) await api.deleteWebhook({ params: { id: agentId, webhookId } });
    else await api.deleteMyWebhook({ params: { webhookId } });
    revalidatePath(pageOfEndpoints(agentId));
    return {};
  },
);
