"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { WebhookParams } from "@/lib/api/schemas/webhooks";
import { formAction, type FormState } from "../action";

export interface WebhookQueuedState extends FormState {
  queued?: { deliveryId: string; eventType: string };
}

const TestForm = z.object({ agentId: WebhookParams.shape.id, webhookId: WebhookParams.shape.webhookId });

/** POST /v1/agents/:id/webhooks/:webhookId/test: a webhook.test to this endpoint, in its log within seconds. */
export const sendWebhookTestAction = formAction(
  TestForm,
  { signIn: (v) => `/agents/${encodeURIComponent(v.agentId ?? "")}` },
  async ({ agentId, webhookId }, { api }): Promise<WebhookQueuedState> => {
    const { data } = await api.sendWebhookTest({ params: { id: agentId, webhookId } });
    revalidatePath(`/agents/${agentId}`);
    return { queued: { deliveryId: data.id, eventType: data.eventType } };
  },
);
