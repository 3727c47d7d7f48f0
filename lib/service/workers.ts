import type { ServiceContext, Worker } from "./context";
import { settlementWorker } from "./escrow/worker";
import { proofRecheckWorker, reviewReleaseWorker } from "./deliverables/worker";
import { claimLapseWorker } from "./job-modes/worker";
import { rewardsWorker } from "./rewards/worker";

/**
 * Background work of the service (proof rechecks, payouts, claim lapses). Each domain adds its
 * worker here. Work is claimed in the database (SKIP LOCKED), so running workers in several app
 * instances at once is safe.
 */
export const workers: Worker[] = [settlementWorker, proofRecheckWorker, reviewReleaseWorker, claimLapseWorker, rewardsWorker];

/**
 * Runs the workers in this process. Each round's outcome goes to worker_heartbeats (shared by every
 * instance), which GET /v1/health reads to tell whether any instance is still doing the work.
 */
export function startWorkers(ctx: ServiceContext, list: Worker[] = workers): () => void {
  const timers = list.map((worker) => {
    void recordWorkerStart(ctx, worker.name);
    let running = false;
    const tick = async () => {
      if (running) return;
      running = true;
      try {
        await worker.run(ctx);
        await recordWorkerRound(ctx, worker.name, null);
      } catch (error) {
        console.error(`[worker ${worker.name}]`, error);
        await recordWorkerRound(ctx, worker.name, error);
      } finally {
        running = false;
      }
    };
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
