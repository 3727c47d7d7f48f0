import type { Worker } from "../context";
import { RECHECK_BATCH, runProofRecheckRound, runReleaseAndTimeouts } from "./review-queue";

/**
 * Every minute: claims due deliverables (last checked 15 minutes ago or more) in batches of 20
 * and probes them, batch after batch until fewer than 20 were due (at most 50 batches a run).
 */
export const proofRecheckWorker: Worker = {
  name: "proof-recheck",
  everyMs: 60_000,
  run: async (ctx) => {
    for (let round = 0; round < 50; round++) {
      if ((await runProofRecheckRound(ctx)) < RECHECK_BATCH) break;
    }
  },
};

/** Every minute: releases approved jobs whose hold ended and auto-approves stale reviews (disputes wait for a ruling). */
export const reviewReleaseWorker: Worker = {
  name: "review-release",
  everyMs: 60_000,
  run: async (ctx) => {
    if (ctx.config.chain) await runReleaseAndTimeouts(ctx);
  },
};
