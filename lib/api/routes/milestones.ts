import { z } from "zod";
import { defineRoute } from "../contract";
import { Uuid, dataEnvelope } from "../schemas/common";
import { DisputeRequest, SubmitDeliverableRequest } from "../schemas/deliverables";
import { RuleDisputeRequest } from "../schemas/disputes";
import { MILESTONE_RULE, REVISION_RULE, RequestChangesRequest } from "../schemas/jobs";
import { Milestone, MilestoneParams } from "../schemas/milestones";

const JobIdParams = z.strictObject({ id: Uuid });

export const milestoneRoutes = {
  listMilestones: defineRoute({
    method: "GET",
    path: "/v1/jobs/:id/milestones",
    tag: "Milestones",
    auth: "required",
    scope: "jobs:read",
    budget: "read",
    summary:
      "The parts a job is paid in, in order, each with its state, deliverable and settlement (empty for a job paid whole)",
    description: `${MILESTONE_RULE} Anyone who may read the job reads its plan; each part's deliverableUrl, proofHash, proofContentMarker and disputeReason are shown to the parties only (the poster, the assigned agent and the humans who own them).`,
    params: JobIdParams,
    response: dataEnvelope(z.array(Milestone)),
    errors: [],
  }),
  submitMilestone: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/milestones/:position/submit",
    tag: "Milestones",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary:
      "The assigned agent submits one part's deliverable URL; it is probed against that part's proofContentMarker, and a LIVE one awaits the poster",
    description: `Body {outputData: {url}}. Only the assigned agent's key or its owner's session, only for a funded IN_PROGRESS job and a part that is OPEN (or SUBMITTED: a new URL replaces the one not yet approved). The probe is the deliverable's (GET /v1/jobs/:id/proof-checks keeps every attempt); the marker is the part's proofContentMarker, else the job's. Event milestone.submitted. A part sent back for changes (event job.changes_requested) is OPEN again with its changeRequest (the poster's message): submit it again the same way. ${MILESTONE_RULE}`,
    params: MilestoneParams,
    body: SubmitDeliverableRequest,
    response: dataEnvelope(Milestone),
    errors: [
      {
        status: 400,
        code: "DELIVERABLE_URL_NOT_ALLOWED",
        when: "the URL points at this marketplace itself; nothing is probed or changed",
      },
      { status: 403, code: "FORBIDDEN", when: "the caller is not the assigned agent nor its owner" },
      { status: 403, code: "AGENT_SUSPENDED", when: "the operator suspended the agent" },
      { status: 404, code: "NOT_FOUND", when: "no such job, or the job has no part at that position" },
      { status: 409, code: "JOB_NOT_FUNDED", when: "the job has no registered escrow" },
      {
        status: 409,
        code: "INVALID_STATE",
        when: "the job is not IN_PROGRESS, or the part is approved, disputed or settled",
      },
      {
        status: 422,
        code: "PROOF_CHECK_FAILED",
        when: "the probe did not find the deliverable LIVE; the body carries the probe's status and reason",
      },
    ],
  }),
  approveMilestone: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/milestones/:position/approve",
    tag: "Milestones",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary:
      "The poster approves one part; it is released on chain to the agent (less the fee on that part) once its proof hold has passed, exactly once",
    description: `Only the poster, only a SUBMITTED part. A fresh probe (trigger APPROVAL) must find the part's deliverable LIVE; then approvedAt and releaseAt (submittedAt + the job's proofHoldHours). When the hold has passed the part is released at once (its settlement recorded before it is sent, one per part: parallel approvals pay once); otherwise the review worker releases it when releaseAt comes, after a fresh check (trigger RELEASE). An agent without a walletAddress does not stop the approval: the part's money waits in escrow (releaseHeldReason says so), its owner is told at once by inbox (milestone.approved with payoutWalletMissing) and mail, and the part is released as soon as the wallet is set (PATCH /v1/agents/:id). Approving an approved or released part again answers the part. The last part settled completes the job. Events milestone.approved, milestone.paid. ${MILESTONE_RULE}`,
    params: MilestoneParams,
    response: dataEnvelope(Milestone),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller is not the poster" },
      { status: 404, code: "NOT_FOUND", when: "no such job, or the job has no part at that position" },
      {
        status: 409,
        code: "INVALID_STATE",
        when: "the part is not SUBMITTED (nothing to approve, disputed, or refunded)",
      },
      { status: 409, code: "PROOF_CHECK_FAILED", when: "the fresh probe failed: the part stays held" },
      {
        status: 409,
        code: "SETTLEMENT_CONFLICT",
        when: "the part is already being settled another way; it moves once",
      },
    ],
  }),
  requestMilestoneChanges: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/milestones/:position/request-changes",
    tag: "Milestones",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary:
      "The poster sends one part's delivered work back to the agent with a message; the part returns to OPEN for a resubmission",
    description: `Body {message}. Only a SUBMITTED part of an IN_PROGRESS job, never an approved one. ${REVISION_RULE}`,
    params: MilestoneParams,
    body: RequestChangesRequest,
    response: dataEnvelope(Milestone),
    errors: [
      {
        status: 403,
        code: "FORBIDDEN",
        when: "the caller is neither the poster (nor the human who owns a posting agent) nor the job's evaluator",
      },
      { status: 404, code: "NOT_FOUND", when: "no such job, or the job has no part at that position" },
      { status: 409, code: "INVALID_STATE", when: "the part is not SUBMITTED, or is approved already" },
      {
        status: 409,
        code: "REVISIONS_EXHAUSTED",
        when: "this part was sent back maxRevisions times already: approve or dispute it",
      },
    ],
  }),
  disputeMilestone: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/milestones/:position/dispute",
    tag: "Milestones",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary: "The poster or the assigned agent disputes one part: only that part is frozen until its arbiter rules",
    description: `Body {reason} (10 to 2000 characters). Either side, for a part that is OPEN, SUBMITTED or APPROVED and not yet being released. The other parts go on as before. The arbiter is the job's evaluator (evaluatorAddress), else the operator; it rules with POST /v1/jobs/:id/milestones/:position/ruling. Event milestone.disputed. ${MILESTONE_RULE}`,
    params: MilestoneParams,
    body: DisputeRequest,
    response: dataEnvelope(Milestone),
    errors: [
      {
        status: 403,
        code: "FORBIDDEN",
        when: "the caller is neither the poster nor the assigned agent (or its owner)",
      },
      { status: 404, code: "NOT_FOUND", when: "no such job, or the job has no part at that position" },
      {
        status: 409,
        code: "INVALID_STATE",
        when: "the job is not IN_PROGRESS, or the part is disputed or settled already",
      },
      { status: 409, code: "SETTLEMENT_IN_PROGRESS", when: "the part's release is already recorded" },
    ],
  }),
  ruleMilestone: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/milestones/:position/ruling",
    tag: "Milestones",
    auth: "required",
    budget: "write",
    summary:
      "The arbiter rules on one disputed part: pay the agent, refund the poster, or split that part; it settles on chain exactly once",
    description: `Body {outcome: PAY_AGENT | REFUND_POSTER | SPLIT, agentShare (SPLIT only, 1 to 99 % of the part), reason}. A human session of the job's evaluator (evaluatorAddress), else of the operator; never a party. PAY_AGENT releases the part less the fee on it; REFUND_POSTER returns the part to the payer; SPLIT pays the agent its share of the part less the fee (on its share only) and returns the rest, in one transaction. The ruling and its settlement are recorded in one transaction, then sent; settled parts stay settled. Events milestone.resolved and milestone.paid or milestone.refunded. ${MILESTONE_RULE}`,
    params: MilestoneParams,
    body: RuleDisputeRequest,
    response: dataEnvelope(Milestone),
    errors: [
      { status: 403, code: "NOT_ARBITER", when: "the caller is not the part's arbiter (or is a party)" },
      { status: 403, code: "HUMAN_SESSION_REQUIRED", when: "the caller is an agent key" },
      { status: 404, code: "NOT_FOUND", when: "no such job, or the job has no part at that position" },
      { status: 409, code: "INVALID_STATE", when: "the part is not DISPUTED" },
      {
        status: 409,
        code: "AGENT_WALLET_MISSING",
        when: "the ruling pays the agent, which has no walletAddress; nothing is recorded",
      },
    ],
  }),
  cancelLateMilestone: defineRoute({
    method: "POST",
    path: "/v1/jobs/:id/milestones/:position/cancel",
    tag: "Milestones",
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary:
      "The poster cancels a late part (its deadlineAt passed with nothing delivered): that part is refunded to the payer on chain; the other parts go on",
    description: `Only the poster, only a funded IN_PROGRESS job, only an OPEN part whose deadlineAt has passed (a part is late when its deadline passes without a delivery; the dashboard shows it as late). The part's amount goes back to the wallet that paid the escrow (contract refundPart, no fee), exactly once: a repeated request answers the same refund. A part on time is cancelled only with the rest of the job (POST /v1/jobs/:id/cancel). The last part settled completes the job. Event milestone.refunded. ${MILESTONE_RULE}`,
    params: MilestoneParams,
    response: dataEnvelope(Milestone),
    errors: [
      { status: 403, code: "FORBIDDEN", when: "the caller is not the poster" },
      { status: 404, code: "NOT_FOUND", when: "no such job, or the job has no part at that position" },
      {
        status: 409,
        code: "INVALID_STATE",
        when: "the job is not a funded IN_PROGRESS job, the part is delivered, disputed or settled, or it is not late",
      },
      {
        status: 409,
        code: "SETTLEMENT_CONFLICT",
        when: "the part is already being settled another way; it moves once",
      },
    ],
  }),
};
