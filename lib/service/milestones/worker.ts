import type { Worker } from "../context";
import { autoApproveStaleMilestones, releaseDueMilestones } from "./milestone-actions";

/**
 * Every minute: releases the approved parts of jobs paid in parts whose proof hold has ended (after a
 * fresh check), and approves automatically the parts their poster left alone through the proof hold
 * and the review window, as the review worker does for whole jobs.
 */
export const milestoneReleaseWorker: Worker = {
  name: "milestone-release",
  everyMs: 60_000,
  run: async (ctx) => {
    if (!ctx.config.chain) return;
    await releaseDueMilestones(ctx);
    await autoApproveStaleMilestones(ctx);
  },
};
