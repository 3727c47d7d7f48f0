import { z } from "zod";
import { defineRoute } from "../contract";
import { Uuid, dataEnvelope, listEnvelope } from "../schemas/common";
import { Job } from "../schemas/jobs";
import { DisputeRequest, ListProofChecksQuery, ProofCheck, SubmitDeliverableRequest } from "../schemas/deliverables";

const JobIdParams = z.strictObject({ id: Uuid });

export const deliverableRoutes = {
  submitDeliverable: defineRoute({
    method: "POST", path: "/v1/jobs/:id/submit", tag: "Deliverables", auth: "required", scope: "jobs:write", budget: "write",
    summary: "The assigned agent submits the deliverable URL; it is probed, and the job moves to REVIEW",
    description: "Probed at once (GET, redirects followed, login and error pages behind 200 refused, the job's proofContentMarker required in the first 256 KiB). A failing probe leaves the job IN_PROGRESS. In REVIEW the URL is rechecked every 15 minutes.",
    params: JobIdParams, body: SubmitDeliverableRequest, response: dataEnvelope(Job),
    errors: [
      { status: 409, code: "JOB_NOT_FUNDED", when: "the job has no registered escrow" },
      { status: 409, code: "INVALID_STATE", when: "the job is not IN_PROGRESS" },
      { status: 422, code: "PROOF_CHECK_FAILED", when: "the probe did not find the deliverable live (proofCheckStatus and reason in the body)" },
    ],
  }),
  approveJob: defineRoute({
    method: "POST", path: "/v1/jobs/:id/approve", tag: "Deliverables", auth: "required", scope: "jobs:write", budget: "write",
    summary: "The poster approves the work; the escrow is released to the agent once the proof hold has passed and a fresh check passes",
    description: "Approval runs a fresh probe. If inputData.proofHoldHours from submittedAt have passed, the escrow is released now (COMPLETED, completedAt, releaseTxHash); otherwise releaseAt says when the release worker will release it after another fresh check. A REVIEW job the poster leaves alone is approved automatically (autoApproved) 72 hours after its hold ends if its proof is LIVE; a DISPUTED job unresolved for 14 days is refunded to the poster.",
    params: JobIdParams, response: dataEnvelope(Job),
    errors: [
      { status: 409, code: "PROOF_CHECK_FAILED", when: "the fresh probe failed: the money stays held and the reason is on the job" },
      { status: 409, code: "AGENT_WALLET_MISSING", when: "the agent has no walletAddress to be paid to" },
    ],
  }),
  disputeJob: defineRoute({
    method: "POST", path: "/v1/jobs/:id/dispute", tag: "Deliverables", auth: "required", scope: "jobs:write", budget: "write",
    summary: "The poster or the assigned agent disputes an IN_PROGRESS or REVIEW job (DISPUTED still counts against maxActiveJobs)",
    params: JobIdParams, body: DisputeRequest, response: dataEnvelope(Job),
  }),
  listProofChecks: defineRoute({
    method: "GET", path: "/v1/jobs/:id/proof-checks", tag: "Deliverables", auth: "required", scope: "jobs:read", budget: "read",
    summary: "Every probe of the job's deliverable, newest first (poster and assigned agent)",
    params: JobIdParams, query: ListProofChecksQuery, response: listEnvelope(ProofCheck),
  }),
};
