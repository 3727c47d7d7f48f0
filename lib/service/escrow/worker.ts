import type { Worker } from "../context";
import { finishPendingSettlements } from "./settle-job";
import { watchDeposits } from "./deposit-watch";
import { recordFirstEscrowOfFundedJobs } from "./escrow-contract";
import { finishPendingPartSettlements } from "./settle-part";
import { warnOfEscrowExpiry } from "./expiry-warnings";

/** Every 10 s: finishes releases and refunds left PENDING by a crash or a chain outage (lease run out). */
export const settlementWorker: Worker = {
  name: "escrow-settlements",
  everyMs: 10_000,
  run: async (ctx) => {
    if (ctx.config.chain) {
      await finishPendingSettlements(ctx);
      // The parts of jobs paid in milestones, by the same rule.
      await finishPendingPartSettlements(ctx);
    }
  },
};

/**
 * Every 15 s: reads the escrow's final Deposited events, returns deposits that cannot fund their
 * job to their payers (escrow/deposit-watch.ts), and notices deposits and settlements a chain
 * reorganisation removed (the job is unfunded again, or the settlement is sent again). First, funded
 * jobs that name no escrow contract (funded before migration 0125) get the first escrow's.
 */
export const depositWatchWorker: Worker = {
  name: "escrow-deposits",
  everyMs: 15_000,
  run: async (ctx) => {
    if (!ctx.config.chain) return;
    await recordFirstEscrowOfFundedJobs(ctx.db, ctx.config.chain);
    await watchDeposits(ctx);
  },
};

/** Every 5 minutes: tells the parties and the operators of EscrowV2 slots 72 and 24 hours before their expiry. */
export const escrowExpiryWorker: Worker = {
  name: "escrow-expiry-warnings",
  everyMs: 5 * 60_000,
  run: async (ctx) => {
    if (ctx.config.chain) await warnOfEscrowExpiry(ctx);
  },
};
