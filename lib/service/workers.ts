import type { ServiceContext, Worker } from "./context";
import { chainFailureReason } from "@/lib/chain/escrow/errors";
import { depositWatchWorker, escrowExpiryWorker, settlementWorker } from "./escrow/worker";
import { proofRecheckWorker, reviewReleaseWorker } from "./deliverables/worker";
import { milestoneReleaseWorker } from "./milestones/worker";
import { bidWalletAskWorker } from "./bids/worker";
import { claimLapseWorker } from "./job-modes/worker";
import { rewardsWorker } from "./rewards/worker";
import { disputesWorker } from "./disputes/worker";
import { webhookDeliveryWorker, webhookFanOutWorker } from "./webhooks/worker";
import { notificationsWorker } from "./notifications/fan-out";
import { SINGLE_PROCESS_LEADERSHIP, type WorkerLeadership } from "./worker-leadership";
import { packPayoutWorker } from "./evals/pack-payouts";
import { reconciliationWorker } from "./admin/reconciliation-worker";
import { errorFields, log, withLogFields } from "./log";
import { livenessWorker } from "./identity/liveness";
import { depositAttachWorker } from "./jobs/attach-deposits";

/**
 * Background work of the service (proof rechecks, payouts, claim lapses). Each domain adds its
 * worker here. Each worker runs in one process at a time across every process and instance: the
 * one leading it (worker-leadership.ts, an advisory lock in PostgreSQL); its work is also claimed in
 * the database (SKIP LOCKED), so a round cut off by a change of leader never handles an item twice.
 */
export const workers: Worker[] = [
  settlementWorker,
  depositWatchWorker,
  depositAttachWorker,
  escrowExpiryWorker,
  proofRecheckWorker,
  reviewReleaseWorker,
  milestoneReleaseWorker,
  claimLapseWorker,
  bidWalletAskWorker,
  rewardsWorker,
  webhookFanOutWorker,
  webhookDeliveryWorker,
  notificationsWorker,
  packPayoutWorker,
  disputesWorker,
  reconciliationWorker,
  livenessWorker,
];

/**
 * The longest a round may take before it is abandoned, unless the worker says otherwise
 * (Worker.deadlineMs). Above what a healthy round needs (a settlement waits up to 180 s for its
 * receipt, but a round of several has never needed more than a few), far below the leases that
 * guard each item (5 min), so an abandoned round's items are still protected from a second sender.
 */
export const DEFAULT_ROUND_DEADLINE_MS = 4 * 60_000;

/** A round that did not end by its deadline: abandoned, and recorded as the round's error. */
export class RoundDeadlineError extends Error {
  constructor(name: string, ms: number) {
    super(
      `the round of ${name} did not end within ${ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`} and was abandoned; the next round starts afresh`,
    );
    this.name = "RoundDeadlineError";
  }
}

/**
 * Runs the workers this process leads. A process that does not lead a worker asks again at each of
 * its rounds, so when the leader goes away another takes over within one interval. Each round's
 * outcome goes to worker_heartbeats (shared by every instance), which GET /v1/health reads to tell
 * whether any instance is still doing the work.
 *
 * A round has a deadline (Worker.deadlineMs, else DEFAULT_ROUND_DEADLINE_MS). A round stuck past
 * it (a database or RPC that stopped answering) is abandoned: its `running` flag is released, the
 * error recorded, and the next tick checks the leadership again before it runs a new round. The
 * abandoned promise may still finish later; that is safe because every item is claimed in the
 * database (a lease or SKIP LOCKED), never by being inside a round. So the process recovers from an
 * outage by itself, without a restart.
 */
export function startWorkers(
  ctx: ServiceContext,
  list: Worker[] = workers,
  leadership: WorkerLeadership = SINGLE_PROCESS_LEADERSHIP,
  options: { roundDeadlineMs?: number } = {},
): () => void {
  const timers = list.map((worker) => {
    const deadlineMs = worker.deadlineMs ?? options.roundDeadlineMs ?? DEFAULT_ROUND_DEADLINE_MS;
    let running = false;
    let leading = false;
    const round = async () => {
      const leads = await leadership.lead(worker.name);
      if (leads && !leading) await recordWorkerStart(ctx, worker.name);
      leading = leads;
      if (!leads) return;
      await worker.run(ctx);
      await recordWorkerRound(ctx, worker.name, null);
    };
    const tick = () =>
      withLogFields({ worker: worker.name }, async () => {
        if (running) return;
        running = true;
        let timer: NodeJS.Timeout | undefined;
        try {
          const deadline = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new RoundDeadlineError(worker.name, deadlineMs)), deadlineMs);
          });
          await Promise.race([round(), deadline]);
        } catch (error) {
          log.error({ worker: worker.name, ...errorFields(error) }, "worker round failed");
          // Leadership is asked again at the next tick, from whatever state the lost round left.
          if (error instanceof RoundDeadlineError) leading = false;
          await withDeadline(recordWorkerRound(ctx, worker.name, error), deadlineMs);
        } finally {
          clearTimeout(timer);
          running = false;
        }
      });
    // Take the lead at once (health then counts the leader's lag from now), run at the interval.
    running = true;
    void withDeadline(
      leadership.lead(worker.name).then(async (leads) => {
        leading = leads;
        if (leads) await recordWorkerStart(ctx, worker.name);
      }),
      deadlineMs,
    )
      .catch((error) => log.error({ worker: worker.name, ...errorFields(error) }, "worker could not start"))
      .finally(() => {
        running = false;
      });
    return setInterval(tick, worker.everyMs);
  });
  return () => timers.forEach(clearInterval);
}

/** Waits for `work` at most `ms`, then goes on (the work is left to finish or fail on its own). */
async function withDeadline(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.catch(() => {}), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** An instance starts running a worker: its lag is counted from now until its first round. */
export async function recordWorkerStart(ctx: ServiceContext, name: string): Promise<void> {
  const now = ctx.now();
  await ctx.db
    .insertInto("worker_heartbeats")
    .values({ name, started_at: now })
    .onConflict((oc) => oc.column("name").doUpdateSet({ started_at: now }))
    .execute()
    .catch((error) => log.warn({ worker: name, ...errorFields(error) }, "heartbeat not recorded"));
}

/**
 * A round ended: a success moves last_run_at and clears the error; a failure records the error and
 * leaves last_run_at, so a worker that keeps failing shows as late. Never throws: a heartbeat that
 * cannot be written (database down) must not stop the worker.
 */
export async function recordWorkerRound(ctx: ServiceContext, name: string, error: unknown): Promise<void> {
  const now = ctx.now();
  const set =
    error == null
      ? { last_run_at: now, last_error: null, last_error_at: null }
      : { last_error: chainFailureReason(error).slice(0, 500), last_error_at: now };
  await ctx.db
    .insertInto("worker_heartbeats")
    .values({ name, started_at: now, ...set })
    .onConflict((oc) => oc.column("name").doUpdateSet(set))
    .execute()
    .catch((failure) => log.warn({ worker: name, ...errorFields(failure) }, "heartbeat not recorded"));
}
