import type { Worker } from "../workers";
import { finishPendingSettlements } from "./settle-job";

export const settlementWorker: Worker = {
  name: "escrow-settlements",
  everyMs: 15_000,
  run: async (ctx) => {
    if (ctx.config.chain) await finishPendingSettlements(ctx);
  },
};
