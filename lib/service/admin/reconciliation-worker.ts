import type { Worker } from "../context";
import { reconcileEscrow } from "./reconcile-escrow";

/**
 * Every 10 minutes: reconciles the chain against the database (as GET /v1/admin/reconciliation
 * does, and recorded the same way), so GET /v1/health reports differences nobody asked about.
 */
export const reconciliationWorker: Worker = {
  name: "reconciliation",
  everyMs: 10 * 60_000,
  run: async (ctx) => {
    if (ctx.config.chain) await reconcileEscrow(ctx);
  },
};
