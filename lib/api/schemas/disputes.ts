import { z } from "zod";
import { DISPUTE_LIMITS } from "./constants";
import { Cursor, DecimalString, EvmAddress, NullableTimestamp, Timestamp, TxHash, Uuid, intParam } from "./common";
import { ProofCheck, ProofStatus } from "./deliverables";
import { JobEvent } from "./job-events";

export const DISPUTE_CASE_STATUSES = ["OPEN", "ESCALATED", "RULED"] as const;
export const DisputeCaseStatus = z.enum(DISPUTE_CASE_STATUSES);
export const DISPUTE_OUTCOMES = ["PAY_AGENT", "REFUND_POSTER", "SPLIT"] as const;
export const DisputeOutcome = z.enum(DISPUTE_OUTCOMES);
export type DisputeOutcome = z.infer<typeof DisputeOutcome>;
export const DisputeSide = z.enum(["POSTER", "AGENT"]);
export const ArbiterKind = z.enum(["EVALUATOR", "OPERATOR"]);

export const AddDisputeStatementRequest = z.strictObject({
  body: z
    .string()
    .trim()
    .min(DISPUTE_LIMITS.statementMin, { message: "must not be empty" })
    .max(DISPUTE_LIMITS.statementMax),
  evidenceUrls: z
    .array(z.url({ protocol: /^https?$/, message: "must be an http or https URL" }).max(DISPUTE_LIMITS.urlMax))
    .max(DISPUTE_LIMITS.evidenceUrlsMax, { message: `must list at most ${DISPUTE_LIMITS.evidenceUrlsMax} URLs` })
    .default([]),
});

export const RuleDisputeRequest = z
  .strictObject({
    outcome: DisputeOutcome,
    /** SPLIT only: the agent's percentage of the escrow (1 to 99); the contract's fee comes out of it. */
    agentShare: intParam(DISPUTE_LIMITS.agentShareMin, DISPUTE_LIMITS.agentShareMax).optional(),
    reason: z
      .string()
      .trim()
      .min(DISPUTE_LIMITS.rulingReasonMin, { message: `must be at least ${DISPUTE_LIMITS.rulingReasonMin} characters` })
      .max(DISPUTE_LIMITS.rulingReasonMax),
  })
  .refine((r) => (r.outcome === "SPLIT") === (r.agentShare !== undefined), {
    message: "agentShare is required with outcome SPLIT and refused with the others",
    path: ["agentShare"],
  });

export const DisputeEvidence = z.object({
  id: Uuid,
  url: z.string(),
  /** The probe's verdict (the deliverable probe's statuses; no marker applies); null until probed. */
  status: ProofStatus.nullable(),
  reason: z.string().nullable(),
  httpStatus: z.number().int().nullable(),
  finalUrl: z.string().nullable(),
  /** SHA-256 of the text read when LIVE: what the URL showed when it was submitted. */
  contentSha256: z.string().nullable(),
  checkedAt: NullableTimestamp,
});

export const DisputeStatement = z.object({
  id: Uuid,
  side: DisputeSide,
  author: z.object({ kind: z.enum(["USER", "AGENT"]), id: z.string() }),
  body: z.string(),
  evidence: z.array(DisputeEvidence),
  createdAt: Timestamp,
});

export const DisputeSettlement = z.object({
  kind: z.enum(["RELEASE", "REFUND", "SPLIT"]),
  status: z.enum(["PENDING", "CONFIRMED", "FAILED"]),
  txHash: TxHash.nullable(),
  /** What the agent received (net of the fee); null until confirmed, and for a refund. */
  agentAmountUsdc: DecimalString.nullable(),
  feeUsdc: DecimalString.nullable(),
  /** What went back to the payer; null until confirmed, and for a release. */
  payerAmountUsdc: DecimalString.nullable(),
  lastError: z.string().nullable(),
  confirmedAt: NullableTimestamp,
});

export const DisputeRuling = z.object({
  outcome: DisputeOutcome,
  /** The agent's percentage: 100 for PAY_AGENT, 0 for REFUND_POSTER. */
  agentShare: z.number().int(),
  arbiter: ArbiterKind,
  ruledBy: EvmAddress,
  reason: z.string(),
  createdAt: Timestamp,
  settlement: DisputeSettlement.nullable(),
});

export const DisputeCaseSummary = z.object({
  id: Uuid,
  jobId: Uuid,
  jobTitle: z.string(),
  budgetUsdc: DecimalString,
  status: DisputeCaseStatus,
  /** Null for a job disputed before dispute cases existed (who opened it was not kept). */
  openedBy: DisputeSide.nullable(),
  reason: z.string(),
  /** Who decides now: the evaluator named on the job, or the operator (no evaluator, or escalated). */
  arbiter: ArbiterKind,
  evaluatorAddress: EvmAddress.nullable(),
  /** Statements close at this time. */
  answerDeadlineAt: Timestamp,
  /** A case nobody ruled on by this time escalates to the operator. */
  rulingDeadlineAt: Timestamp,
  escalatedAt: NullableTimestamp,
  ruledAt: NullableTimestamp,
  outcome: DisputeOutcome.nullable(),
  createdAt: Timestamp,
});

export const DisputeViewerRole = z.enum(["POSTER", "AGENT", "EVALUATOR", "OPERATOR"]);

export const DisputeCase = DisputeCaseSummary.extend({
  statements: z.array(DisputeStatement),
  ruling: DisputeRuling.nullable(),
  /**
   * The work under dispute, as the agent last delivered it (null when nothing was delivered): the
   * URL, when it came and the SHA-256 of what the probe read then. Its readers (the parties, the
   * evaluator, the operator) see it here, with its proof history, beside both sides' statements.
   */
  deliverable: z
    .object({ url: z.string(), submittedAt: NullableTimestamp, proofHash: z.string().nullable() })
    .nullable(),
  /** The deliverable's whole proof-check history, oldest first. */
  proofChecks: z.array(ProofCheck),
  /** The job's timeline (as GET /v1/jobs/:id/events), oldest first, up to 500 events. */
  timeline: z.array(JobEvent),
  viewer: z.object({
    /** The caller's strongest role on the case (a party side first). */
    role: DisputeViewerRole,
    can: z.object({ addStatement: z.boolean(), rule: z.boolean() }),
  }),
});
export type DisputeCase = z.infer<typeof DisputeCase>;

export const ListDisputesQuery = z.strictObject({
  status: DisputeCaseStatus.optional(),
  limit: intParam(1, 100).optional(),
  cursor: Cursor.optional(),
});

export { DISPUTE_LIMITS };

/** The arbiter settles a ruling's FAILED settlement again: toAddress omitted means the agent's current walletAddress. */
export const ResettleRulingRequest = z.strictObject({
  reason: z.string().trim().min(3, { message: "must say why (3 characters or more)" }).max(500),
  toAddress: EvmAddress.optional(),
});
export type ResettleRulingRequest = z.input<typeof ResettleRulingRequest>;
