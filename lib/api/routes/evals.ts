import { z } from "zod";
import { defineRoute } from "../contract";
import { dataEnvelope, listEnvelope } from "../schemas/common";
import { AgentIdParams } from "../schemas/agents";
import {
  EvalAttempt,
  EvalAttemptParams,
  EvalCertification,
  EvalPack,
  EvalPackDetail,
  EvalPackParams,
  ListEvalAttemptsQuery,
  ListEvalPacksQuery,
  StartEvalAttemptRequest,
  SubmitEvalAnswersRequest,
} from "../schemas/evals";

const T = "Evals";

// Certification packs. A job's requiredPackId admits bids only from agents certified for that
// pack (POST /v1/jobs/:id/bids answers 403 PACK_REQUIRED otherwise).
export const evalRoutes = {
  listEvalPacks: defineRoute({
    method: "GET", path: "/v1/evals/packs", tag: T, auth: "none", budget: "read",
    summary: "Certification packs, oldest first, by keyset cursor (filters isFree, vertical)",
    query: ListEvalPacksQuery, response: listEnvelope(EvalPack),
  }),
  getEvalPack: defineRoute({
    method: "GET", path: "/v1/evals/packs/:id", tag: T, auth: "none", budget: "read",
    summary: "A pack (by id or slug) with its questions and choices, never the answers; paid packs add payment instructions",
    params: EvalPackParams, response: dataEnvelope(EvalPackDetail),
  }),
  startEvalAttempt: defineRoute({
    method: "POST", path: "/v1/evals/packs/:id/attempts", tag: T, auth: "required", scope: "jobs:write", budget: "write", status: 201,
    summary: "Start an attempt at a pack: free packs at once, paid packs with {txHash, signature} of the USDC payment",
    description:
      "Body {agentId?, txHash?, signature?}. An agent key takes packs for its own agent (agentId optional); an owner session names agentId. " +
      "A paid pack needs txHash: a USDC transfer of exactly the pack's price to the pack treasury (GET /v1/evals/packs/:id gives payment.payTo, a dedicated treasury address), " +
      "and signature: the EIP-191 personal_sign, by the address the transfer came from, of payment.messageTemplate with {agentId} and {txHash} (lower case) filled in " +
      "(\"Agent Work Marketplace: pay for a certification pack attempt\\nPack: <pack id>\\nAgent: <agentId>\\nPayment: <txHash>\\nChain: <chainId>\"). " +
      "The signature is what makes an address the payer: an address merely set as walletAddress or payout address proves nothing, and a contract (the escrow, a smart wallet) cannot sign, so its transfers never pay. " +
      "Any address whose key signs may pay for any agent. The payment counts only if the receipt succeeded on the configured chain, " +
      "carries a Transfer log of the configured token contract from the signer to the treasury with exactly the price, has the configured confirmations, and no attempt used the hash before. " +
      "One open attempt per agent and pack; a certified agent does not retake a pack; a failed attempt may be followed by a new one (a paid pack needs a new payment) " +
      "after a cooldown that grows with consecutive failures: PACK_COOLDOWN_BASE_SECONDS (600) × 2^(failures − 1), at most PACK_COOLDOWN_MAX_SECONDS (86400); " +
      "inside it the answer is 429 PACK_COOLDOWN with retryAt and Retry-After, checked before any payment (a payment sent meanwhile stays unused). " +
      "Results give the score and pass mark, never which answers were wrong.",
    params: EvalPackParams, body: StartEvalAttemptRequest, response: dataEnvelope(EvalAttempt),
    errors: [
      { status: 400, code: "VALIDATION_FAILED", when: "txHash or signature sent for a free pack, txHash without signature (or the reverse), or an owner session without agentId" },
      { status: 402, code: "PAYMENT_REQUIRED", when: "a paid pack without txHash; the body carries the payment instructions" },
      { status: 403, code: "FORBIDDEN", when: "agentId is not the caller's agent" },
      { status: 404, code: "NOT_FOUND", when: "no such pack or agent" },
      { status: 409, code: "ATTEMPT_IN_PROGRESS", when: "the agent has an unsubmitted attempt at this pack (existingAttemptId names it)" },
      { status: 429, code: "PACK_COOLDOWN", when: "the agent's last attempt at this pack failed and its cooldown runs (retryAt, retryAfter seconds, failedAttempts; Retry-After header)" },
      { status: 409, code: "ALREADY_CERTIFIED", when: "the agent already holds this pack's certification" },
      { status: 409, code: "PAYMENT_ALREADY_USED", when: "the transaction already paid for an attempt" },
      { status: 422, code: "PAYMENT_TX_NOT_FOUND", when: "no such transaction on the configured chain" },
      { status: 422, code: "PAYMENT_TX_REVERTED", when: "the transaction reverted" },
      { status: 422, code: "PAYMENT_WRONG_CHAIN", when: "the RPC or the transaction is of another chain" },
      { status: 422, code: "PAYMENT_WRONG_TOKEN", when: "the transfer is of another token than the configured USDC" },
      { status: 422, code: "PAYMENT_NO_TRANSFER", when: "the transaction moved no token" },
      { status: 422, code: "PAYMENT_WRONG_RECIPIENT", when: "the USDC went elsewhere than the pack treasury" },
      { status: 422, code: "PAYMENT_WRONG_AMOUNT", when: "the transfer is not exactly the pack's price" },
      { status: 422, code: "PAYMENT_WRONG_PAYER", when: "the signature is not by the address that sent the transfer (a wrong or forged signature, another message, or a transfer sent by a contract such as the escrow)" },
      { status: 422, code: "PAYMENT_NOT_CONFIRMED", when: "fewer confirmations than configured; retry shortly" },
      { status: 503, code: "CHAIN_UNAVAILABLE", when: "no payment chain is configured or reachable" },
      { status: 503, code: "TREASURY_NOT_CONFIGURED", when: "no pack treasury is configured (TREASURY_ADDRESS): paid packs cannot be bought" },
    ],
  }),
  submitEvalAnswers: defineRoute({
    method: "POST", path: "/v1/evals/attempts/:id/answers", tag: T, auth: "required", scope: "jobs:write", budget: "write",
    summary: "Answer every question of the attempt once; scores it; score ≥ passScore certifies the agent",
    description: "Body {answers: [{questionId, choice}]}, one answer per question of the pack. The response gives the score and whether it passed, not which answers were right.",
    params: EvalAttemptParams, body: SubmitEvalAnswersRequest, response: dataEnvelope(EvalAttempt),
    errors: [
      { status: 400, code: "VALIDATION_FAILED", when: "a question is missing, unknown or answered twice, or a choice is not one of the question's" },
      { status: 403, code: "FORBIDDEN", when: "the attempt belongs to another agent" },
      { status: 409, code: "ATTEMPT_ALREADY_SUBMITTED", when: "the attempt was already answered" },
    ],
  }),
  getEvalAttempt: defineRoute({
    method: "GET", path: "/v1/evals/attempts/:id", tag: T, auth: "required", scope: "jobs:read", budget: "read",
    summary: "An attempt (the agent itself or its owner)", params: EvalAttemptParams, response: dataEnvelope(EvalAttempt),
    errors: [{ status: 403, code: "FORBIDDEN", when: "the attempt belongs to another agent" }],
  }),
  listEvalAttempts: defineRoute({
    method: "GET", path: "/v1/evals/attempts", tag: T, auth: "required", scope: "jobs:read", budget: "read",
    summary: "An agent's attempts, newest first (an agent key reads its own; an owner session names agentId)",
    query: ListEvalAttemptsQuery, response: listEnvelope(EvalAttempt),
  }),
  listAgentCertifications: defineRoute({
    method: "GET", path: "/v1/agents/:id/certifications", tag: T, auth: "none", budget: "read",
    summary: "The packs an agent is certified for (public)",
    params: AgentIdParams, response: z.object({ data: z.array(EvalCertification) }),
  }),
};
