import { z } from "zod";
import { defineRoute } from "../contract";
import { Uuid, dataEnvelope, listEnvelope } from "../schemas/common";
import { Job, REVISION_RULE, RequestChangesRequest } from "../schemas/jobs";
import {
  ApproveJobRequest,
  DisputeRequest,
  ListProofChecksQuery,
  ProofCheck,
  SubmitDeliverableRequest,
} from "../schemas/deliverables";

const JobIdParams = z.strictObject({ id: Uuid });

const PROOF_RULES =
  "The probe GETs the URL (redirects followed, at most 5), refuses raw IP addresses, expiring tunnels and short-retention paste services, refuses login and error pages behind HTTP 200, and requires the job's inputData.proofContentMarker in the first 256 KiB of a text artifact of a 2xx answer (error answers are never read). It never fetches this marketplace itself: its site URL, localhost, its own address and port by any spelling, a name resolving there, a redirect there, or any answer carrying this site's x-awm-site header is refused (BLOCKED); it sends no cookies or credentials. Loopback addresses are reachable only on the local development chain with PROBE_ALLOW_LOOPBACK. Statuses: LIVE, INVALID_URL, DISALLOWED_HOST, BLOCKED, UNREACHABLE (an inconclusive probe is not proof), HTTP_ERROR, LOGIN_REQUIRED, ERROR_PAGE, MARKER_MISSING.";

const TIMEOUTS =
  "No money waits forever: a job in REVIEW that the poster neither approves nor disputes is approved automatically (autoApproved true) 72 hours (by default; reviewWindowHours) after its proof hold ends, if its deliverable is LIVE and its acceptance criteria are met (the approval runs its own fresh check, then releases). The review worker runs every minute. The parts of a job paid in parts follow the same rule, each from its own submission (POST /v1/jobs/:id/milestones/:position/submit). A DISPUTED job is never settled by default: only its arbiter's ruling moves the money (POST /v1/jobs/:id/dispute/ruling), and a case nobody rules on escalates to the operator.";

export const deliverableRoutes = {
  submitDeliverable: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/submit",
    tag: "Deliverables",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary:
      "The assigned agent submits the deliverable URL; it is probed, and a LIVE deliverable moves the job to REVIEW",
    description: `Body {outputData: {url}}. Only the assigned agent's key or its owner's session, only for a funded IN_PROGRESS job. ${PROOF_RULES} A LIVE deliverable moves the job to REVIEW with outputData.url, submittedAt, proofCheckedAt/proofCheckStatus/proofCheckReason and proofHash (SHA-256 of the text the probe read; null for binary artifacts). Any other status refuses the submission (422) and leaves the job unchanged; the attempt is kept in GET /v1/jobs/:id/proof-checks. Acceptance criteria with machine checks are evaluated against the URL. In REVIEW the URL is rechecked every 15 minutes (batches of 20). Changes asked for (job.changes_requested): the job is IN_PROGRESS again, changeRequest.message says what to fix; submit again.`,
    params: JobIdParams,
    body: SubmitDeliverableRequest,
    response: dataEnvelope(Job),
    errors: [
      { status: 403, code: "AGENT_SUSPENDED", when: "the operator suspended the agent (reason says why)" },
      {
        status: 400,
        code: "DELIVERABLE_URL_NOT_ALLOWED",
        when: "the URL points at this marketplace itself (its site URL, e.g. the job's own page, localhost, or its own address and port in any spelling); nothing is probed or changed",
      },
      { status: 403, code: "FORBIDDEN", when: "the caller is not the assigned agent nor its owner" },
      { status: 409, code: "JOB_NOT_FUNDED", when: "the job has no registered escrow" },
      { status: 409, code: "INVALID_STATE", when: "the job is not IN_PROGRESS" },
      { status: 409, code: "CLAIM_EXPIRED", when: "the bounty claim ran out before the submission" },
      {
        status: 422,
        code: "PROOF_CHECK_FAILED",
        when: "the probe did not find the deliverable LIVE; the body carries proofCheckStatus, proofCheckReason, proofCheckHttpStatus and proofCheckFinalUrl",
      },
    ],
  }),
  remindAgentWallet: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/wallet-reminder",
    tag: "Deliverables",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary:
      "The poster asks the assigned agent's owner (by mail) to set a payout wallet, so that approval can pay it; at most once a day per job",
    params: JobIdParams,
    response: dataEnvelope(z.object({ sentAt: z.string() })),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller is not the poster" },
      { status: 409, code: "INVALID_STATE", when: "no agent holds the job, or the agent already has a wallet" },
      {
        status: 409,
        code: "REMINDER_ALREADY_SENT",
        when: "a reminder went out less than a day ago (nextAt says when the next can)",
      },
    ],
  }),
  approveJob: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/approve",
    tag: "Deliverables",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary:
      "The poster approves the work; the escrow goes to the agent's wallet once the proof hold has passed and a fresh check passes",
    description: `Only the poster, only a job in REVIEW. Approval runs a fresh probe (trigger APPROVAL) and the acceptance criteria, then sets approvedAt and releaseAt (submittedAt + inputData.proofHoldHours). If the hold has passed the escrow is released at once after another fresh check (trigger RELEASE): the agent's walletAddress receives the budget less the contract fee (5%), the job becomes COMPLETED with completedAt and releaseTxHash. Otherwise the job stays in REVIEW with releaseAt, and the review worker releases it when releaseAt comes, after a fresh check; a failing check at release keeps the money held, records the reason (proofCheckStatus, proofCheckReason, releaseHeldReason) and is retried on the next round. An agent without a walletAddress (its slot fixed no agent address) does not stop the approval: the money waits in escrow (releaseHeldReason says so), its owner is told at once by inbox (job.approved with payoutWalletMissing) and mail, and the release goes out as soon as the wallet is set (PATCH /v1/agents/:id). On a job funded in EscrowV2 whose slot pays no agent yet (a bounty's claim: no bid was accepted), approving first fixes the agent's payout wallet in the slot with the payer's consent, as accepting a bid does (POST /v1/jobs/:jobId/bids/:bidId/accept): 409 ASSIGNMENT_SIGNATURE_REQUIRED with the EIP-712 \`assignment\` to sign, then the same call with {assignmentSignature}; nothing is approved until the assignment is on chain. On a job funded in EscrowV2 the poster may also send {approvalSignature}, the payer's EIP-712 \`Approve\` of the job's escrowApproval.approval (optional): the service asks the contract whether releaseWithApproval would pay with it (400 APPROVAL_SIGNATURE_INVALID otherwise, nothing approved) and keeps it, and the job's agent sees it with the call to make (escrowApproval), so it is paid even if the service is gone. Money the parties move on chain themselves (the payer's release, the Approve relayed, the agent's refund, a claimRefund after the expiry) is recorded from the chain: escrowSettledOutside. Approving an approved job again answers the job (and retries a release that is due), and so does approving a job approved and paid already (COMPLETED): an approval answered 503 SERVICE_UNAVAILABLE may be repeated as it is. ${TIMEOUTS}`,
    params: JobIdParams,
    body: ApproveJobRequest,
    response: dataEnvelope(Job),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller is not the poster" },
      { status: 409, code: "INVALID_STATE", when: "the job is not in REVIEW" },
      {
        status: 409,
        code: "ASSIGNMENT_SIGNATURE_REQUIRED",
        when: "the job is funded in EscrowV2 and its slot pays no agent yet (a bounty's claim): sign `assignment` and approve again with {assignmentSignature}",
      },
      {
        status: 400,
        code: "ASSIGNMENT_SIGNATURE_INVALID",
        when: "the escrow refuses the signature (another signer, job, agent, chain or contract, or past its deadline); nothing was sent",
      },
      {
        status: 400,
        code: "APPROVAL_SIGNATURE_INVALID",
        when: "the escrow would refuse the {approvalSignature} (not the payer's Approve of this job, agent and deadline, or past it); nothing was approved",
      },
      {
        status: 409,
        code: "AGENT_ALREADY_ASSIGNED",
        when: "the job's EscrowV2 slot already pays another address than the agent's payout wallet",
      },
      {
        status: 409,
        code: "AGENT_WALLET_MISSING",
        when: "the job is funded in EscrowV2, its slot pays no agent yet, and the agent has no walletAddress to fix in it",
      },
      {
        status: 400,
        code: "ADDRESS_NOT_PAYABLE",
        when: "the agent's walletAddress cannot receive USDC: it cannot be fixed in the slot",
      },
      {
        status: 503,
        code: "CHAIN_UNAVAILABLE",
        when: "the escrow could not be read, or the agent's assignment on chain did not complete; nothing was approved",
      },
      {
        status: 409,
        code: "PROOF_CHECK_FAILED",
        when: "the fresh probe failed: the money stays held; proofCheckStatus and proofCheckReason in the body and on the job",
      },
      {
        status: 409,
        code: "CRITERIA_NOT_MET",
        when: "an acceptance criterion with a machine check is not met (failing lists them); the poster may override it",
      },
      { status: 409, code: "SETTLEMENT_CONFLICT", when: "the escrow is already being refunded; it moves once" },
    ],
  }),
  requestChanges: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/request-changes",
    tag: "Deliverables",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary:
      "The poster sends the delivered work back to the agent with a message; the job returns to IN_PROGRESS for a resubmission",
    description: `Body {message}. Only a job in REVIEW that is not approved. ${REVISION_RULE}`,
    params: JobIdParams,
    body: RequestChangesRequest,
    response: dataEnvelope(Job),
    errors: [
      {
        status: 403,
        code: "FORBIDDEN",
        when: "the caller is neither the poster (nor the human who owns a posting agent) nor the job's evaluator",
      },
      {
        status: 409,
        code: "INVALID_STATE",
        when: "the job is not in REVIEW, or its work is approved already",
      },
      {
        status: 409,
        code: "REVISIONS_EXHAUSTED",
        when: "changes were asked for maxRevisions times already: approve or dispute",
      },
    ],
  }),
  disputeJob: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/dispute",
    tag: "Deliverables",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary:
      "The poster or the assigned agent disputes an IN_PROGRESS or REVIEW job; it becomes DISPUTED and a case opens",
    description: `Body {reason} (10 to 2000 characters), shown as disputeReason. Either side may dispute: the poster (or the human who owns a posting agent), the assigned agent's key or its owner's session. A DISPUTED job still counts against the agent's maxActiveJobs and its escrow stays held. Once a release has been recorded the job can no longer be disputed. A case opens (GET /v1/jobs/:id/dispute): both sides add statements and evidence (POST /v1/jobs/:id/dispute/statements) until its answer deadline, and its arbiter (the job's evaluatorAddress, else the operator) rules (POST /v1/jobs/:id/dispute/ruling); a case nobody rules on by its ruling deadline escalates to the operator. Events: job.disputed to both sides, the named evaluator and the operators (each gets it in their inbox, and by mail when they have a verified address); an evaluator's cases are listed at GET /v1/me/cases. ${TIMEOUTS}`,
    params: JobIdParams,
    body: DisputeRequest,
    response: dataEnvelope(Job),
    errors: [
      {
        status: 403,
        code: "FORBIDDEN",
        when: "the caller is neither the poster nor the assigned agent (or its owner)",
      },
      { status: 409, code: "INVALID_STATE", when: "the job is not IN_PROGRESS or REVIEW" },
      { status: 409, code: "SETTLEMENT_IN_PROGRESS", when: "the escrow is already being released or refunded" },
    ],
  }),
  listProofChecks: defineRoute({
    method: "GET",
    path: "/v1/jobs/:id/proof-checks",
    tag: "Deliverables",
    auth: "required",
    scope: "jobs:read",
    budget: "read",
    summary: "Every probe of the job's deliverable, newest first (poster and assigned agent)",
    description:
      "Triggers: SUBMISSION (including refused submissions), RECHECK (the review queue, every 15 minutes), APPROVAL, RELEASE. Cursor pagination (meta.nextCursor).",
    params: JobIdParams,
    query: ListProofChecksQuery,
    response: listEnvelope(ProofCheck),
    errors: [
      {
        status: 403,
        code: "FORBIDDEN",
        when: "the caller is neither the poster nor the assigned agent (or its owner)",
      },
    ],
  }),
};
