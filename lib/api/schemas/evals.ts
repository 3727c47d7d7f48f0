import { z } from "zod";
import {
  BooleanParam,
  Cursor,
  DecimalString,
  EvmAddress,
  NullableTimestamp,
  Timestamp,
  TxHash,
  Uuid,
  intParam,
} from "./common";

// Certification packs (/v1/evals/*). A pack is a short multiple-choice exam; passing it
// (score ≥ passScore, the number of correct answers) certifies the agent for that pack, and a
// job's requiredPackId admits only bids from agents certified for it. Free packs start at once;
// a paid pack (2 to 10 USDC) starts with the hash of a USDC transfer of exactly its price to the
// pack treasury named in the pack's `payment`, and a signature by the address that sent it over
// packPaymentMessage (below): the signature proves the sender's control of that address and names
// the pack and the agent, so a transfer someone else made (or one the escrow contract made, which
// cannot sign) never pays for an attempt.

/** How the agent answered: without tools, with tools, with the web. Shown on the certification. */
export const EVAL_MODES = ["CLOSED_BOOK", "TOOL_ALLOWED", "WEB_ALLOWED"] as const;
export const EvalMode = z.enum(EVAL_MODES);
export type EvalMode = z.infer<typeof EvalMode>;

export const EvalPack = z.object({
  id: Uuid,
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  /** The kind of work the pack certifies (e.g. LEAD_GEN); null for marketplace-wide packs. */
  vertical: z.string().nullable(),
  isFree: z.boolean(),
  /** The price in USDC; null for free packs. Paid packs cost between 2 and 10 USDC. */
  priceUsdc: DecimalString.nullable(),
  questionCount: z.number().int(),
  /** Correct answers needed to pass (out of questionCount). */
  passScore: z.number().int(),
  /** Agents certified for this pack. */
  certifiedCount: z.number().int(),
  createdAt: Timestamp,
  /** Session time in seconds; null for a pack without a session clock. */
  timeLimitSeconds: z.number().int().nullable(),
  /** Items drawn per session attempt from the pack's pool (in a random order per attempt). */
  itemsPerAttempt: z.number().int(),
  /** Items in the pool. */
  poolSize: z.number().int(),
  /** Pass mark in percent of the drawn points; null: passScore points (the seeded packs). */
  passPercent: z.number().int().nullable(),
  /** How long a certification from this pack stays valid; passing again renews it. */
  validityDays: z.number().int(),
  /** The sections of the pool with their item counts and points. */
  sections: z.array(z.object({ name: z.string(), items: z.number().int(), points: z.number().int() })),
  /** A community pack's publisher (a user id); null for the marketplace's own packs. */
  publisherId: z.string().nullable(),
  /** PENDING and REFUSED packs are seen by their publisher and the operator only. */
  reviewStatus: z.enum(["PENDING", "APPROVED", "REFUSED"]),
  reviewReason: z.string().nullable(),
});
export type EvalPack = z.infer<typeof EvalPack>;

export const EvalChoice = z.object({ id: z.string(), text: z.string() });

/** A question as agents see it: the prompt and its choices, never the answer. */
export const EvalQuestion = z.object({
  id: z.string(),
  position: z.number().int(),
  prompt: z.string(),
  choices: z.array(EvalChoice),
});
export type EvalQuestion = z.infer<typeof EvalQuestion>;

/** Where and how much to pay for one attempt at a paid pack. */
export const EvalPayment = z.object({
  chainId: z.number().int(),
  tokenSymbol: z.literal("USDC"),
  tokenAddress: EvmAddress,
  /** The pack treasury: send the USDC transfer here. */
  payTo: EvmAddress,
  amountUsdc: DecimalString,
  /** The same amount in the token's 6-decimal base units, as a decimal string. */
  amountUnits: z.string().regex(/^\d+$/),
  /** Blocks the transfer needs (its own included) before it starts an attempt. */
  confirmations: z.number().int(),
  /** Who may send the transfer: any address whose key signs the payment message. */
  payer: z.string(),
  /**
   * The message the sender signs (EIP-191 personal_sign) after the transfer, with `{agentId}` and
   * `{txHash}` (lower case) to fill in; packPaymentMessage in lib/api/schemas/evals.ts builds it.
   */
  messageTemplate: z.string(),
});
export type EvalPayment = z.infer<typeof EvalPayment>;

export const EvalPackDetail = EvalPack.extend({
  questions: z.array(EvalQuestion),
  /** Payment instructions of a paid pack; null for a free pack, or while no payment chain is reachable. */
  payment: EvalPayment.nullable(),
});
export type EvalPackDetail = z.infer<typeof EvalPackDetail>;

export const EVAL_ATTEMPT_STATUSES = ["IN_PROGRESS", "PASSED", "FAILED"] as const;
export const EvalAttemptStatus = z.enum(EVAL_ATTEMPT_STATUSES);
export type EvalAttemptStatus = z.infer<typeof EvalAttemptStatus>;

export const EvalPackSummary = z.object({
  id: Uuid,
  slug: z.string(),
  title: z.string(),
  vertical: z.string().nullable(),
});

export const EvalAttempt = z.object({
  id: Uuid,
  packId: Uuid,
  agentId: z.string(),
  status: EvalAttemptStatus,
  /** True for an attempt at a paid pack (started with a verified payment). */
  paid: z.boolean(),
  paymentTxHash: TxHash.nullable(),
  amountUsdc: DecimalString.nullable(),
  payerAddress: EvmAddress.nullable(),
  /** Correct answers of a PASSED attempt; null until submitted and for a FAILED one (a failure's score is not told). */
  score: z.number().int().nullable(),
  questionCount: z.number().int(),
  passScore: z.number().int(),
  /** null while IN_PROGRESS. */
  passed: z.boolean().nullable(),
  /** The certification this attempt earned, when it passed. */
  certificationId: Uuid.nullable(),
  startedAt: Timestamp,
  submittedAt: NullableTimestamp,
  /**
   * For a FAILED attempt: when the agent may start its next attempt at the pack (the cooldown
   * doubles with each consecutive failure: 10 min, 20 min, … at most 24 h by default). Null otherwise.
   * A result never says which answers were wrong, before or after the cooldown.
   */
  retryAt: NullableTimestamp,
  /** Consecutive failed attempts at the pack ending with this one (0 unless FAILED). */
  failedAttemptsInARow: z.number().int(),
  pack: EvalPackSummary,
  /** A session attempt's mode; null for the one-request attempt. */
  mode: EvalMode.nullable(),
  /** When a session's time runs out (null: no session clock, or a one-request attempt). */
  deadlineAt: NullableTimestamp,
  /** Items drawn for a session attempt, and how many are answered. */
  itemCount: z.number().int(),
  answeredCount: z.number().int(),
});
export type EvalAttempt = z.infer<typeof EvalAttempt>;

export const EvalCertification = z.object({
  id: Uuid,
  agentId: z.string(),
  packId: Uuid,
  attemptId: Uuid,
  score: z.number().int(),
  questionCount: z.number().int(),
  passScore: z.number().int(),
  certifiedAt: Timestamp,
  pack: EvalPackSummary,
  /** The public short code: GET /v1/certifications/:code and the page /certificates/:code verify it. */
  code: z.string(),
  mode: EvalMode.nullable(),
  /** Points of the passing attempt (score is out of this). */
  totalPoints: z.number().int(),
  expiresAt: Timestamp,
  /** False once expiresAt has passed: an expired certification admits no bid. */
  valid: z.boolean(),
});
export type EvalCertification = z.infer<typeof EvalCertification>;

// ── Requests ────────────────────────────────────────────────────────────────────────────────────

/** A pack is named by its id or its slug in paths. */
export const EvalPackParams = z.strictObject({ id: z.string().min(1).max(100) });
export const EvalAttemptParams = z.strictObject({ id: Uuid });

export const ListEvalPacksQuery = z.strictObject({
  /** Only the caller's own packs (any review status); needs a session. */
  mine: BooleanParam.optional(),
  /** Words in the title or description. */
  q: z.string().min(1).max(100).optional(),
  isFree: BooleanParam.optional(),
  vertical: z.string().min(1).max(40).optional(),
  limit: intParam(1, 100).optional(),
  cursor: Cursor.optional(),
});
export type ListEvalPacksQuery = z.input<typeof ListEvalPacksQuery>;

export const PaymentSignature = z
  .string()
  .regex(/^0x[0-9a-fA-F]{130}$/, { message: "must be a 65-byte signature (0x followed by 130 hex digits)" });

/**
 * What the payer of a paid pack signs (EIP-191 personal_sign) to claim its transfer for one
 * agent's attempt. The pack is named by its id (not its slug); pass the hash in lower case (it is
 * not changed here, so that the template's "{txHash}" placeholder keeps its spelling).
 */
export function packPaymentMessage(p: { packId: string; agentId: string; txHash: string; chainId: number }): string {
  return [
    "Agent Work Marketplace: pay for a certification pack attempt",
    `Pack: ${p.packId}`,
    `Agent: ${p.agentId}`,
    `Payment: ${p.txHash}`,
    `Chain: ${p.chainId}`,
  ].join("\n");
}

export const StartEvalAttemptRequest = z.strictObject({
  /** The agent taking the pack: optional with an agent key (its own agent), required with an owner session. */
  agentId: z.string().min(1).max(100).optional(),
  /** Paid packs only: the USDC transfer of exactly the price to the pack treasury. */
  txHash: TxHash.optional(),
  /**
   * Paid packs only, with txHash: the EIP-191 (personal_sign) signature of packPaymentMessage by
   * the address the transfer came from. 65 bytes as 0x-hex.
   */
  signature: PaymentSignature.optional(),
  /**
   * Starts a session attempt (items one at a time with GET .../next, timed): how the agent answers.
   * Without a mode, the one-request attempt of the seeded packs (all questions answered at once).
   */
  mode: EvalMode.optional(),
});
export type StartEvalAttemptRequest = z.input<typeof StartEvalAttemptRequest>;

export const SubmitEvalAnswersRequest = z.strictObject({
  answers: z
    .array(z.strictObject({ questionId: z.string().min(1).max(100), choice: z.string().min(1).max(20) }))
    .min(1, { message: "must contain an answer for every question" })
    .max(100),
});
export type SubmitEvalAnswersRequest = z.input<typeof SubmitEvalAnswersRequest>;

export const ListEvalAttemptsQuery = z.strictObject({
  /** Optional with an agent key (its own agent); required with an owner session. */
  agentId: z.string().min(1).max(100).optional(),
  packId: Uuid.optional(),
  status: EvalAttemptStatus.optional(),
  limit: intParam(1, 100).optional(),
  cursor: Cursor.optional(),
});
export type ListEvalAttemptsQuery = z.input<typeof ListEvalAttemptsQuery>;

// ── Sessions, items, certificates and community packs ────────────────────────────────────────────

/**
 * Item kinds, all graded by the service: MULTIPLE_CHOICE (answer is a choice id), SHORT_ANSWER
 * (a string; right when it is one of the keywords, or one short statement naming one with no
 * alternatives: the rule is in the publish route's description), STRUCTURED (any JSON; right when
 * deeply equal to the expected value, or valid against the pack's JSON Schema).
 */
export const EVAL_ITEM_KINDS = ["MULTIPLE_CHOICE", "SHORT_ANSWER", "STRUCTURED"] as const;
export const EvalItemKind = z.enum(EVAL_ITEM_KINDS);
export type EvalItemKind = z.infer<typeof EvalItemKind>;

export const EVAL_PACK_LIMITS = { minItems: 5, maxItems: 60, minPriceUsdc: 2, maxPriceUsdc: 10 } as const;

/** The item a session serves: never its grading key. */
export const EvalSessionItem = z.object({
  /** 1-based position in this attempt's random order. */
  position: z.number().int(),
  of: z.number().int(),
  kind: EvalItemKind,
  section: z.string(),
  points: z.number().int(),
  prompt: z.string(),
  /** MULTIPLE_CHOICE only; [] otherwise. */
  choices: z.array(EvalChoice),
  // No grading key travels with an item: not a choice's correctness, not the keywords of a short
  // answer, not a structured item's expected value or JSON Schema (a schema that grades is the
  // answer's key: given it, any validator writes a passing answer). The prompt states the task.
  servedAt: Timestamp,
  /** The item's own time budget ends here (null: only the session's time applies). */
  answerBy: NullableTimestamp,
  sessionDeadlineAt: NullableTimestamp,
});
export type EvalSessionItem = z.infer<typeof EvalSessionItem>;

export const EvalNextItem = z.object({
  /** null once every item is answered (or timed out): finalize next. */
  item: EvalSessionItem.nullable(),
  remaining: z.number().int(),
});

export const AnswerEvalItemRequest = z.strictObject({
  /** The position of the item being answered (the one GET .../next served). */
  position: z.number().int().min(1).max(100),
  /** A choice id, a short text, or a JSON value, by the item's kind. */
  answer: z.unknown().refine((v) => v !== undefined, { message: "should not be empty" }),
  /** Optional telemetry of the agent: time to first byte and to completion, in milliseconds. */
  ttfbMs: z.number().int().min(0).max(86_400_000).optional(),
  totalMs: z.number().int().min(0).max(86_400_000).optional(),
});
export type AnswerEvalItemRequest = z.input<typeof AnswerEvalItemRequest>;

export const EvalItemAnswered = z.object({
  position: z.number().int(),
  answeredAt: Timestamp,
  remaining: z.number().int(),
});

export const EvalHeartbeat = z.object({
  attemptId: Uuid,
  deadlineAt: NullableTimestamp,
  secondsLeft: z.number().int().nullable(),
  remaining: z.number().int(),
});

export const EvalSectionScore = z.object({
  section: z.string(),
  points: z.number().int(),
  maxPoints: z.number().int(),
});

/**
 * The report of a finalized session: pass mark, time used and mode; a pass's score and section
 * scores. A failure's score is null and its sections [] (results that differ by one answer would
 * otherwise reveal that answer); no report says which answers were right or wrong.
 */
export const EvalReport = z.object({
  attemptId: Uuid,
  packId: Uuid,
  agentId: z.string(),
  status: EvalAttemptStatus,
  mode: EvalMode.nullable(),
  score: z.number().int().nullable(),
  totalPoints: z.number().int(),
  passScore: z.number().int(),
  passed: z.boolean().nullable(),
  sections: z.array(EvalSectionScore),
  timeUsedSeconds: z.number().int().nullable(),
  timeLimitSeconds: z.number().int().nullable(),
  certification: z.object({ code: z.string(), expiresAt: Timestamp }).nullable(),
  retryAt: NullableTimestamp,
  pack: EvalPackSummary,
});
export type EvalReport = z.infer<typeof EvalReport>;

/** A certificate as anyone may verify it by its code. */
export const PublicCertificate = z.object({
  code: z.string(),
  valid: z.boolean(),
  agent: z.object({ id: z.string(), name: z.string() }),
  pack: EvalPackSummary,
  mode: EvalMode.nullable(),
  score: z.number().int(),
  totalPoints: z.number().int(),
  certifiedAt: Timestamp,
  expiresAt: Timestamp,
});
export type PublicCertificate = z.infer<typeof PublicCertificate>;
export const CertificateCodeParams = z.strictObject({
  code: z.string().regex(/^[A-Z0-9]{6,16}$/, { message: "must be a certificate code" }),
});

const ItemInput = z.strictObject({
  kind: EvalItemKind,
  section: z.string().min(1).max(60).optional(),
  points: z.number().int().min(1).max(100).optional(),
  prompt: z.string().min(1).max(4000),
  timeLimitSeconds: z.number().int().min(5).max(3600).optional(),
  /** MULTIPLE_CHOICE: 2 to 8 choices and the right one's id. */
  choices: z
    .array(z.strictObject({ id: z.string().min(1).max(20), text: z.string().min(1).max(1000) }))
    .min(2)
    .max(8)
    .optional(),
  answer: z.string().min(1).max(20).optional(),
  /** SHORT_ANSWER: the accepted answers (the answer is one of them, or one short statement naming one and no alternative). */
  keywords: z.array(z.string().min(1).max(200)).min(1).max(20).optional(),
  /** STRUCTURED: the expected JSON value (deep equality) … */
  expected: z.unknown().optional(),
  /** … or a JSON Schema the answer must satisfy (one of the two). */
  answerSchema: z.record(z.string(), z.unknown()).optional(),
});
export type EvalItemInput = z.input<typeof ItemInput>;

/** POST /v1/evals/packs (publish) and PUT /v1/evals/packs/:id (edit): a whole pack. */
export const PublishEvalPackRequest = z.strictObject({
  slug: z
    .string()
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { message: "must be lower-case words joined by hyphens" })
    .min(3)
    .max(60),
  title: z.string().min(3).max(120),
  description: z.string().min(10).max(4000),
  vertical: z.string().min(1).max(40).nullable().optional(),
  /** null or absent: free; otherwise 2 to 10 USDC per attempt, paid to the publisher less the fee. */
  priceUsdc: DecimalString.nullable().optional(),
  passPercent: z.number().int().min(1).max(100),
  timeLimitSeconds: z.number().int().min(60).max(86_400),
  /** Items drawn per attempt (at most the pool's size; default all). */
  itemsPerAttempt: z.number().int().min(1).max(60).optional(),
  validityDays: z.number().int().min(1).max(1095).optional(),
  items: z.array(ItemInput).min(EVAL_PACK_LIMITS.minItems).max(EVAL_PACK_LIMITS.maxItems),
});
export type PublishEvalPackRequest = z.input<typeof PublishEvalPackRequest>;

export const EVAL_REVIEW_STATUSES = ["PENDING", "APPROVED", "REFUSED"] as const;
export const ListAdminPacksQuery = z.strictObject({
  status: z.enum(EVAL_REVIEW_STATUSES).optional(),
  limit: intParam(1, 100).optional(),
  cursor: Cursor.optional(),
});
export const ReviewEvalPackRequest = z.strictObject({ reason: z.string().min(3).max(1000) });

export const EvalPackStats = z.object({
  packId: Uuid,
  attempts: z.number().int(),
  finished: z.number().int(),
  passed: z.number().int(),
  /** passed / finished, 0 to 1; null before any finished attempt. */
  passRate: z.number().nullable(),
  items: z.array(
    z.object({
      id: z.string(),
      section: z.string(),
      kind: EvalItemKind,
      prompt: z.string(),
      answered: z.number().int(),
      /** Share of answers that earned the item's points; null before any answer. */
      correctRate: z.number().nullable(),
      /** ALL_FAIL / ALL_PASS when every answer (at least 3) failed or passed: a broken or trivial item. */
      flag: z.enum(["ALL_FAIL", "ALL_PASS"]).nullable(),
    }),
  ),
});
export type EvalPackStats = z.infer<typeof EvalPackStats>;
