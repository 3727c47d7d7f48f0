import { probeDeliverable, type ProbeResult } from "../proofs/probe";
import type { ServiceContext } from "../context";
import type { JobRow } from "../db/schema";

export type ProofTrigger = "SUBMISSION" | "RECHECK" | "APPROVAL" | "RELEASE";

/** Test seam: tests may answer DNS for made-up public names; production uses the system resolver. */
export const proberOptions: { resolve?: (hostname: string) => Promise<string[]>; timeoutMs?: number } = {};

/**
 * Probes a deliverable and records the result: a history row, and the job's proofChecked* fields.
 * An inconclusive probe is recorded as such and never counts as proof.
 */
export async function checkDeliverable(ctx: ServiceContext, job: Pick<JobRow, "id" | "input_data">, url: string, trigger: ProofTrigger): Promise<ProbeResult> {
  const marker = (job.input_data as { proofContentMarker?: string }).proofContentMarker ?? null;
  const result = await probeDeliverable(url, {
    marker,
    allowLoopback: ctx.config.probeAllowLoopback,
    ...(proberOptions.resolve ? { resolve: proberOptions.resolve } : {}),
    ...(proberOptions.timeoutMs ? { timeoutMs: proberOptions.timeoutMs } : {}),
    now: ctx.now,
  });
  const checkedAt = ctx.now();
  await ctx.db
    .insertInto("proof_checks")
    .values({ job_id: job.id, url, trigger, status: result.status, reason: result.reason, http_status: result.httpStatus, final_url: result.finalUrl, checked_at: checkedAt })
    .execute();
  await ctx.db
    .updateTable("jobs")
    .set({ proof_checked_at: checkedAt, proof_check_status: result.status, proof_check_reason: result.reason })
    .where("id", "=", job.id)
    .execute();
  return result;
}
