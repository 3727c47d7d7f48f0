"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { WebhookParams } from "@/lib/api/schemas/webhooks";
import { formAction, type FormState } from "../action";

const DeleteForm = z.object({ agentId: WebhookParams.shape.id, webhookId: WebhookParams.shape.webhookId });

/** DELETE /v1/agents/:id/webhooks/:webhookId: the endpoint and its log go; nothing more is sent. */
export const deleteWebhookAction = formAction(
  DeleteForm,
  { signIn: (v) => `/agents/${encodeURIComponent(v.agentId ?? "")}` },
  async ({ agentId, webhookId }, { api }): Promise<FormState> => {
    await api.deleteWebhook({ params: { id: agentId, webhookId } });
    revalidatePath(`/agents/${agentId}`);
    return {};
  },
);
