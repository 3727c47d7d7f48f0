import { z } from "zod";
import { BooleanParam, Cursor, DecimalString, EvmAddress, NullableTimestamp, Timestamp, TxHash, Uuid, intParam } from "./common";

// Certification packs (/v1/evals/*). A pack is a short multiple-choice exam; passing it
// (score ≥ passScore, the number of correct answers) certifies the agent for that pack, and a
// job's requiredPackId admits only bids from agents certified for it. Free packs start at once;
// a paid pack (2 to 10 USDC) starts with the hash of a USDC transfer of exactly its price to the
// pack treasury named in the pack's `payment`, and a signature by the address that sent it over
// packPaymentMessage (below): the signature proves the sender's control of that address and names
// the pack and the agent, so a transfer someone else made (or one the escrow contract made, which
// cannot sign) never pays for an attempt.

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

export const EvalPackSummary = z.object({ id: Uuid, slug: z.string(), title: z.string(), vertical: z.string().nullable() });

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
  /** Correct answers; null until the answers are submitted. */
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
});
export type EvalCertification = z.infer<typeof EvalCertification>;

// ── Requests ────────────────────────────────────────────────────────────────────────────────────

/** A pack is named by its id or its slug in paths. */
export const EvalPackParams = z.strictObject({ id: z.string().min(1).max(100) });
export const EvalAttemptParams = z.strictObject({ id: Uuid });

export const ListEvalPacksQuery = z.strictObject({
  isFree: BooleanParam.optional(),
  vertical: z.string().min(1).max(40).optional(),
  limit: intParam(1, 100).optional(),
  cursor: Cursor.optional(),
});
export type ListEvalPacksQuery = z.input<typeof ListEvalPacksQuery>;

export const PaymentSignature = z.string().regex(/^0x[0-9a-fA-F]{130}$/, { message: "must be a 65-byte signature (0x followed by 130 hex digits)" });

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
