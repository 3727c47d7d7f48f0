import { fail } from "../errors";
import type { Selectable } from "kysely";
import type { z } from "zod";
import type { Milestone } from "@/lib/api/schemas/milestones";
import { formatUsdc, normaliseDecimal } from "@/lib/chain/units";
import type { Actor } from "../auth/actor";
import type { Db } from "../db/connection";
import type { JobMilestonesTable, MilestoneSettlementsTable } from "../db/schema";
import { jobRoleOf, type JobPartiesRow } from "../jobs/job-viewer";

export type MilestoneRow = Selectable<JobMilestonesTable>;
type SettlementRow = Selectable<MilestoneSettlementsTable>;

const units = (v: string | null) => (v === null ? null : formatUsdc(BigInt(v)));
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Is the caller one of the job's parties (the poster's side or the assigned agent's)? They alone see the delivered work. */
export function isJobParty(actor: Actor | null, job: JobPartiesRow): boolean {
  const role = jobRoleOf(actor, job);
  return (
    role === "POSTER" || role === "OWNER_OF_POSTER" || role === "ASSIGNED_AGENT" || role === "OWNER_OF_ASSIGNED_AGENT"
  );
}

/**
 * Who reads a part's private fields (its deliverable, marker, reasons): the poster's side for every
 * part; the assigned agent's side for the parts it delivered or has yet to deliver. An agent that
 * takes a job over never reads the parts another agent delivered (job_milestones.delivered_by).
 */
export function partReaderOf(actor: Actor | null, job: JobPartiesRow): (m: MilestoneRow) => boolean {
  const role = jobRoleOf(actor, job);
  if (role === "POSTER" || role === "OWNER_OF_POSTER") return () => true;
  if (role === "ASSIGNED_AGENT" || role === "OWNER_OF_ASSIGNED_AGENT")
    return (m) => m.delivered_by === null || m.delivered_by === job.agent_id;
  return () => false;
}

export function presentMilestone(
  m: MilestoneRow,
  s: SettlementRow | undefined,
  party: boolean,
): z.infer<typeof Milestone> {
  return {
    id: m.id,
    jobId: m.job_id,
    position: m.position,
    title: m.title,
    amountUsdc: normaliseDecimal(m.amount_usdc),
    acceptanceCriteria: m.acceptance_criteria,
    proofContentMarker: party ? m.proof_content_marker : null,
    deadlineAt: iso(m.deadline_at),
    status: m.status,
    deliverableUrl: party ? m.output_url : null,
    proofHash: party ? m.proof_hash : null,
    submittedAt: iso(m.submitted_at),
    approvedAt: iso(m.approved_at),
    releaseAt: iso(m.release_at),
    releaseHeldReason: party ? m.release_held_reason : null,
    disputedAt: iso(m.disputed_at),
    disputeReason: party ? m.dispute_reason : null,
    ruling: m.ruling_outcome
      ? { outcome: m.ruling_outcome, agentShare: m.ruling_agent_share, reason: m.ruling_reason ?? "" }
      : null,
    settlement: s
      ? {
          kind: s.kind,
          status: s.status,
          amountUsdc: units(s.amount_units),
          feeUsdc: units(s.fee_units),
          payerAmountUsdc: units(s.payer_amount_units),
          to: s.to_address,
          txHash: s.tx_hash,
          confirmedAt: iso(s.confirmed_at),
          lastError: s.last_error,
        }
      : null,
    settledAt: iso(m.settled_at),
    revisionCount: m.revision_count,
    changeRequest:
      party && m.change_request_message !== null && m.changes_requested_at !== null
        ? {
            round: m.revision_count,
            message: m.change_request_message,
            requestedAt: m.changes_requested_at.toISOString(),
          }
        : null,
    createdAt: m.created_at.toISOString(),
  };
}

export async function getMilestoneOrThrow(db: Db, jobId: string, position: number): Promise<MilestoneRow> {
  const m = await db
    .selectFrom("job_milestones")
    .selectAll()
    .where("job_id", "=", jobId)
    .where("position", "=", position)
    .executeTakeFirst();
  if (!m) throw fail("NOT_FOUND", "milestone not found");
  return m;
}

/** The milestones of a job as the caller may see them (partReaderOf), in order. */
export async function listMilestonesOf(db: Db, jobId: string, reads: (m: MilestoneRow) => boolean) {
  const rows = await db
    .selectFrom("job_milestones")
    .selectAll()
    .where("job_id", "=", jobId)
    .orderBy("position")
    .execute();
  const settlements =
    rows.length === 0
      ? []
      : await db.selectFrom("milestone_settlements").selectAll().where("job_id", "=", jobId).execute();
  return rows.map((m) =>
    presentMilestone(
      m,
      settlements.find((s) => s.milestone_id === m.id),
      reads(m),
    ),
  );
}

export async function presentOne(db: Db, jobId: string, position: number, party: boolean) {
  const m = await getMilestoneOrThrow(db, jobId, position);
  const s = await db
    .selectFrom("milestone_settlements")
    .selectAll()
    .where("milestone_id", "=", m.id)
    .executeTakeFirst();
  return presentMilestone(m, s, party);
}
