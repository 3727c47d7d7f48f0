import type { Worker } from "../context";
import { announceSettledRulings, escalateDueDisputes } from "./escalate-disputes";

/** Every minute: escalates cases nobody ruled on by their deadline, and announces rulings whose settlement confirmed late. */
export const disputesWorker: Worker = {
  name: "disputes",
  everyMs: 60_000,
  run: async (ctx) => {
    await escalateDueDisputes(ctx);
    await announceSettledRulings(ctx);
  },
};
