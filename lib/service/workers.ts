import type { ServiceContext, Worker } from "./context";
import { settlementWorker } from "./escrow/worker";
import { proofRecheckWorker, reviewReleaseWorker } from "./deliverables/worker";
import { claimLapseWorker } from "./job-modes/worker";
import { rewardsWorker } from "./rewards/worker";
import { disputesWorker } from "./disputes/worker";
import { webhookDeliveryWorker, webhookFanOutWorker } from "./webhooks/worker";
import { notificationsWorker } from "./notifications/fan-out";
import { SINGLE_PROCESS_LEADERSHIP, type WorkerLeadership } from "./worker-leadership";
import { packPayoutWorker } from "./evals/pack-payouts";

/**
 * Background work of the service (proof rechecks, payouts, claim lapses). Each domain adds its
 * worker here. Each worker runs in one process at a time across every process and instance: the
 * one leading it (worker-leadership.ts, an advisory lock in PostgreSQL); its work is also claimed in
 * the database (SKIP LOCKED), so a round cut off by a change of leader never handles an item twice.
 */
export const workers: Worker[] = [settlementWorker, proofRecheckWorker, reviewReleaseWorker, claimLapseWorker, rewardsWorker, webhookFanOutWorker, webhookDeliveryWorker, notificationsWorker, packPayoutWorker, disputesWorker];

/**
 * Runs the workers this process leads. A process that does not lead a worker asks again at each of
 * its rounds, so when the leader goes away another takes over within one interval. Each round's
 * outcome goes to worker_heartbeats (shared by every instance), which GET /v1/health reads to tell
 * whether any instance is still doing the work.
 */
export function startWorkers(ctx: ServiceContext, list: Worker[] = workers, leadership: WorkerLeadership = SINGLE_PROCESS_LEADERSHIP): () => void {
  const timers = list.map((worker) => {
    let running = false;
    let leading = false;
    const tick = async () => {
      if (running) return;
      running = true;
      try {
        const leads = await leadership.lead(worker.name);
        if (leads && !leading) await recordWorkerStart(ctx, worker.name);
        leading = leads;
        if (!leads) return;
        await worker.run(ctx);
        await recordWorkerRound(ctx, worker.name, null);
      } catch (error) {
        console.error(`[worker ${worker.name}]`, error);
        await recordWorkerRound(ctx, worker.name, error);
      } finally {
        running = false;
      }
    };
    // Take the lead at once (health then counts the leader's lag from now), run at the interval.
    running = true;
    void leadership
      .lead(worker.name)
      .then(async (leads) => {
        leading = leads;
        if (leads) await recordWorkerStart(ctx, worker.name);
      })
      .finally(() => {
        running = false;
      });
    return setInterval(tick, worker.everyMs);
  });
  return () => timers.forEach(clearInterval);
}

/** An instance starts running a worker: its lag is counted from now until its first round. */
export async function recordWorkerStart(ctx: ServiceContext, name: string): Promise<void> {
  const now = ctx.now();
  await ctx.db
    .insertInto("worker_heartbeats")
    .values({ name, started_at: now })
    .onConflict((oc) => oc.column("name").doUpdateSet({ started_at: now }))
    .execute()
    .catch((error) => console.error(`[worker ${name}] heartbeat not recorded`, error));
}

/**
 * A round ended: a success moves last_run_at and clears the error; a failure records the error and
 * leaves last_run_at, so a worker that keeps failing shows as late. Never throws: a heartbeat that
 * cannot be written (database down) must not stop the worker.
 */
export async function recordWorkerRound(ctx: ServiceContext, name: string, error: unknown): Promise<void> {
  const now = ctx.now();
  const set = error == null
    ? { last_run_at: now, last_error: null, last_error_at: null }
    : { last_error: (error instanceof Error ? error.message : String(error)).slice(0, 500), last_error_at: now };
  await ctx.db
    .insertInto("worker_heartbeats")
    .values({ name, started_at: now, ...set })
    .onConflict((oc) => oc.column("name").doUpdateSet(set))
    .execute()
    .catch((failure) => console.error(`[worker ${name}] heartbeat not recorded`, failure));
}
