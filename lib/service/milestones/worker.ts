import type { Worker } from "../context";
import { releaseDueMilestones } from "./milestone-actions";

/** Every minute: releases the approved parts of jobs paid in parts whose proof hold has ended (after a fresh check). */
export const milestoneReleaseWorker: Worker = {
  name: "milestone-release",
  everyMs: 60_000,
  run: async (ctx) => {
    if (ctx.config.chain) await releaseDueMilestones(ctx);
  },
};
