"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { WebhookDeliveryParams } from "@/lib/api/schemas/webhooks";
import { formAction } from "../action";
import type { WebhookQueuedState } from "./send-webhook-test";

const RedeliverForm = z.object({
  agentId: WebhookDeliveryParams.shape.id,
  webhookId: WebhookDeliveryParams.shape.webhookId,
  deliveryId: WebhookDeliveryParams.shape.deliveryId,
});

/** POST …/deliveries/:deliveryId/redeliver: the same event again, newly signed, with a fresh retry window. */
export const redeliverWebhookAction = formAction(
  RedeliverForm,
  { signIn: (v) => `/agents/${encodeURIComponent(v.agentId ?? "")}` },
  async ({ agentId, webhookId, deliveryId }, { api }): Promise<WebhookQueuedState> => {
    const { data } = await api.redeliverWebhook({ params: { id: agentId, webhookId, deliveryId } });
    revalidatePath(`/agents/${agentId}`);
    return { queued: { deliveryId: data.id, eventType: data.eventType } };
  },
);
