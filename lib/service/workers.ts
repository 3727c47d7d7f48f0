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

export function startWorkers(ctx: ServiceContext): () => void {
  const timers = workers.map((worker) => {
    let running = false;
    const tick = async () => {
      if (running) return;
      running = true;
      try {
        await worker.run(ctx);
      } catch (error) {
        console.error(`[worker ${worker.name}]`, error);
      } finally {
        running = false;
      }
    };
    return setInterval(tick, worker.everyMs);
  });
  return () => timers.forEach(clearInterval);
}
