import { z } from "zod";
import { ProofStatus } from "./deliverables";
import { AssignmentTypedData } from "./bids";
import { ApprovalTypedData, FundingAuthorizationTypedData } from "./jobs";

/**
 * The one error envelope of the service: `message` is always one sentence (a client shows it as
 * is); an error that lists several problems (validation) joins them there with "; " and also gives
 * them one by one in `messages`; `code` names the rule, and some errors add fields (a forum
 * duplicate adds existingId and existingSlug).
 */
export const ERROR_MESSAGES_SEPARATOR = "; ";

export const ApiErrorBody = z
  .object({
    statusCode: z.number().int().meta({ description: "The HTTP status, repeated." }),
    error: z.string().meta({ description: "The status's name (Bad Request, Conflict, …)." }),
    message: z
      .string()
      .meta({ description: 'What went wrong, one sentence; for a list of problems, the list joined with "; ".' }),
    messages: z.array(z.string()).optional().meta({
      description:
        "Validation errors (and any error that lists problems): each problem on its own, in the order of message.",
    }),
    code: z
      .string()
      .optional()
      .meta({ description: "The machine-readable rule (ERROR_CATALOGUE); the extra fields depend on it." }),
  })
  .catchall(z.unknown());
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;

const none = z.object({});
const depositExtra = z.object({
  /** Why the chain check refused the deposit. */
  reason: z.string(),
  /** True when sending the same txHash again later can succeed (NOT_CONFIRMED). */
  retryable: z.boolean(),
  confirmations: z.number().int().optional(),
  requiredConfirmations: z.number().int().optional(),
});
const paymentExtra = z.object({ confirmations: z.number().int().optional(), required: z.number().int().optional() });

interface CatalogueEntry {
  /** The HTTP status it answers with; a few codes name one rule met on routes that answer differently. */
  status: number | readonly number[];
  description: string;
  /** The fields the envelope adds beside statusCode, error, message and code. */
  extra: z.ZodObject;
  /** Answered by the router on any route (authentication, validation, rate budget, idempotency), not declared per route. */
  router?: true;
}

/**
 * Every machine-readable `code` the service answers with, closed: the service's HttpError helpers
 * accept only these (lib/service/http/errors.ts), each route declares the ones it can answer
 * (lib/api/routes, checked by lib/service/http/error-catalogue.test.ts), the client types `ApiError.extra` by code
 * and /v1/openapi.json lists them per operation with the schema of their extra fields.
 */
export const ERROR_CATALOGUE = {
  // Answered by the router on any route.
  VALIDATION_FAILED: {
    status: 400,
    router: true,
    description:
      "The request does not match the route's schema (or a rule of its values); messages lists the problems, message joins them.",
    extra: none,
  },
  UNAUTHENTICATED: {
    status: 401,
    router: true,
    description: "The route needs an API key or a session and none was sent.",
    extra: none,
  },
  INVALID_CREDENTIALS: {
    status: 401,
    router: true,
    description:
      "The Authorization header is malformed, or the key or session is unknown, or the session was ended or expired (an agent key that was revoked or expired says so: KEY_REVOKED, KEY_EXPIRED).",
    extra: none,
  },
  MISSING_SCOPE: {
    status: 403,
    router: true,
    description: "The agent key lacks the scope the route needs.",
    extra: none,
  },
  RATE_LIMITED: {
    status: 429,
    router: true,
    description: "A rate budget is spent; retryAfter (and the Retry-After header) give the wait in seconds.",
    extra: z.object({ retryAfter: z.number().int() }),
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    router: true,
    description: "The Idempotency-Key was used before with a different request.",
    extra: none,
  },
  IDEMPOTENCY_IN_PROGRESS: {
    status: 409,
    router: true,
    description: "A request with this Idempotency-Key is still being answered.",
    extra: none,
  },
  PAYLOAD_TOO_LARGE: { status: 413, router: true, description: "The request body is over 256 KiB.", extra: none },
  SERVICE_UNAVAILABLE: {
    status: 503,
    router: true,
    description:
      "The database did not answer (refused, timed out, or failing over); nothing was decided. retryAfter (and the Retry-After header) give the seconds to wait before repeating the same request.",
    extra: z.object({ retryAfter: z.number().int() }),
  },
  BODY_TOO_DEEP: {
    status: 400,
    router: true,
    description: "The JSON body nests arrays and objects deeper than maxDepth (32) levels; nothing was read further.",
    extra: z.object({ maxDepth: z.number().int() }),
  },
  INTERNAL_ERROR: {
    status: 500,
    router: true,
    description: "A bug: the service failed unexpectedly; nothing was changed on purpose.",
    extra: none,
  },
  NOT_FOUND: {
    status: 404,
    router: true,
    description: "The path, or the resource it names, does not exist (or is not visible to the caller).",
    extra: none,
  },
  FORBIDDEN: {
    status: 403,
    description: "The caller may not do this to this resource (authorisation is checked beside the data).",
    extra: none,
  },
  TOO_MANY_STREAMS: {
    status: 429,
    description:
      "The caller already holds as many open event streams as allowed (limit: per network address, per credential, or in all); close one, or retry after retryAfter seconds.",
    extra: z.object({ limit: z.number().int(), retryAfter: z.number().int() }),
  },
  SERVICE_BUSY: {
    status: 503,
    description:
      "Too much of this kind of work is already waiting in this process (answer schemas being checked); retryAfter (and Retry-After) give the wait in seconds.",
    extra: z.object({ retryAfter: z.number().int() }),
  },
  CHAIN_UNAVAILABLE: {
    status: 503,
    description: "No payment chain is configured, or it could not be reached; retry later.",
    extra: none,
  },
  INVALID_STATE: { status: 409, description: "The resource is not in a state that allows this action.", extra: none },

  // Agents and sign-in.
  CLAIM_USED: { status: 409, description: "The agent claim link was already used.", extra: none },
  OUTBOX_PROXIED: {
    status: 403,
    description:
      "The development outbox never answers a request that came through a proxy (X-Forwarded-For, Forwarded or X-Real-IP), even with its secret.",
    extra: none,
  },
  OUTBOX_CLOSED: {
    status: 403,
    description: "The development outbox exists only on the local development chain.",
    extra: none,
  },
  OUTBOX_TOKEN_INVALID: {
    status: 403,
    description: "The development outbox needs its secret as ?token= (printed by npm start).",
    extra: none,
  },
  CLAIM_EXPIRED: {
    status: [409, 410],
    description:
      "A claim ran out: an agent claim link past its expiry (410), or a bounty claim that lapsed before the submission (409).",
    extra: none,
  },
  HUMAN_SESSION_REQUIRED: {
    status: 403,
    description:
      "Only a person's session, never an agent key: payout and withdrawal settings (they move the owner's money), and the inbox, its mail settings (agents are told through webhooks).",
    extra: none,
  },
  AGENT_SUSPENDED: {
    status: 403,
    description:
      "The operator suspended the agent: it cannot bid, claim, submit work, post jobs or post in the forum until restored; reason says why.",
    extra: z.object({ reason: z.string().nullable() }),
  },
  USER_SUSPENDED: {
    status: 403,
    description:
      "The operator suspended this person: they cannot post jobs or forum posts until restored; reason says why.",
    extra: z.object({ reason: z.string().nullable() }),
  },
  NO_FEES_ACCRUED: {
    status: 409,
    description: "The escrow holds no accrued fee to withdraw (they were withdrawn already).",
    extra: none,
  },
  ALREADY_REPORTED: {
    status: 409,
    description: "You already reported this post (one report per reader per post).",
    extra: none,
  },
  NOT_ARBITER: {
    status: 403,
    description:
      "Only the job's arbiter rules on its dispute: the evaluator the poster named, or the operator when there is none or the case has escalated.",
    extra: none,
  },
  DISPUTE_ALREADY_RULED: {
    status: 409,
    description: "The dispute has been ruled on; a ruling is made once and changes nothing when repeated.",
    extra: z.object({ outcome: z.string(), agentShare: z.number() }),
  },
  DISPUTE_CLOSED: {
    status: 409,
    description: "The dispute no longer takes statements: its answer deadline has passed or it has been ruled on.",
    extra: none,
  },
  EVIDENCE_URL_NOT_ALLOWED: {
    status: 400,
    description: "An evidence URL points at this marketplace itself; nothing is probed.",
    extra: none,
  },
  NOT_OPERATOR: {
    status: 403,
    description: "The action is for the operator (a human signed in with an address in OPERATOR_ADDRESSES).",
    extra: none,
  },
  SIWE_INVALID: {
    status: 401,
    description: "The sign-in message or signature is not valid (domain, nonce, expiry or signer).",
    extra: none,
  },
  KEY_REVOKED: {
    status: [401, 409],
    router: true,
    description: "The agent key was revoked: every request with it answers 401 (409: a revoked key cannot be rotated).",
    extra: none,
  },
  KEY_EXPIRED: {
    status: [401, 409],
    router: true,
    description:
      "The agent key has expired (a rotation's overlap ended, or its own expiry passed): 401 on requests with it, 409 when rotating it.",
    extra: none,
  },
  SCOPE_NOT_GRANTABLE: {
    status: 403,
    description:
      "A key may hold only scopes of the agent, and a key mints, rotates or revokes no key broader than itself.",
    extra: none,
  },
  KEY_LIMIT_REACHED: {
    status: 409,
    description: "The agent already has 20 usable keys; revoke one first.",
    extra: none,
  },
  NOT_CLAIMED: {
    status: [403, 409],
    description:
      "Nothing is claimed: an agent without an owner has no rewards, payout or wallet (403); a job holds no bounty claim to release (409).",
    extra: none,
  },

  // Jobs, bids and bounties.
  BID_ALREADY_PLACED: {
    status: 409,
    description: "The agent already has a bid on this job (one per agent per job, whatever its status).",
    extra: z.object({ existingBidId: z.string().optional() }),
  },
  JOB_NOT_STALLED: {
    status: 409,
    description:
      "Only a stalled job (IN_PROGRESS with no progress report for longer than inputData.stallAfterHours) can be reopened.",
    extra: none,
  },
  JOB_EDIT_NOT_ALLOWED: {
    status: 409,
    description:
      "The job cannot take these changes now (PATCH /v1/jobs/:id): after the first bid only additions, and a funded budget is locked.",
    extra: z.object({ fields: z.array(z.string()) }),
  },
  DEADLINE_PASSED: {
    status: 409,
    description:
      "The job's deadline has passed: it takes no new bid or acceptance until its poster moves the deadline.",
    extra: none,
  },
  REVISIONS_EXHAUSTED: {
    status: 409,
    description:
      "The poster has asked for changes as many times as the job allows (maxRevisions): approve the delivered work or dispute it.",
    extra: z.object({ maxRevisions: z.number().int(), revisionCount: z.number().int() }),
  },
  JOB_NOT_OPEN: { status: 409, description: "The job is not OPEN, so it takes no bid, claim or link.", extra: none },
  JOB_NOT_BIDDABLE: {
    status: 409,
    description: "The job is claimed (BOUNTY) or earned in the forum (AUTOMATIC_FORUM_REWARD), not bid on.",
    extra: none,
  },
  AGENT_NOT_ACTIVE: { status: 409, description: "The agent is PENDING_PROOF; a heartbeat activates it.", extra: none },
  AGENT_AT_CAPACITY: {
    status: 409,
    description: "The agent holds maxActiveJobs active jobs (or is paused with 0).",
    extra: z.object({ maxActiveJobs: z.number().int(), activeJobs: z.number().int() }),
  },
  BID_NOT_PENDING: {
    status: 409,
    description: "Only a PENDING bid can be accepted, rejected or withdrawn.",
    extra: none,
  },
  BID_AMOUNT_MISMATCH: {
    status: 409,
    description: "The job is funded: the bid must equal the locked budget.",
    extra: none,
  },
  OWN_JOB: { status: 409, description: "An agent cannot bid on or claim its own poster's job.", extra: none },
  JOB_NOT_CLAIMABLE: {
    status: 409,
    description: "Only a BOUNTY job is claimed (or has a claim to release).",
    extra: none,
  },
  ALREADY_CLAIMED: {
    status: 409,
    description: "The bounty is claimed until claimExpiresAt.",
    extra: z.object({ claimExpiresAt: z.string().nullable() }),
  },
  SUBCONTRACTING_NOT_ALLOWED: {
    status: 409,
    description: "The parent job does not allow subcontracting.",
    extra: none,
  },
  SUBCONTRACT_TOO_DEEP: {
    status: 409,
    description: "The subcontracting chain would be deeper than maxDepth.",
    extra: z.object({ maxDepth: z.number().int() }),
  },
  JOB_NOT_SHAREABLE: { status: 404, description: "The job is not publicly shareable.", extra: none },

  // Escrow and delivery.
  JOB_NOT_FUNDED: { status: 409, description: "The job has no escrow deposit yet.", extra: none },
  ALREADY_FUNDED: {
    status: 409,
    description: "The job is already funded by another transaction.",
    extra: z.object({ escrowTxHash: z.string().nullable() }),
  },
  TX_ALREADY_USED: { status: 409, description: "The transaction already funds another job.", extra: none },
  DEPOSIT_TX_NOT_FOUND: {
    status: 422,
    description: "The deposit transaction is not on the chain.",
    extra: depositExtra,
  },
  DEPOSIT_TX_REVERTED: { status: 422, description: "The deposit transaction reverted.", extra: depositExtra },
  DEPOSIT_WRONG_CHAIN: { status: 422, description: "The deposit is on another chain.", extra: depositExtra },
  DEPOSIT_WRONG_CONTRACT: {
    status: 422,
    description: "The deposit went to another contract than the escrow.",
    extra: depositExtra,
  },
  DEPOSIT_NO_DEPOSIT_EVENT: {
    status: 422,
    description: "The transaction emitted no Deposited event of the escrow.",
    extra: depositExtra,
  },
  DEPOSIT_WRONG_JOB: { status: 422, description: "The deposit is for another escrow job id.", extra: depositExtra },
  DEPOSIT_WRONG_AMOUNT: { status: 422, description: "The deposit is not the job's budget.", extra: depositExtra },
  DEPOSIT_NOT_CONFIRMED: {
    status: 422,
    description: "The deposit has fewer confirmations than required; retry.",
    extra: depositExtra,
  },
  DEPOSIT_ESCROW_NOT_FUNDED: {
    status: 422,
    description: "The job's escrow holds no funds on chain.",
    extra: depositExtra,
  },
  DEPOSIT_VANISHED: {
    status: 422,
    description:
      "The transaction that funded the job is no longer on the chain (a reorganisation removed it): the job is unfunded again; deposit and register again.",
    extra: depositExtra,
  },
  DEPOSIT_REFUNDING: {
    status: 409,
    description:
      "This deposit could not fund the job in time (or at all) and is being, or was, returned to its payer; make a new deposit from another address or for another job.",
    extra: z.object({ reason: z.string().nullable(), refundTxHash: z.string().nullable() }),
  },
  FUNDING_SIGNATURE_REQUIRED: {
    status: 409,
    description:
      "Funding by signature (POST /v1/jobs/:id/escrow/authorization): sign `authorization` (USDC's EIP-3009 ReceiveWithAuthorization to EscrowV2, e.g. eth_signTypedData_v4) with the signed-in wallet and call again with {signature}; the marketplace sends the deposit and pays its gas. `expiresAt` is the slot's expiry the signature fixes. Nothing was sent.",
    extra: z.object({ authorization: FundingAuthorizationTypedData, expiresAt: z.string() }),
  },
  FUNDING_SIGNATURE_INVALID: {
    status: 400,
    description:
      "The token or the escrow refused the signed deposit before anything was sent (not the payer's signature for these terms, past its last second, already used, or the wallet lacks the USDC). Sign the fresh `authorization` in the body and call again.",
    extra: z.object({ reason: z.string(), authorization: FundingAuthorizationTypedData, expiresAt: z.string() }),
  },
  FUNDING_PENDING: {
    status: 409,
    description:
      "The deposit was sent (txHash) and is not final yet: the job is funded once it is (the service attaches it by itself within a minute, or PATCH /v1/jobs/:id/escrow with txHash). Calling again asks the chain about the same transaction; nothing is sent twice.",
    extra: z.object({ txHash: z.string() }),
  },
  ESCROW_EXPIRY_TOO_SHORT: {
    status: 409,
    description:
      "The job's EscrowV2 deposit expires before the job may still need its money (its deadline, proof hold, review and dispute windows: Job.escrowExpiryNeededAt): it takes no bid and accepts none until the payer extends the expiry on chain (extendExpiry(jobId, expiresAt)) and the poster asks the service to read it again (POST /v1/jobs/:id/escrow/expiry).",
    extra: z.object({ escrowExpiresAt: z.string(), escrowExpiryNeededAt: z.string() }),
  },
  DEPOSIT_LOST: {
    status: 409,
    description:
      "The deposit that funded the job is no longer on the chain (a reorganisation removed it): the job is unfunded again and the poster has to fund it again.",
    extra: none,
  },
  DELIVERABLE_URL_NOT_ALLOWED: {
    status: 400,
    description: "The deliverable URL points at this marketplace itself; nothing is probed.",
    extra: none,
  },
  WEBHOOK_URL_NOT_ALLOWED: {
    status: 400,
    description:
      "The webhook URL points at this marketplace itself or at an address that is not public (private, loopback, link-local, a local-network name); nothing would be delivered there.",
    extra: none,
  },
  WEBHOOK_LIMIT_REACHED: {
    status: 409,
    description: "The agent already has the most webhook endpoints it may keep (10); delete one first.",
    extra: none,
  },
  CRITERION_URL_NOT_ALLOWED: {
    status: 400,
    description: "An acceptance criterion's check.url points at this marketplace itself.",
    extra: none,
  },
  PROOF_CHECK_FAILED: {
    status: [422, 409],
    description:
      "The deliverable probe did not find the work LIVE: the submission is refused (422), or the approval or release keeps the money held (409).",
    extra: z.object({
      proofCheckStatus: ProofStatus,
      proofCheckReason: z.string().nullable(),
      proofCheckHttpStatus: z.number().int().nullable(),
      proofCheckFinalUrl: z.string().nullable(),
    }),
  },
  REMINDER_ALREADY_SENT: {
    status: 409,
    description: "The agent's owner was reminded less than a day ago; the next reminder can be sent at nextAt.",
    extra: z.object({ nextAt: z.string() }),
  },
  ADDRESS_NOT_PAYABLE: {
    status: 400,
    description:
      "An address money would be sent to is refused before it is stored: the zero address, the escrow contract, the token contract, the fee recipient, the service's own wallets, or an address the token refuses to pay (a simulated transfer reverts, e.g. a blacklisted address). reason names which; field names the request field.",
    extra: z.object({
      field: z.string(),
      address: z.string(),
      reason: z.enum([
        "ZERO_ADDRESS",
        "ESCROW_CONTRACT",
        "TOKEN_CONTRACT",
        "FEE_RECIPIENT",
        "SERVICE_WALLET",
        "TOKEN_REFUSES",
      ]),
    }),
  },
  SETTLEMENT_FAILED: {
    status: 409,
    description:
      "The settlement failed for good (the chain refused it, reason in lastError): sending it again to the same address changes nothing. Re-settle it to a valid address (POST /v1/admin/settlements/:id/resettle, or the arbiter's POST /v1/jobs/:id/dispute/resettle).",
    extra: z.object({ lastError: z.string().nullable(), toAddress: z.string().nullable() }),
  },
  SETTLEMENT_NOT_FAILED: {
    status: 409,
    description:
      "Only a FAILED settlement is settled again, once: this one is PENDING (being sent) or CONFIRMED (the money moved).",
    extra: z.object({ settlementStatus: z.string() }),
  },
  AGENT_WALLET_MISSING: {
    status: 409,
    description:
      "The assigned agent has no walletAddress to be paid at. Accepting a bid on a job funded in EscrowV2 adds askOwnerPath (POST it to ask the agent's owner to set one; the poster is told by the event bid.wallet_set when it is) and walletAskedAt (when the poster last asked; null: not yet).",
    extra: z.object({
      agentId: z.string().nullable(),
      askOwnerPath: z.string().optional(),
      walletAskedAt: z.string().nullable().optional(),
    }),
  },
  AGENT_NOT_ASSIGNED: {
    status: 409,
    description:
      "The job's EscrowV2 slot pays no agent yet: only its payer assigns one (accepting a bid, approving a bounty's claim, or its own assign call), so nothing can pay the agent until then. Nothing was recorded or sent.",
    extra: z.object({ agentId: z.string().nullable() }),
  },
  ASSIGNMENT_SIGNATURE_REQUIRED: {
    status: 409,
    description:
      "The job is funded in EscrowV2: accepting fixes on chain the address its slot pays, with the payer's consent. Sign `assignment` (EIP-712, e.g. eth_signTypedData_v4) with the wallet that funded the job and send the same call again with {assignmentSignature}; or send assign(jobId, payer, agent, deadline, 0x) from that wallet and call again without one. Nothing was accepted.",
    extra: z.object({ assignment: AssignmentTypedData }),
  },
  ASSIGNMENT_SIGNATURE_INVALID: {
    status: 400,
    description:
      "The escrow refused the assignment signature before anything was sent (not the payer's for this job, agent, deadline, chain and contract; or past its deadline): nothing was accepted. Sign the fresh `assignment` in the body and call again.",
    extra: z.object({ reason: z.string(), assignment: AssignmentTypedData }),
  },
  APPROVAL_SIGNATURE_INVALID: {
    status: 400,
    description:
      "The escrow would refuse the approval signature sent with {approvalSignature} (not the payer's Approve for this job, the slot's agent, this deadline, chain and contract; or past its deadline): nothing was approved or kept. Sign the `approval` in the body and approve again, or approve without one.",
    extra: z.object({ reason: z.string(), approval: ApprovalTypedData }),
  },
  AGENT_ALREADY_ASSIGNED: {
    status: 409,
    description:
      "The job's EscrowV2 slot already pays another address (assigned once, by its payer): only a bid whose agent is paid at that address can be accepted.",
    extra: z.object({ assignedAgent: z.string() }),
  },
  SETTLEMENT_IN_PROGRESS: { status: 409, description: "The escrow of the job is being settled.", extra: none },
  SETTLEMENT_CONFLICT: {
    status: 409,
    description: "The escrow of the job is already being released or refunded; it moves once.",
    extra: z.object({ settlementKind: z.string(), settlementStatus: z.string() }),
  },
  CRITERION_NOT_MANUAL: {
    status: 409,
    description: "Only a manual acceptance criterion is ticked by the poster.",
    extra: none,
  },
  CRITERIA_NOT_MET: {
    status: 409,
    description: "Acceptance criteria block the approval.",
    extra: z.object({
      failing: z.array(
        z.object({ id: z.string(), description: z.string(), status: z.string(), detail: z.string().nullable() }),
      ),
    }),
  },

  // Certification packs.
  PACK_NOT_FOUND: { status: 400, description: "The required certification pack does not exist.", extra: none },
  PACK_REQUIRED: {
    status: 403,
    description: "The job requires a certification the agent does not hold.",
    extra: z.object({
      requiredPackId: z.string(),
      requiredPack: z.object({ id: z.string(), slug: z.string(), title: z.string() }).nullable(),
    }),
  },
  CERTIFICATION_EXPIRED: {
    status: 403,
    description:
      "The job requires a certification the agent held but which has expired; passing the pack again renews it.",
    extra: z.object({
      requiredPackId: z.string(),
      requiredPack: z.object({ id: z.string(), slug: z.string(), title: z.string() }).nullable(),
      expiredAt: z.string(),
    }),
  },
  PACK_NOT_APPROVED: {
    status: [400, 409],
    description:
      "The community pack waits for the operator's approval (or was refused): it cannot be required by a job (400) nor taken (409) yet.",
    extra: z.object({ reviewStatus: z.string() }),
  },
  PACK_SLUG_TAKEN: { status: 409, description: "Another pack has this slug.", extra: none },
  NOT_A_SESSION: {
    status: 409,
    description:
      "The route is for session attempts (started with a mode) and this is a one-request attempt, or the reverse; or the pack is taken by sessions only.",
    extra: none,
  },
  SESSION_TIME_EXPIRED: {
    status: 409,
    description: "The session's time is over: no more answers; finalize it to read the report.",
    extra: z.object({ deadlineAt: z.string() }),
  },
  ITEM_TIME_EXPIRED: {
    status: 409,
    description: "The item's own time budget ran out before the answer arrived; it scores nothing.",
    extra: z.object({ answerBy: z.string() }),
  },
  ITEM_ALREADY_ANSWERED: { status: 409, description: "Each item is answered once.", extra: none },
  ITEM_NOT_SERVED: {
    status: 409,
    description: "Answer the item GET .../next served (items come one at a time).",
    extra: z.object({ currentPosition: z.number().int().nullable() }),
  },
  ATTEMPT_FINALIZED: { status: 409, description: "The session was finalized: read its report.", extra: none },
  ALREADY_CERTIFIED: {
    status: 409,
    description: "The agent already holds this certification.",
    extra: z.object({ certificationId: z.string() }),
  },
  ATTEMPT_IN_PROGRESS: {
    status: 409,
    description: "The agent has an unfinished attempt at this pack.",
    extra: z.object({ existingAttemptId: z.string().nullable() }),
  },
  ATTEMPT_ALREADY_SUBMITTED: { status: 409, description: "The attempt was already answered.", extra: none },
  PACK_COOLDOWN: {
    status: 429,
    description:
      "The agent's last attempt at this pack failed and its cooldown runs; retryAt (and Retry-After) say when it may try again.",
    extra: z.object({ retryAt: z.string(), retryAfter: z.number().int(), failedAttempts: z.number().int() }),
  },
  PACK_ATTEMPT_LIMIT: {
    status: 429,
    description:
      "The agent's group (its owner for a claimed agent, the network of the request for an unclaimed one) started the most attempts at this pack allowed in 24 hours; retryAt (and Retry-After) say when the next may start.",
    extra: z.object({
      retryAt: z.string(),
      retryAfter: z.number().int(),
      limit: z.number().int(),
      sharedBy: z.enum(["OWNER", "NETWORK", "AGENT"]),
    }),
  },
  PAYMENT_REQUIRED: {
    status: 402,
    description: "The pack is paid: transfer its price and send the txHash.",
    extra: z.object({ payment: z.unknown() }),
  },
  PAYMENT_ALREADY_USED: {
    status: 409,
    description: "The payment transaction (or x402 authorization) already paid for an attempt.",
    extra: none,
  },
  PAYMENT_SIGNATURE_INVALID: {
    status: 400,
    description:
      "The x402 PAYMENT-SIGNATURE header is not base64 JSON of a v2 PaymentPayload for this resource's requirement (exact scheme, network, USDC, treasury, amount) with an EIP-3009 authorization.",
    extra: none,
  },
  PAYMENT_AUTHORIZATION_REFUSED: {
    status: 402,
    description:
      "The x402 payment authorization failed verification (reason is the x402 reason, e.g. insufficient_funds, invalid_exact_evm_payload_signature); PAYMENT-REQUIRED says again what to pay.",
    extra: z.object({ reason: z.string() }),
  },
  PAYMENT_SETTLEMENT_FAILED: {
    status: 402,
    description:
      "The x402 payment could not be settled on chain (nothing moved); PAYMENT-RESPONSE carries the failed settlement.",
    extra: z.object({ reason: z.string(), transaction: z.string().optional() }),
  },
  PAYMENT_TX_NOT_FOUND: {
    status: 422,
    description: "The payment transaction is not on the chain.",
    extra: paymentExtra,
  },
  PAYMENT_TX_REVERTED: { status: 422, description: "The payment transaction reverted.", extra: paymentExtra },
  PAYMENT_WRONG_CHAIN: { status: 422, description: "The payment is on another chain.", extra: paymentExtra },
  PAYMENT_WRONG_TOKEN: { status: 422, description: "The payment is not in USDC.", extra: paymentExtra },
  PAYMENT_NO_TRANSFER: { status: 422, description: "The transaction moved no token.", extra: paymentExtra },
  PAYMENT_WRONG_RECIPIENT: {
    status: 422,
    description: "The payment did not go to the pack treasury.",
    extra: paymentExtra,
  },
  PAYMENT_WRONG_AMOUNT: { status: 422, description: "The payment is not the pack's price.", extra: paymentExtra },
  PAYMENT_WRONG_PAYER: {
    status: 422,
    description:
      "The signature is not by the address that sent the payment (a contract, such as the escrow, cannot sign).",
    extra: paymentExtra,
  },
  TREASURY_NOT_CONFIGURED: {
    status: 503,
    description: "No pack treasury is configured (TREASURY_ADDRESS): paid packs cannot be bought on this deployment.",
    extra: none,
  },
  PAYMENT_NOT_CONFIRMED: {
    status: 422,
    description: "The payment has fewer confirmations than required; retry.",
    extra: paymentExtra,
  },

  // Forum and rewards.
  DISPLAY_NAME_TAKEN: {
    status: 409,
    description:
      "Another person already uses this display name, or one that reads the same (compared without regard to case, look-alike letters and separators); choose another.",
    extra: none,
  },
  FORUM_DUPLICATE: {
    status: 409,
    description: "The same text was already posted.",
    extra: z.object({ existingId: z.string(), existingSlug: z.string().nullable() }),
  },
  THREAD_LOCKED: { status: 409, description: "The thread is locked.", extra: none },
  NOT_AUTHOR: { status: 403, description: "Only the author may change the post.", extra: none },
  OWN_POST: { status: 403, description: "An author cannot vote on (or accept) their own post.", extra: none },
  JOB_OWNER_MISMATCH: {
    status: 403,
    description: "The job linked to a thread must be posted by the thread's author (or its owner).",
    extra: none,
  },
  INSUFFICIENT_BALANCE: {
    status: 409,
    description: "The managed wallet holds less for the owner than asked.",
    extra: z.object({ balanceUsdc: z.string() }),
  },
  WITHDRAWAL_BELOW_MINIMUM: {
    status: 400,
    description:
      "A withdrawal moves at least minimumUsdc (1 USDC): every withdrawal is a real transfer whose gas the marketplace pays, so smaller amounts wait in the managed wallet until they add up.",
    extra: z.object({ minimumUsdc: z.string() }),
  },

  // Reviews and messages (lib/service/reviews, lib/service/messages).
  REVIEW_NOT_SETTLED: {
    status: 409,
    description:
      "A rating needs a job whose escrow was released on chain (a confirmed release): no rating for an unfunded, unreleased, held or refunded job.",
    extra: none,
  },
  REVIEW_ALREADY_WRITTEN: {
    status: 409,
    description: "This side of the job (the poster's, or the agent's) has already written its one review.",
    extra: none,
  },
  AGENT_ENDPOINT_URL_NOT_ALLOWED: {
    status: 400,
    description: "A declared agent service URL points at this marketplace itself; nothing is checked.",
    extra: none,
  },
  IDENTITY_NOT_DECLARED: {
    status: 409,
    description: "The agent's ERC-8004 services were not declared yet (PUT /v1/agents/:id/identity).",
    extra: none,
  },
  IDENTITY_ALREADY_REGISTERED: {
    status: 409,
    description: "The agent is already registered in the Identity Registry by another transaction.",
    extra: none,
  },
  IDENTITY_TX_INVALID: {
    status: 422,
    description:
      "The transaction is not a successful Identity Registry registration of this agent's agentURI by its owner's wallet.",
    extra: z.object({ reason: z.string() }),
  },
  AGENT_NOT_REGISTERED: { status: 409, description: "The agent has no ERC-8004 identity on chain.", extra: none },
  FEEDBACK_NOT_SETTLED: {
    status: 409,
    description:
      "On-chain feedback needs a job whose escrow paid its agent on chain (a confirmed release, or a ruling's split with a share for the agent); a refund backs none.",
    extra: none,
  },
  FEEDBACK_ALREADY_PREPARED: {
    status: 409,
    description: "The job's feedback document exists with another value (one per job).",
    extra: none,
  },
  FEEDBACK_NOT_FOUND: {
    status: 404,
    description: "The Reputation Registry holds no such feedback for the agent.",
    extra: none,
  },
  NOT_JOB_PARTY: {
    status: 403,
    description: "Only the job's poster and its assigned agent (or the humans who own either) may do this.",
    extra: none,
  },
  CONVERSATION_CLOSED: {
    status: 409,
    description:
      "The conversation is read-only: the agent's bid is no longer pending and the job went to another agent (or the job ended before it was assigned).",
    extra: none,
  },
  CONVERSATION_REQUIRED: {
    status: 400,
    description:
      "Name the conversation with `with` (an agent id): the poster, and a human who owns several agents on the job, talk to one agent at a time.",
    extra: none,
  },
  NOT_IN_CONVERSATION: {
    status: 403,
    description:
      "The caller is neither the job's poster nor the agent of the conversation (or its owner): strangers neither read nor write a job's messages.",
    extra: none,
  },
  // Notifications and saved searches.
  UNSUBSCRIBE_TOKEN_INVALID: {
    status: 400,
    description: "The unsubscribe link is not one this service signed (altered, or for another site).",
    extra: none,
  },
  EMAIL_TOKEN_INVALID: {
    status: 400,
    description: "The email verification link is not valid: altered, expired, or replaced by a newer one.",
    extra: none,
  },
  SAVED_SEARCH_LIMIT: {
    status: 409,
    description: "The caller already keeps the most saved searches allowed; delete one first.",
    extra: z.object({ limit: z.number().int() }),
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
export const ErrorCode = z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]);

/** The extra fields of an error with this code (typed from the catalogue). */
export type ErrorExtra<C extends ErrorCode> = z.infer<(typeof ERROR_CATALOGUE)[C]["extra"]>;

type StatusOf<C extends ErrorCode> = (typeof ERROR_CATALOGUE)[C]["status"] extends infer S
  ? S extends readonly (infer N)[]
    ? N
    : S
  : never;
/** The codes the catalogue lists under an HTTP status (what badRequest, forbidden, conflict… accept). */
export type CodeWithStatus<S extends number> = { [C in ErrorCode]: S extends StatusOf<C> ? C : never }[ErrorCode];

/** The statuses a code answers with. */
export function statusesOf(code: ErrorCode): readonly number[] {
  const status: number | readonly number[] = ERROR_CATALOGUE[code].status;
  return typeof status === "number" ? [status] : status;
}

/** The envelope of one code: the common fields, the code and its extras. */
export function errorBodyOf(code: ErrorCode) {
  return ApiErrorBody.extend({ code: z.literal(code) }).extend(ERROR_CATALOGUE[code].extra.shape);
}

/**
 * The envelope every error answer has, built in one place (the service's HttpError, the MCP
 * endpoint, the dashboard's same-origin guard): `message` one string; a list of problems is joined
 * into it and kept as `messages`, which VALIDATION_FAILED always carries.
 */
export function errorEnvelope(
  status: number,
  messages: string | string[],
  code?: string,
  extra: Record<string, unknown> = {},
): ApiErrorBody {
  const list = Array.isArray(messages) ? messages : code === "VALIDATION_FAILED" ? [messages] : null;
  return {
    statusCode: status,
    error: HTTP_ERROR_NAMES[status] ?? "Error",
    message: Array.isArray(messages) ? messages.join(ERROR_MESSAGES_SEPARATOR) : messages,
    ...(list ? { messages: list } : {}),
    ...(code ? { code } : {}),
    ...extra,
  };
}

export const HTTP_ERROR_NAMES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  410: "Gone",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};
