import type { Worker } from "../context";
import { finishPendingSettlements } from "./settle-job";

/** Every 10 s: finishes releases and refunds left PENDING by a crash or a chain outage (lease run out). */
export const settlementWorker: Worker = {
  name: "escrow-settlements",
  everyMs: 10_000,
  run: async (ctx) => {
    if (ctx.config.chain) await finishPendingSettlements(ctx);
  },
};
