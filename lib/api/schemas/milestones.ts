import { z } from "zod";
import { NullableTimestamp, Timestamp, Uuid, intParam } from "./common";
import { DisputeOutcome } from "./disputes";
import { ChangeRequest } from "./jobs";

export const MILESTONE_STATUSES = [
  "OPEN",
  "SUBMITTED",
  "APPROVED",
  "DISPUTED",
  "RELEASED",
  "SPLIT",
  "REFUNDED",
] as const;
/**
 * OPEN (work to do), SUBMITTED (a LIVE deliverable awaits the poster), APPROVED (approved; released
 * when its proof hold ends), DISPUTED (frozen until the arbiter rules on this part), and the settled
 * states RELEASED (paid to the agent), SPLIT (a ruling split it) and REFUNDED (back to the payer).
 */
export const MilestoneStatus = z.enum(MILESTONE_STATUSES);
export const SETTLED_MILESTONE_STATUSES = [
  "RELEASED",
  "SPLIT",
  "REFUNDED",
] as const satisfies readonly (typeof MILESTONE_STATUSES)[number][];

export const MilestoneSettlement = z.object({
  kind: z.enum(["RELEASE", "REFUND", "SPLIT"]),
  status: z.enum(["PENDING", "CONFIRMED", "FAILED"]),
  /** RELEASE and SPLIT: what the agent got (net of the fee); REFUND: what the payer got. Null until confirmed. */
  amountUsdc: z.string().nullable(),
  feeUsdc: z.string().nullable(),
  /** SPLIT: what went back to the payer. */
  payerAmountUsdc: z.string().nullable(),
  to: z.string().nullable(),
  txHash: z.string().nullable(),
  confirmedAt: NullableTimestamp,
  lastError: z.string().nullable(),
});

/**
 * One part of a job paid in parts. The deliverable, the marker and the reasons are shown to the
 * poster's side, and to the agent's side for the parts it delivered (or has yet to deliver) only.
 */
export const Milestone = z.object({
  id: Uuid,
  jobId: Uuid,
  /** 1-based order of the part; the part's index in the escrow contract is position - 1. */
  position: z.number().int(),
  title: z.string(),
  amountUsdc: z.string(),
  acceptanceCriteria: z.string(),
  proofContentMarker: z.string().nullable(),
  deadlineAt: NullableTimestamp,
  status: MilestoneStatus,
  deliverableUrl: z.string().nullable().meta({
    description:
      "The part's deliverable: for the poster's side, and for the agent that delivered it (an agent that takes the job over later never reads it).",
  }),
  proofHash: z.string().nullable(),
  submittedAt: NullableTimestamp,
  approvedAt: NullableTimestamp,
  /** When the approved part's proof hold ends and it is released. */
  releaseAt: NullableTimestamp,
  releaseHeldReason: z.string().nullable().meta({
    description:
      "Why the part's money is held (a failed check at release, no wallet, a pending transaction, a failed automatic approval) and when it is tried next: the wait doubles with each attempt, from 1 minute to at most an hour.",
  }),
  disputedAt: NullableTimestamp,
  disputeReason: z.string().nullable(),
  ruling: z.object({ outcome: DisputeOutcome, agentShare: z.number().int().nullable(), reason: z.string() }).nullable(),
  settlement: MilestoneSettlement.nullable(),
  settledAt: NullableTimestamp,
  /** How many times the poster sent this part's delivered work back for changes (at most the job's maxRevisions). */
  revisionCount: z.number().int(),
  /** The latest request for changes to this part (the parties only; null for everyone else, and before any). */
  changeRequest: ChangeRequest.nullable(),
  createdAt: Timestamp,
});

export const MilestoneParams = z.strictObject({ id: Uuid, position: intParam(1, 1000) });
