"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { WebhookDeliveryParams } from "@/lib/api/schemas/webhooks";
import { formAction } from "../action";
import { OwnerField, pageOfEndpoints, signInTo } from "./endpoint-owner";
import type { WebhookQueuedState } from "./send-webhook-test";

const RedeliverForm = z.object({
  agentId: OwnerField,
  webhookId: WebhookDeliveryParams.shape.webhookId,
  deliveryId: WebhookDeliveryParams.shape.deliveryId,
});

/** POST …/deliveries/:deliveryId/redeliver: the same event again, newly signed, with a fresh retry window. */
export const redeliverWebhookAction = formAction(
  RedeliverForm,
  { signIn: signInTo },
  async ({ agentId, webhookId, deliveryId }, { api }): Promise<WebhookQueuedState> => {
    const { data } = agentId
      ? await api.redeliverWebhook({ params: { id: agentId, webhookId, deliveryId } })
      : await api.redeliverMyWebhook({ params: { webhookId, deliveryId } });
    revalidatePath(pageOfEndpoints(agentId));
    return { queued: { deliveryId: data.id, eventType: data.eventType } };
  },
);
