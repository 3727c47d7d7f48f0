import { serviceFetchPolicy } from "../proofs/fetch-policy";
import { probeDeliverable, type ProbeResult } from "../proofs/probe";
import type { ServiceContext } from "../context";
import type { JobRow } from "../db/schema";
import type { ProofTrigger } from "@/lib/api/schemas/deliverables";
import type { ErrorExtra } from "@/lib/api/schemas/errors";
import { publishEvent } from "../events/publish-event";
import { jobRecipients } from "../events/recipients";

/** Test seam: tests may answer DNS for made-up public names; production uses the system resolver. */
export const proberOptions: { resolve?: (hostname: string) => Promise<string[]>; timeoutMs?: number } = {};

export interface CheckOptions {
  /** The time to record (default ctx.now()). */
  now?: Date;
  /**
   * Copy the result onto the job's proofChecked* fields (default true). A failed submission
   * leaves the job as it was: only the history row records it.
   */
  updateJob?: boolean;
}

export function deliverableUrlOf(job: Pick<JobRow, "output_data">): string | null {
  const url = (job.output_data as { url?: unknown } | null)?.url;
  return typeof url === "string" && url.length > 0 ? url : null;
}

/**
 * Probes a deliverable (the job's proofContentMarker required) and records the result: always a
 * proof_checks history row; and, unless told otherwise, the job's proofCheckedAt, proofCheckStatus
 * and proofCheckReason while the job is in review or dispute. An inconclusive probe (UNREACHABLE)
 * is recorded as such and never counts as proof.
 */
export async function checkDeliverable(
  ctx: ServiceContext,
  job: Pick<JobRow, "id" | "input_data" | "poster_id" | "agent_id">,
  url: string,
  trigger: ProofTrigger,
  options: CheckOptions = {},
): Promise<ProbeResult> {
  const marker = (job.input_data as { proofContentMarker?: string }).proofContentMarker ?? null;
  const result = await probeDeliverable(url, {
    marker,
    // Loopback only on the local chain; never this app itself, on any hop.
    ...serviceFetchPolicy(ctx.config),
    ...(proberOptions.resolve ? { resolve: proberOptions.resolve } : {}),
    ...(proberOptions.timeoutMs ? { timeoutMs: proberOptions.timeoutMs } : {}),
    now: options.now ? () => options.now! : ctx.now,
  });
  const checkedAt = options.now ?? ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom("jobs")
      .select("proof_check_status")
      .where("id", "=", job.id)
      .executeTakeFirst();
    await trx
      .insertInto("proof_checks")
      .values({
        job_id: job.id,
        url,
        trigger,
        status: result.status,
        reason: result.reason,
        http_status: result.httpStatus,
        final_url: result.finalUrl,
        content_sha256: result.contentSha256,
        checked_at: checkedAt,
      })
      .execute();
    if (options.updateJob ?? true) {
      await trx
        .updateTable("jobs")
        .set({ proof_checked_at: checkedAt, proof_check_status: result.status, proof_check_reason: result.reason })
        .where("id", "=", job.id)
        .where("status", "in", ["REVIEW", "DISPUTED"])
        .execute();
    }
    // A check that found the work missing or wrong (not one that could not tell: UNREACHABLE) is
    // announced to the agent and the poster; the periodic recheck only when the status changed, so
    // a link that stays broken is not announced every round.
    const changed = trigger !== "RECHECK" || before?.proof_check_status !== result.status;
    if (result.status !== "LIVE" && result.status !== "UNREACHABLE" && changed) {
      await publishEvent(trx, {
        type: "proof.failed",
        jobId: job.id,
        to: await jobRecipients(trx, job),
        data: {
          jobId: job.id,
          agentId: job.agent_id,
          trigger,
          url,
          status: result.status,
          reason: result.reason,
          httpStatus: result.httpStatus,
          checkedAt: checkedAt.toISOString(),
        },
      });
    }
  });
  return result;
}

/** The refusal body fields of a failed check (409/422 PROOF_CHECK_FAILED). */
export function proofFailureExtra(probe: ProbeResult): ErrorExtra<"PROOF_CHECK_FAILED"> {
  return {
    proofCheckStatus: probe.status,
    proofCheckReason: probe.reason,
    proofCheckHttpStatus: probe.httpStatus,
    proofCheckFinalUrl: probe.finalUrl,
  };
}
