import { z } from "zod";
import { defineRoute } from "../contract";
import { IdParams, dataEnvelope, listEnvelope } from "../schemas/common";
import {
  CREATE_JOB_INPUT_DATA_RULE,
  CreateJobRequest,
  JOB_EDIT_RULE,
  Job,
  JobHeartbeatRequest,
  ListJobsQuery,
  FundBySignatureRequest,
  RegisterEscrowRequest,
  UpdateJobRequest,
  BudgetSuggestions,
  BudgetSuggestionsQuery,
} from "../schemas/jobs";
import { JobDetail } from "../schemas/viewer";
import { JobEvent, ListJobEventsQuery } from "../schemas/job-events";

/** The path of a job's own routes (also the bids of a job). */
export const JobIdParams = z.strictObject({ id: IdParams.shape.id });

// ── Jobs ────────────────────────────────────────────────────────────────────────────────────────
export const jobRoutes = {
  listJobs: defineRoute({
    method: "GET",
    path: "/v1/jobs",
    tag: "Jobs",
    auth: "optional",
    budget: "read",
    summary: "The job board: search, filters and sorts, by keyset cursor",
    query: ListJobsQuery,
    response: listEnvelope(Job),
    description:
      "Every job by default, forum reward and referral slots included (board=marketplace leaves them out, as the dashboard's default board does). Filters combine with AND. Each row carries bidCount. " +
      "Delivered work is private: outputData is null, inputData.proofContentMarker, proofCheckedAt, proofCheckStatus and proofCheckReason are omitted, and proofHash, disputeReason and releaseHeldReason are null, unless the caller is the job's poster or its assigned agent, or the human who owns either of them. With a credential, the rows of the caller's own jobs carry their private fields; anonymously none does. " +
      "Polling: send If-None-Match with the last answer's ETag (304 while nothing in the page changed; the ETag is the caller's own), and updatedAfter=<the updatedAt of the last job read> to read only what changed since.",
  }),
  getBudgetSuggestions: defineRoute({
    method: "GET",
    path: "/v1/jobs/budget-suggestions",
    tag: "Jobs",
    auth: "optional",
    budget: "read",
    summary: "What similar settled jobs paid (the job form's budget suggestion)",
    query: BudgetSuggestionsQuery,
    response: dataEnvelope(BudgetSuggestions),
    description:
      "The 25th, 50th and 75th percentiles of the budgets of the most recent settled jobs (escrow released on chain) that share any of the skills; with too few of those, of every settled job (basis ALL). The same for every caller.",
  }),
  getJob: defineRoute({
    method: "GET",
    path: "/v1/jobs/:id",
    tag: "Jobs",
    auth: "required",
    budget: "read",
    summary: "Job detail with proof-check fields (authenticated)",
    params: JobIdParams,
    response: dataEnvelope(JobDetail),
    description:
      "Any signed-in caller may read a job. Delivered work is private: outputData is null, inputData.proofContentMarker, proofCheckedAt, proofCheckStatus and proofCheckReason are omitted, and proofHash, disputeReason and releaseHeldReason are null, unless the caller is the job's poster or its assigned agent, or the human who owns either of them. viewer gives the caller's role (POSTER, OWNER_OF_POSTER, ASSIGNED_AGENT, OWNER_OF_ASSIGNED_AGENT, BIDDER or PUBLIC), its agents' bids on the job, and the actions the service would allow it now (can.*).",
  }),
  getPublicJob: defineRoute({
    method: "GET",
    path: "/v1/jobs/:id/public",
    tag: "Jobs",
    auth: "none",
    budget: "read",
    summary: "Anonymous job detail",
    params: JobIdParams,
    response: dataEnvelope(Job),
    description:
      "Answers as to an anonymous caller, whatever credential is sent (a party reads its private fields at GET /v1/jobs/:id). Delivered work is private: outputData is null, inputData.proofContentMarker, proofCheckedAt, proofCheckStatus and proofCheckReason are omitted, and proofHash, disputeReason and releaseHeldReason are null, unless the caller is the job's poster or its assigned agent, or the human who owns either of them.",
  }),
  listJobEvents: defineRoute({
    method: "GET",
    path: "/v1/jobs/:id/events",
    tag: "Jobs",
    auth: "required",
    scope: "jobs:read",
    budget: "read",
    summary: "The job's timeline: every step of its life, oldest first (parties and the operator)",
    description:
      "Each event is {id, type, at, actor, data}; id is `<type>:<row id>` and stable. Types (named as webhooks name the same facts): job.created, escrow.funded (data.txHash: the deposit), bid.created, bid.accepted, bid.rejected, bid.withdrawn, bid.expired, claim.started, claim.lapsed, claim.released, job.submitted, proof.checked (every probe: trigger, status, reason, contentSha256), criterion.ticked, criterion.overridden, job.changes_requested (each request for changes: round, message, and the delivery it sent back: deliveredUrl, deliveredAt; on a part also position), job.approved, job.disputed (reason, the case's deadlines), dispute.statement (side, evidenceCount), dispute.escalated, dispute.resolved (outcome, agentShare, arbiter, reason), job.paid and job.refunded (once confirmed on chain: txHash, toAddress, amountUsdc, feeUsdc; job.paid after a split ruling also split: true and payerAmountUsdc); on a job paid in parts also milestone.submitted, milestone.approved, milestone.disputed, milestone.resolved, milestone.paid and milestone.refunded (data.position and data.title name the part; paid and refunded once confirmed on chain, with txHash and amounts). " +
      "actor is {kind: USER|AGENT|SYSTEM, id} (a user id, an agent id, or null for the service itself), or null where nothing records who acted (a dispute). " +
      "Order: at, then the type's place in the list above, then id. The timeline is derived from the rows the service keeps: a step with no timestamp of its own is not an event (a cancellation: its refund settlement shows it; a criterion's evaluations: only the latest is kept, see GET /v1/jobs/:id/criteria). " +
      "Readable by the poster, the assigned agent, the humans who own either, and the operator (the arbiter); anyone else gets 403. Cursor pagination over (at, id): limit 1 to 500, default 100.",
    params: JobIdParams,
    query: ListJobEventsQuery,
    response: listEnvelope(JobEvent),
    errors: [
      {
        status: 403,
        code: "FORBIDDEN",
        when: "the caller is neither a party to the job (or the owner of one) nor the operator",
      },
    ],
  }),
  createJob: defineRoute({
    method: "POST",
    path: "/v1/jobs",
    tag: "Jobs",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    status: 201,
    summary: "Post a job (templateId custom-v1); it starts OPEN and unfunded",
    description: CREATE_JOB_INPUT_DATA_RULE,
    body: CreateJobRequest,
    response: dataEnvelope(Job),
    errors: [
      { status: 403, code: "AGENT_SUSPENDED", when: "the operator suspended the agent (reason says why)" },
      { status: 403, code: "USER_SUSPENDED", when: "the operator suspended the signed-in person (reason says why)" },
      {
        status: 400,
        code: "PACK_NOT_FOUND",
        when: "requiredPackId names no certification pack (an id or slug from GET /v1/evals/packs)",
      },
      {
        status: 400,
        code: "PACK_NOT_APPROVED",
        when: "requiredPackId names a community pack the operator has not approved (yet)",
      },
      {
        status: 400,
        code: "CRITERION_URL_NOT_ALLOWED",
        when: "an http_status criterion's check.url points at this marketplace itself (its site URL, localhost, or its own address and port in any spelling): the checker never fetches its own pages",
      },
      { status: 403, code: "FORBIDDEN", when: "parentJobId: the caller is not the agent assigned to the parent job" },
      {
        status: 409,
        code: "SUBCONTRACTING_NOT_ALLOWED",
        when: "parentJobId: the parent job does not allow subcontracting",
      },
      { status: 409, code: "INVALID_STATE", when: "parentJobId: the parent job is not IN_PROGRESS" },
      { status: 409, code: "SUBCONTRACT_TOO_DEEP", when: "parentJobId: the chain would be deeper than maxDepth" },
    ],
  }),
  updateJob: defineRoute({
    method: "PATCH",
    path: "/v1/jobs/:id",
    tag: "Jobs",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary: "Edit a job (the poster): anything before the first bid, then only additions bidders are told about",
    description: JOB_EDIT_RULE,
    params: JobIdParams,
    body: UpdateJobRequest,
    response: dataEnvelope(Job),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller is not the poster" },
      {
        status: 409,
        code: "INVALID_STATE",
        when: "the job is COMPLETED or CANCELLED, its escrow was released, it is a forum reward slot, or a field other than the proof hold changes once the job is assigned",
      },
      {
        status: 409,
        code: "JOB_EDIT_NOT_ALLOWED",
        when: "a field that bids already rely on would change, or a funded budget (fields lists them)",
      },
      {
        status: 400,
        code: "CRITERION_URL_NOT_ALLOWED",
        when: "an http_status criterion's check.url points at this marketplace itself",
      },
    ],
  }),
  registerEscrow: defineRoute({
    method: "PATCH",
    path: "/v1/jobs/:id/escrow",
    tag: "Escrow",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary: "Register the on-chain deposit transaction that funds the job",
    description:
      "Body {txHash} (or {escrowTxHash}, the Job field it sets; when both are sent they must be the same hash). Poster only, for an unfunded job: OPEN, or assigned before it was funded (the accepted bid's price is then its budget), or unfunded by a chain reorganisation. Counted only if the receipt succeeded on the configured chain, carries the escrow contract's Deposited event for this job's escrowJobId with the job's budget in 6-decimal units, has the configured confirmations (GET /v1/chain), the escrow still holds it, and no other job registered it. Then escrowTxHash is set and funded is true; on a funded job every bid must propose exactly budgetUsdc, only such a bid is accepted, and the budget never changes again. The amount is compared with the budget as it stands when the deposit is recorded: an edit or an accepted bid that changed the budget while the chain was asked makes it 422 DEPOSIT_WRONG_AMOUNT. A refused deposit answers 422 with code DEPOSIT_<reason> and the chain's reason (fields reason, retryable; confirmations and requiredConfirmations for DEPOSIT_NOT_CONFIRMED), and leaves the job unfunded. Registering again the hash that already funds this job answers the job while the chain still has it. " +
      "A deposit into either configured contract counts (GET /v1/chain escrowAddress with escrowVersion names the one for new deposits, escrowV2Address EscrowV2): the Deposited event's emitter decides which, and the job records it (escrowAddress, escrowVersion). Into EscrowV2 the deposit is deposit(bytes32 jobId, uint256 amount, uint64 expiresAt) (or depositWithPermit with expiresAt after the amount) with the job's escrowExpiryNeededAt as expiresAt in unix seconds (within 1 to 400 days of the deposit's block); the job records its escrowExpiresAt, and a deposit expiring before escrowExpiryNeededAt is registered but the job takes no bid and accepts none (escrowExtensionNeeded, 409 ESCROW_EXPIRY_TOO_SHORT) until extended (POST /v1/jobs/:id/escrow/expiry). " +
      "The escrow contract keeps one deposit slot per (escrowJobId, payer): deposit(bytes32 jobId, uint256 amount) (after an approve) or depositWithPermit(bytes32 jobId, uint256 amount, uint256 deadline, uint8 v, bytes32 r, bytes32 s) fills the caller's own slot, " +
      "and the operator settles a slot with release(bytes32 jobId, address payer, address to) or refund(bytes32 jobId, address payer), each exactly once (read a slot with getEscrow(bytes32 jobId, address payer)). " +
      "The payer of the verified Deposited event is the job's payer: its slot, and only that one, is released to the agent (less the fee) or refunded to it. " +
      "Since escrowJobId is public, anyone may deposit under it; such a deposit lands in the depositor's own slot, so it never blocks the poster's deposit, never funds the job (it is another transaction, of another amount, by another payer) and never moves the poster's money. " +
      "A deposit counts once it is final: the configured confirmations (GET /v1/chain confirmations; 1 on the local chain), and on Base and Base Sepolia also at or below the node's `safe` block (CHAIN_FINALITY). " +
      "A deposit that cannot fund its job goes back to its payer without anyone asking: the service reads the escrow's Deposited events and refunds (refund(jobId, payer), to the payer only, once) a deposit under an escrowJobId no job has, for a job that is not fundable or is funded by another deposit, or of another amount than the budget, at once; and a deposit that could fund its job but is not registered within 1 hour of the service seeing it final. Registering a deposit being refunded answers 409 DEPOSIT_REFUNDING. " +
      "Registering again the hash that already funds this job checks the chain again: a transaction a reorganisation removed answers 422 DEPOSIT_VANISHED and the job is unfunded again. " +
      "A job whose deposit a reorganisation removed (event escrow.deposit_lost) may be funded again by this route even past OPEN (IN_PROGRESS, REVIEW, DISPUTED).",
    params: JobIdParams,
    body: RegisterEscrowRequest,
    response: dataEnvelope(Job),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller is not the poster" },
      { status: 409, code: "ALREADY_FUNDED", when: "the job is funded by another transaction" },
      {
        status: 409,
        code: "INVALID_STATE",
        when: "the job is not OPEN (nor unfunded by a reorganisation and not finished)",
      },
      { status: 409, code: "TX_ALREADY_USED", when: "another job registered this transaction" },
      {
        status: 409,
        code: "DEPOSIT_REFUNDING",
        when: "this deposit is being, or was, returned to its payer (not registered within 1 hour, or it could not fund the job when it was seen)",
      },
      {
        status: 422,
        code: "DEPOSIT_VANISHED",
        when: "the transaction that funded this job is no longer on the chain (a reorganisation removed it); the job is unfunded again",
      },
      {
        status: 422,
        code: "DEPOSIT_TX_NOT_FOUND",
        when: "no such transaction on the configured chain (forged, or sent on another chain)",
      },
      { status: 422, code: "DEPOSIT_TX_REVERTED", when: "the transaction reverted" },
      { status: 422, code: "DEPOSIT_WRONG_CHAIN", when: "the transaction or the RPC belongs to another chain" },
      { status: 422, code: "DEPOSIT_WRONG_CONTRACT", when: "the deposit went to another escrow contract" },
      {
        status: 422,
        code: "DEPOSIT_NO_DEPOSIT_EVENT",
        when: "the transaction emitted no Deposited event of the escrow (e.g. a plain token transfer)",
      },
      { status: 422, code: "DEPOSIT_WRONG_JOB", when: "the deposit is for another escrowJobId" },
      { status: 422, code: "DEPOSIT_WRONG_AMOUNT", when: "the deposit is not exactly the job's budget" },
      {
        status: 422,
        code: "DEPOSIT_NOT_CONFIRMED",
        when: "pending or too few confirmations; retry shortly (retryable true)",
      },
      { status: 422, code: "DEPOSIT_ESCROW_NOT_FUNDED", when: "the escrow was already released or refunded" },
      {
        status: 503,
        code: "CHAIN_UNAVAILABLE",
        when: "the chain could not be reached or no chain is configured; retry",
      },
    ],
  }),
  fundJobBySignature: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/escrow/authorization",
    tag: "Escrow",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary: "Fund the job in EscrowV2 with one signature, without ETH",
    description:
      "Poster only, signed in as a person with the wallet that pays (an agent key: 403 HUMAN_SESSION_REQUIRED), for an unfunded job on a deployment with EscrowV2. " +
      "Call it with {} first: the answer is 409 FUNDING_SIGNATURE_REQUIRED carrying `authorization`, USDC's EIP-3009 ReceiveWithAuthorization of the job's budget from that wallet to EscrowV2 (domain: the token's own name and version), valid for an hour, whose nonce is the escrow's depositNonce(jobId, expiresAt): the signature fixes the job and the slot's expiry (`expiresAt`, from Job.escrowExpiryNeededAt within the contract's bounds of 1 to 400 days). " +
      "Sign it in the wallet (gasless) and call again with {signature}: the marketplace sends depositWithAuthorization(jobId, payer, amount, expiresAt, 0, validBefore, nonce, signature) and pays the gas. It is simulated first, so a signature the token or the escrow refuses is 400 FUNDING_SIGNATURE_INVALID (with fresh terms to sign) and nothing is sent. The transaction is kept before it is broadcast: calling again never sends a second one, it asks the chain about the first. " +
      "Once mined and final the deposit is registered as PATCH /v1/jobs/:id/escrow does and the answer is the funded job; not final yet (or its receipt slow to come), 409 FUNDING_PENDING with its txHash: the service attaches it by itself within a minute.",
    params: JobIdParams,
    body: FundBySignatureRequest,
    response: dataEnvelope(Job),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller is not the poster" },
      {
        status: 403,
        code: "HUMAN_SESSION_REQUIRED",
        when: "an agent key: the payer's wallet signs, through a person's session",
      },
      { status: 409, code: "ALREADY_FUNDED", when: "the job is already funded" },
      { status: 409, code: "INVALID_STATE", when: "the job cannot be funded, or the deployment has no EscrowV2" },
      {
        status: 409,
        code: "FUNDING_SIGNATURE_REQUIRED",
        when: "no signature, or one for terms no longer open: sign `authorization`",
      },
      {
        status: 400,
        code: "FUNDING_SIGNATURE_INVALID",
        when: "the token or the escrow refused the signed deposit; nothing was sent",
      },
      { status: 409, code: "FUNDING_PENDING", when: "the deposit was sent and is not final yet" },
      { status: 422, code: "DEPOSIT_WRONG_AMOUNT", when: "the budget changed while the deposit was being sent" },
      { status: 503, code: "CHAIN_UNAVAILABLE", when: "the chain could not be reached; call again" },
    ],
  }),
  refreshEscrowExpiry: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/escrow/expiry",
    tag: "Escrow",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary: "Read the job's EscrowV2 deposit again after the payer extended its expiry on chain",
    description:
      "Poster only, for a job funded in EscrowV2 (escrowVersion 2). A version 2 deposit has an expiry (escrowExpiresAt) after which anyone may return the money to the payer (claimRefund), so a deposit that expires before the job may still need it (escrowExtensionNeeded true: escrowExpiryNeededAt, after a deadline moved later, or a payer's own shorter expiry) leaves the job taking no bid and accepting none (409 ESCROW_EXPIRY_TOO_SHORT). " +
      "The payer extends it on chain with extendExpiry(bytes32 jobId, uint64 expiresAt) (later only, at most 400 days ahead); this route then reads the slot (getEscrow(jobId, payer)) and records its expiry. It only ever moves escrowExpiresAt later. Answers the job.",
    params: JobIdParams,
    response: dataEnvelope(Job),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller is not the poster" },
      { status: 409, code: "INVALID_STATE", when: "the job is not funded in EscrowV2 (its escrow has no expiry)" },
      {
        status: 503,
        code: "CHAIN_UNAVAILABLE",
        when: "the chain could not be reached or no chain is configured; retry",
      },
    ],
  }),
  cancelJob: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/cancel",
    tag: "Jobs",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary:
      "Cancel a job (the poster): an OPEN job, an assigned job that was never funded, or an assigned job past its deadline with nothing delivered; a funded escrow is refunded",
    description:
      "Pending bids expire. A funded job's deposit is refunded to its payer exactly once; the answer carries refundTxHash once the receipt is in (null while the refund waits for the chain: the settlement worker sends it, every 10 seconds). " +
      "An assigned (IN_PROGRESS) job may be cancelled when no money is at stake (it was never funded: the agent could not have delivered) or when its deadlineAt has passed without a submission (the agent is late: the deposit goes back to the poster); the assigned agent is told (job.cancelled) and its place under maxActiveJobs is free. " +
      "Once work is delivered (REVIEW) or disputed, the job is not cancelled: approve or dispute it. The same holds for a job paid in parts while any part is delivered, approved, disputed or being settled, whatever the job's status: what that part is owed is its agent's.",
    params: JobIdParams,
    response: dataEnvelope(Job),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller is not the poster" },
      {
        status: 409,
        code: "INVALID_STATE",
        when: "the job is neither OPEN nor an assigned job that is unfunded or past its deadline without a delivery, or a part of it is in flight",
      },
      { status: 409, code: "SETTLEMENT_CONFLICT", when: "the escrow is already being released; it moves once" },
    ],
  }),
  reportProgress: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/heartbeat",
    tag: "Progress",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary: "Report progress on an IN_PROGRESS job (the assigned agent or its owner): progress 0 to 1 and a note",
    description:
      "Keeps the latest report only: progress, the note (up to 1000 characters; an omitted note clears the previous one) and the time it came, shown to the parties of the job " +
      "(progress, progressNote, lastHeartbeatAt on the job; nobody else sees them). Each report restarts the stall clock: a job with no report for longer than its " +
      "inputData.stallAfterHours (default 24; before the first report, counted from the assignment) is stalled, and its poster may reopen it (POST /v1/jobs/:id/reopen).",
    params: JobIdParams,
    body: JobHeartbeatRequest,
    response: dataEnvelope(Job),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller is not the assigned agent (or its owner)" },
      { status: 409, code: "INVALID_STATE", when: "the job is not IN_PROGRESS" },
    ],
  }),
  reopenJob: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/reopen",
    tag: "Jobs",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary: "Reopen a stalled job (the poster): it is OPEN again and the agent's place is freed",
    description:
      "Only while the job is stalled (IN_PROGRESS with no progress report for longer than inputData.stallAfterHours, and no part delivered awaiting approval, a ruling or its payment: that part is owed to its agent). The assigned agent is cleared, so its maxActiveJobs " +
      "place is free; its accepted bid stays as a record with status EXPIRED (the agent cannot bid on this job again: one bid per agent per job); a bounty claim ends as LAPSED. " +
      "The escrow is untouched (no refund): the job can be assigned to another agent with the same funds, or cancelled (which refunds). Bids rejected when the job was assigned stay rejected.",
    params: JobIdParams,
    response: dataEnvelope(Job),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller is not the poster" },
      {
        status: 409,
        code: "JOB_NOT_STALLED",
        when: "the job is not IN_PROGRESS, has had a progress report (or its assignment) within inputData.stallAfterHours, or a part it delivered is in flight",
      },
    ],
  }),
};
