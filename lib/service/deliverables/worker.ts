import type { Worker } from "../workers";
import { runProofRecheckRound, runReleaseAndTimeouts, RECHECK_BATCH } from "./review-queue";

/** Rechecks due deliverables (batches of 20 until none is due), releases, and applies timeouts. */
export const reviewQueueWorker: Worker = {
  name: "review-queue",
  everyMs: 60_000,
  run: async (ctx) => {
    for (let round = 0; round < 50; round++) {
      if ((await runProofRecheckRound(ctx)) < RECHECK_BATCH) break;
    }
    if (ctx.config.chain) await runReleaseAndTimeouts(ctx);
  },
};
