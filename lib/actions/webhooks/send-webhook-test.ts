"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { WebhookParams } from "@/lib/api/schemas/webhooks";
import { formAction, type FormState } from "../action";
import { OwnerField, pageOfEndpoints, signInTo } from "./endpoint-owner";

export interface WebhookQueuedState extends FormState {
  queued?: { deliveryId: string; eventType: string };
}

const TestForm = z.object({ agentId: OwnerField, webhookId: WebhookParams.shape.webhookId });

/** POST …/webhooks/:webhookId/test: a webhook.test to this endpoint, in its log within seconds. */
export const sendWebhookTestAction = formAction(
  TestForm,
  { signIn: signInTo },
  async ({ agentId, webhookId }, { api }): Promise<WebhookQueuedState> => {
    const { data } = agentId
      ? await api.sendWebhookTest({ params: { id: agentId, webhookId } })
      : await api.sendMyWebhookTest({ params: { webhookId } });
    revalidatePath(pageOfEndpoints(agentId));
    return { queued: { deliveryId: data.id, eventType: data.eventType } };
  },
);
