import type { Worker } from "../context";
import { lapseExpiredClaims } from "../jobs/read-job";
import { closeSubmittedClaims } from "./claims";

const BATCH = 100;

/**
 * Every 30 s: lapses expired bounty claims (batches claimed with FOR UPDATE SKIP LOCKED, so several
 * instances share them), then closes the history rows of claims that ended in a submission.
 */
export const claimLapseWorker: Worker = {
  name: "claim-lapse",
  everyMs: 30_000,
  run: async (ctx) => {
    for (let round = 0; round < 20; round++) {
      if ((await lapseExpiredClaims(ctx, { limit: BATCH })).length < BATCH) break;
    }
    await closeSubmittedClaims(ctx);
  },
};
