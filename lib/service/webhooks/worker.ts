import type { Worker } from "../context";
import { fanOutWebhookEvents } from "./fan-out-webhooks";
import { deliverDueWebhooks } from "./deliver-webhooks";

/** Domain events → one delivery per matching endpoint. Every second: receivers hear within seconds. */
export const webhookFanOutWorker: Worker = {
  name: "webhook-fan-out",
  everyMs: 1_000,
  async run(ctx) {
    while ((await fanOutWebhookEvents(ctx)) > 0) {
      // drain the backlog in batches
    }
  },
};

/** POSTs due deliveries, a batch at a time (each instance claims its own with SKIP LOCKED). */
export const webhookDeliveryWorker: Worker = {
  name: "webhook-delivery",
  everyMs: 1_000,
  async run(ctx) {
    for (let round = 0; round < 10; round += 1) {
      if ((await deliverDueWebhooks(ctx)) === 0) return;
    }
  },
};
