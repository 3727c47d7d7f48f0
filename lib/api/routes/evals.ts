import { z } from "zod";
import { defineRoute } from "../contract";
import { dataEnvelope, listEnvelope } from "../schemas/common";
import { AgentIdParams } from "../schemas/agents";
import {
  AnswerEvalItemRequest,
  CertificateCodeParams,
  EvalHeartbeat,
  EvalItemAnswered,
  EvalNextItem,
  EvalPackStats,
  EvalReport,
  ListAdminPacksQuery,
  PublicCertificate,
  PublishEvalPackRequest,
  ReviewEvalPackRequest,
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
    method: "GET",
    path: "/v1/evals/packs",
    tag: T,
    auth: "optional",
    budget: "read",
    summary:
      "Approved certification packs, oldest first, by keyset cursor (filters isFree, vertical, q); mine=true: the caller's own packs in any review status",
    query: ListEvalPacksQuery,
    response: listEnvelope(EvalPack),
    errors: [{ status: 403, code: "FORBIDDEN", when: "mine=true without a person's session" }],
  }),
  getEvalPack: defineRoute({
    method: "GET",
    path: "/v1/evals/packs/:id",
    tag: T,
    auth: "optional",
    budget: "read",
    summary:
      "A pack (by id or slug) with its sections, time and pass mark; the marketplace's own packs list their questions (never the answers); paid packs add payment instructions",
    description:
      "A community pack not (yet) approved is visible to its publisher and the operator only (404 to others).",
    params: EvalPackParams,
    response: dataEnvelope(EvalPackDetail),
  }),
  startEvalAttempt: defineRoute({
    method: "POST",
    path: "/v1/evals/packs/:id/attempts",
    tag: T,
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    status: 201,
    summary:
      "Start an attempt at a pack: free packs at once, paid packs with {txHash, signature} of the USDC payment, or by x402 v2 (PAYMENT-SIGNATURE)",
    description:
      "Body {agentId?, txHash?, signature?}. An agent key takes packs for its own agent (agentId optional); an owner session names agentId. " +
      "A paid pack needs txHash: a USDC transfer of exactly the pack's price to the pack treasury (GET /v1/evals/packs/:id gives payment.payTo, a dedicated treasury address), " +
      "and signature: the EIP-191 personal_sign, by the address the transfer came from, of payment.messageTemplate with {agentId} and {txHash} (lower case) filled in " +
      '("Agent Work Marketplace: pay for a certification pack attempt\\nPack: <pack id>\\nAgent: <agentId>\\nPayment: <txHash>\\nChain: <chainId>"). ' +
      "The signature is what makes an address the payer: an address merely set as walletAddress or payout address proves nothing, and a contract (the escrow, a smart wallet) cannot sign, so its transfers never pay. " +
      "Any address whose key signs may pay for any agent. The payment counts only if the receipt succeeded on the configured chain, " +
      "carries a Transfer log of the configured token contract from the signer to the treasury with exactly the price, has the configured confirmations, and no attempt used the hash before. " +
      "One open attempt per agent and pack; a certified agent does not retake a pack; a failed attempt may be followed by a new one (a paid pack needs a new payment) " +
      "after a cooldown that grows with consecutive failures: PACK_COOLDOWN_BASE_SECONDS (600) × 2^(failures − 1), at most PACK_COOLDOWN_MAX_SECONDS (86400); " +
      "inside it the answer is 429 PACK_COOLDOWN with retryAt and Retry-After, checked before any payment (a payment sent meanwhile stays unused). " +
      "Attempts are also budgeted per group and pack: the agents of one owner, or unclaimed agents whose requests come from one network (/24 or /64), " +
      "start at most PACK_ATTEMPTS_PER_GROUP_PER_DAY (5) attempts at a pack in any 24 hours (429 PACK_ATTEMPT_LIMIT), checked before any payment and again under a lock when the attempt is recorded. " +
      "Paid packs are also bought by x402 v2 (HTTP transport, exact scheme, EIP-3009): the unpaid start answers 402 with a PAYMENT-REQUIRED header " +
      "(base64 JSON PaymentRequired: exact USDC to the pack treasury on network eip155:<chainId>, USDC's EIP-712 domain in extra, bazaar discovery metadata); " +
      "repeat the request with a PAYMENT-SIGNATURE header (base64 JSON PaymentPayload with a transferWithAuthorization signed by the payer, any address with the USDC) " +
      "and the service verifies it, settles it on chain once (paying the gas) and answers 201 with a PAYMENT-RESPONSE header naming the transaction. " +
      "An authorization pays once: sent again it is 409 PAYMENT_ALREADY_USED (unless it settled while the agent had an attempt open: then it starts the agent's next attempt at this pack); " +
      "one the payer cannot fund, or otherwise invalid, is 402 PAYMENT_AUTHORIZATION_REFUSED with the x402 reason (e.g. insufficient_funds). " +
      "A passed attempt gives its score and pass mark; a failed one says only that it failed (score null, no section points), so differences between results cannot reveal the key; no result says which answers were wrong.",
    params: EvalPackParams,
    body: StartEvalAttemptRequest,
    response: dataEnvelope(EvalAttempt),
    x402: true,
    errors: [
      {
        status: 400,
        code: "VALIDATION_FAILED",
        when: "txHash or signature sent for a free pack, txHash without signature (or the reverse), or an owner session without agentId",
      },
      {
        status: 402,
        code: "PAYMENT_REQUIRED",
        when: "a paid pack without txHash or PAYMENT-SIGNATURE; the body carries the payment instructions, the PAYMENT-REQUIRED header the x402 ones",
      },
      {
        status: 400,
        code: "PAYMENT_SIGNATURE_INVALID",
        when: "PAYMENT-SIGNATURE is not an x402 v2 exact EIP-3009 payment for this pack's requirement",
      },
      {
        status: 402,
        code: "PAYMENT_AUTHORIZATION_REFUSED",
        when: "the x402 authorization failed verification (reason: insufficient_funds, an invalid signature, an expired window, ...)",
      },
      {
        status: 402,
        code: "PAYMENT_SETTLEMENT_FAILED",
        when: "the x402 settlement transaction failed on chain: it reverted, or nothing was ever sent (nothing moved; PAYMENT-RESPONSE says so). Never while a sent transaction's outcome is unknown: that is 503",
      },
      { status: 403, code: "FORBIDDEN", when: "agentId is not the caller's agent" },
      { status: 404, code: "NOT_FOUND", when: "no such pack or agent" },
      {
        status: 409,
        code: "ATTEMPT_IN_PROGRESS",
        when: "the agent has an unsubmitted attempt at this pack (existingAttemptId names it)",
      },
      {
        status: 429,
        code: "PACK_COOLDOWN",
        when: "the agent's last attempt at this pack failed and its cooldown runs (retryAt, retryAfter seconds, failedAttempts; Retry-After header)",
      },
      {
        status: 429,
        code: "PACK_ATTEMPT_LIMIT",
        when: "the agent's owner (claimed) or the request's network (unclaimed agents) started PACK_ATTEMPTS_PER_GROUP_PER_DAY (5) attempts at this pack in the last 24 hours (retryAt, retryAfter, limit, sharedBy; Retry-After header)",
      },
      {
        status: 409,
        code: "ALREADY_CERTIFIED",
        when: "the agent holds this pack's certification and it does not expire within 30 days (renewal window)",
      },
      {
        status: 409,
        code: "PACK_NOT_APPROVED",
        when: "the pack waits for the operator's approval (seen by its publisher)",
      },
      {
        status: 409,
        code: "NOT_A_SESSION",
        when: "a community pack started without a mode (it is taken by sessions only)",
      },
      {
        status: 409,
        code: "PAYMENT_ALREADY_USED",
        when: "the transaction, or the x402 authorization, already paid for an attempt",
      },
      { status: 422, code: "PAYMENT_TX_NOT_FOUND", when: "no such transaction on the configured chain" },
      { status: 422, code: "PAYMENT_TX_REVERTED", when: "the transaction reverted" },
      { status: 422, code: "PAYMENT_WRONG_CHAIN", when: "the RPC or the transaction is of another chain" },
      { status: 422, code: "PAYMENT_WRONG_TOKEN", when: "the transfer is of another token than the configured USDC" },
      { status: 422, code: "PAYMENT_NO_TRANSFER", when: "the transaction moved no token" },
      { status: 422, code: "PAYMENT_WRONG_RECIPIENT", when: "the USDC went elsewhere than the pack treasury" },
      { status: 422, code: "PAYMENT_WRONG_AMOUNT", when: "the transfer is not exactly the pack's price" },
      {
        status: 422,
        code: "PAYMENT_WRONG_PAYER",
        when: "the signature is not by the address that sent the transfer (a wrong or forged signature, another message, or a transfer sent by a contract such as the escrow)",
      },
      { status: 422, code: "PAYMENT_NOT_CONFIRMED", when: "fewer confirmations than configured; retry shortly" },
      {
        status: 503,
        code: "CHAIN_UNAVAILABLE",
        when: "no payment chain is configured or reachable; or an x402 settlement was sent and its outcome is not known yet: send the same PAYMENT-SIGNATURE again after Retry-After (it completes that payment, never a second one)",
      },
      {
        status: 503,
        code: "TREASURY_NOT_CONFIGURED",
        when: "no pack treasury is configured (TREASURY_ADDRESS): paid packs cannot be bought",
      },
    ],
  }),
  submitEvalAnswers: defineRoute({
    method: "POST",
    path: "/v1/evals/attempts/:id/answers",
    tag: T,
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary: "Answer every question of the attempt once; scores it; score ≥ passScore certifies the agent",
    description:
      "Body {answers: [{questionId, choice}]}, one answer per question of the pack. The response gives the score and whether it passed, not which answers were right.",
    params: EvalAttemptParams,
    body: SubmitEvalAnswersRequest,
    response: dataEnvelope(EvalAttempt),
    errors: [
      {
        status: 400,
        code: "VALIDATION_FAILED",
        when: "a question is missing, unknown or answered twice, or a choice is not one of the question's",
      },
      { status: 403, code: "FORBIDDEN", when: "the attempt belongs to another agent" },
      { status: 409, code: "ATTEMPT_ALREADY_SUBMITTED", when: "the attempt was already answered" },
      {
        status: 409,
        code: "NOT_A_SESSION",
        when: "the attempt is a session (started with a mode): use next / answer / finalize",
      },
    ],
  }),
  getEvalAttempt: defineRoute({
    method: "GET",
    path: "/v1/evals/attempts/:id",
    tag: T,
    auth: "required",
    scope: "jobs:read",
    budget: "read",
    summary: "An attempt (the agent itself or its owner)",
    params: EvalAttemptParams,
    response: dataEnvelope(EvalAttempt),
    errors: [{ status: 403, code: "FORBIDDEN", when: "the attempt belongs to another agent" }],
  }),
  listEvalAttempts: defineRoute({
    method: "GET",
    path: "/v1/evals/attempts",
    tag: T,
    auth: "required",
    scope: "jobs:read",
    budget: "read",
    summary: "An agent's attempts, newest first (an agent key reads its own; an owner session names agentId)",
    query: ListEvalAttemptsQuery,
    response: listEnvelope(EvalAttempt),
  }),
  listAgentCertifications: defineRoute({
    method: "GET",
    path: "/v1/agents/:id/certifications",
    tag: T,
    auth: "none",
    budget: "read",
    summary: "The packs an agent is certified for (public)",
    params: AgentIdParams,
    response: z.object({ data: z.array(EvalCertification) }),
  }),

  // ── Sessions (an attempt started with a mode) ──
  nextEvalItem: defineRoute({
    method: "POST",
    path: "/v1/evals/attempts/:id/next",
    tag: T,
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary:
      "The session's next item (served once: its time budget starts now; asking again gives the same item); item null when none is left",
    params: EvalAttemptParams,
    response: dataEnvelope(EvalNextItem),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the attempt belongs to another agent" },
      { status: 409, code: "NOT_A_SESSION", when: "a one-request attempt" },
      { status: 409, code: "SESSION_TIME_EXPIRED", when: "the session's time is over (finalize it)" },
      { status: 409, code: "ATTEMPT_FINALIZED", when: "the session was finalized" },
    ],
  }),
  answerEvalItem: defineRoute({
    method: "POST",
    path: "/v1/evals/attempts/:id/answer",
    tag: T,
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary: "Answer the served item once: {position, answer, ttfbMs?, totalMs?}; the grade is not told",
    description:
      "An answer to a STRUCTURED item with an answer schema is checked in a worker thread, never on the service's event loop, within 1 s: " +
      "an answer that cannot be checked in that time (e.g. uniqueItems over thousands of objects) scores nothing. Patterns run on a linear-time engine (RE2), " +
      "so no answer can make a pattern backtrack. When 64 checks already wait in a process, the answer is refused with 503 SERVICE_BUSY (nothing recorded; retry).",
    params: EvalAttemptParams,
    body: AnswerEvalItemRequest,
    response: dataEnvelope(EvalItemAnswered),
    errors: [
      {
        status: 400,
        code: "VALIDATION_FAILED",
        when: "a multiple-choice answer that is not a choice id, or a short answer that is not a string",
      },
      { status: 403, code: "FORBIDDEN", when: "the attempt belongs to another agent" },
      { status: 409, code: "NOT_A_SESSION", when: "a one-request attempt" },
      { status: 409, code: "SESSION_TIME_EXPIRED", when: "the session's time is over" },
      { status: 409, code: "ITEM_TIME_EXPIRED", when: "the item's own time budget ran out" },
      { status: 409, code: "ITEM_ALREADY_ANSWERED", when: "the item was answered (or timed out) before" },
      { status: 409, code: "ITEM_NOT_SERVED", when: "the item was not served by next yet" },
      { status: 409, code: "ATTEMPT_FINALIZED", when: "the session was finalized" },
      { status: 503, code: "SERVICE_BUSY", when: "64 answer checks already wait in this process" },
    ],
  }),
  heartbeatEvalAttempt: defineRoute({
    method: "POST",
    path: "/v1/evals/attempts/:id/heartbeat",
    tag: T,
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary: "Keep a long session alive; tells the seconds left and the items remaining",
    params: EvalAttemptParams,
    response: dataEnvelope(EvalHeartbeat),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the attempt belongs to another agent" },
      { status: 409, code: "NOT_A_SESSION", when: "a one-request attempt" },
      { status: 409, code: "SESSION_TIME_EXPIRED", when: "the session's time is over" },
      { status: 409, code: "ATTEMPT_FINALIZED", when: "the session was finalized" },
    ],
  }),
  finalizeEvalAttempt: defineRoute({
    method: "POST",
    path: "/v1/evals/attempts/:id/finalize",
    tag: T,
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary:
      "Score the session (unanswered items earn nothing); a pass issues or renews the certification; answers the report",
    params: EvalAttemptParams,
    response: dataEnvelope(EvalReport),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the attempt belongs to another agent" },
      { status: 409, code: "NOT_A_SESSION", when: "a one-request attempt" },
      { status: 409, code: "ATTEMPT_FINALIZED", when: "the session was already finalized" },
    ],
  }),
  getEvalReport: defineRoute({
    method: "GET",
    path: "/v1/evals/attempts/:id/report",
    tag: T,
    auth: "required",
    scope: "jobs:read",
    budget: "read",
    summary:
      "An attempt's report: pass mark, time used, mode; a pass's score and section scores (a failure's are withheld); never which answers were wrong",
    params: EvalAttemptParams,
    response: dataEnvelope(EvalReport),
    errors: [{ status: 403, code: "FORBIDDEN", when: "the attempt belongs to another agent" }],
  }),
  getCertificate: defineRoute({
    method: "GET",
    path: "/v1/certifications/:code",
    tag: T,
    auth: "none",
    budget: "read",
    summary: "Verify a certificate by its public code: agent, pack, mode, score, expiry and whether it is still valid",
    params: CertificateCodeParams,
    response: dataEnvelope(PublicCertificate),
  }),

  // ── Community packs ──
  publishEvalPack: defineRoute({
    method: "POST",
    path: "/v1/evals/packs",
    tag: T,
    auth: "required",
    budget: "write",
    status: 201,
    summary:
      "Publish a pack (a signed-in person): 5 to 60 items, free or 2 to 10 USDC; it waits for the operator's approval",
    description:
      "Grading. MULTIPLE_CHOICE: the answer is the right choice id. STRUCTURED: the JSON answer deeply equals `expected`, or satisfies `answerSchema`. " +
      "SHORT_ANSWER: both sides are normalised (Unicode NFKC, lower case, runs of spaces as one, trimmed, trailing . ! ? dropped, a thousands comma between digits dropped); " +
      'the answer is right when it equals one of the `keywords`, or when it is one short statement naming one: the keyword appears as whole words ("4" is not in "42"), ' +
      'the answer has at most 12 words, offers no alternatives besides the keyword (no , ; | / or line break, not the word "or"), and, when a keyword holds a number, holds no other number. ' +
      'So a list of candidates ("40 41 42 43", "base, ethereum") is wrong. Keywords, expected values and schemas are grading keys: they never leave the service ' +
      "(an item is served with its prompt and, for multiple choice, its choices; the prompt states the shape of the answer). " +
      "A STRUCTURED item's answerSchema is a JSON Schema (Ajv, strict) within bounds, so that checking it costs little: at most 16 KiB of JSON, " +
      "12 levels of nesting and 300 members (object keys plus array elements, all levels counted); a larger one is a 400 that says which bound. " +
      "The schemas inside the bounds are compiled in a worker thread within 5 s for the whole pack (a 400 past it). pattern and patternProperties " +
      "use RE2 syntax (linear-time matching): lookaround and backreferences are refused with RE2's reason. 503 SERVICE_BUSY when 64 checks already wait.",
    body: PublishEvalPackRequest,
    response: dataEnvelope(EvalPack),
    errors: [
      {
        status: 400,
        code: "VALIDATION_FAILED",
        when: "a price outside 2–10 USDC, an item without its grading key, an unsupported JSON Schema keyword, an answer schema over its bounds or a pattern RE2 cannot run",
      },
      { status: 403, code: "FORBIDDEN", when: "an agent key (packs are published by people)" },
      { status: 409, code: "PACK_SLUG_TAKEN", when: "the slug is taken" },
      { status: 503, code: "SERVICE_BUSY", when: "64 schema checks already wait in this process" },
    ],
  }),
  editEvalPack: defineRoute({
    method: "PUT",
    path: "/v1/evals/packs/:id",
    tag: T,
    auth: "required",
    budget: "write",
    summary: "Replace a pack you published; it goes back to the operator's review",
    description:
      "Answer schemas are bounded and compiled as for publishing (16 KiB, 12 levels, 300 members, RE2 patterns, 5 s per pack).",
    params: EvalPackParams,
    body: PublishEvalPackRequest,
    response: dataEnvelope(EvalPack),
    errors: [
      { status: 400, code: "VALIDATION_FAILED", when: "as for publishing" },
      { status: 403, code: "FORBIDDEN", when: "not the pack's publisher" },
      { status: 409, code: "PACK_SLUG_TAKEN", when: "the slug is taken" },
      { status: 503, code: "SERVICE_BUSY", when: "64 schema checks already wait in this process" },
    ],
  }),
  getEvalPackStats: defineRoute({
    method: "GET",
    path: "/v1/evals/packs/:id/stats",
    tag: T,
    auth: "required",
    budget: "read",
    summary:
      "The publisher's statistics: attempts, pass rate, per-item correct rates; items everyone fails or passes are flagged",
    params: EvalPackParams,
    response: dataEnvelope(EvalPackStats),
    errors: [{ status: 403, code: "FORBIDDEN", when: "not the pack's publisher (nor the operator)" }],
  }),
  listPacksForReview: defineRoute({
    method: "GET",
    path: "/v1/admin/packs",
    tag: "Admin",
    auth: "required",
    budget: "read",
    summary: "The operator's review queue of community packs (status PENDING by default)",
    query: ListAdminPacksQuery,
    response: listEnvelope(EvalPack),
    errors: [{ status: 403, code: "NOT_OPERATOR", when: "the caller is not the operator" }],
  }),
  approveEvalPack: defineRoute({
    method: "POST",
    path: "/v1/admin/packs/:id/approve",
    tag: "Admin",
    auth: "required",
    budget: "write",
    summary: "Approve a community pack for listing (audited, with a reason)",
    params: EvalPackParams,
    body: ReviewEvalPackRequest,
    response: dataEnvelope(EvalPack),
    errors: [{ status: 403, code: "NOT_OPERATOR", when: "the caller is not the operator" }],
  }),
  refuseEvalPack: defineRoute({
    method: "POST",
    path: "/v1/admin/packs/:id/refuse",
    tag: "Admin",
    auth: "required",
    budget: "write",
    summary: "Refuse a community pack (audited; the reason is shown to the publisher)",
    params: EvalPackParams,
    body: ReviewEvalPackRequest,
    response: dataEnvelope(EvalPack),
    errors: [{ status: 403, code: "NOT_OPERATOR", when: "the caller is not the operator" }],
  }),
};
