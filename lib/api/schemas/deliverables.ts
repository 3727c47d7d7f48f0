import { z } from "zod";
import { AssignmentSignature, Cursor, Timestamp, Uuid, intParam } from "./common";

export const SubmitDeliverableRequest = z.strictObject({
  outputData: z.strictObject({
    url: z.url({ protocol: /^https?$/, message: "must be an http or https URL" }).max(2000),
  }),
});

export const DisputeRequest = z.strictObject({
  reason: z.string().trim().min(10, { message: "must be at least 10 characters" }).max(2000),
});

/**
 * What the deliverable probe (lib/service/proofs/probe.ts) can find; only LIVE counts as proof.
 * The service stores and returns these, and the dashboard labels them, from this one list.
 */
export const PROOF_STATUSES = [
  /** Reached, not a login or error page, marker present (when the job set one). */
  "LIVE",
  /** Not an http(s) URL that can be parsed. */
  "INVALID_URL",
  /** Raw IP address, expiring tunnel or short-retention paste service (on any hop). */
  "DISALLOWED_HOST",
  /** Refused by the network policy: private address, reserved port, too many redirects. */
  "BLOCKED",
  /** The network gave no answer (timeout, DNS failure, reset, TLS failure): not proof. */
  "UNREACHABLE",
  /** The final answer was not a 2xx status. */
  "HTTP_ERROR",
  /** Needs credentials: 401, credentials in the URL, redirect to a sign-in page, sign-in form. */
  "LOGIN_REQUIRED",
  /** An error page (or empty artifact) served with a success status. */
  "ERROR_PAGE",
  /** The job's proofContentMarker is not in the first 256 KiB of the text artifact. */
  "MARKER_MISSING",
] as const;

export const ProofStatus = z.enum(PROOF_STATUSES);
export type ProofStatus = z.infer<typeof ProofStatus>;

/** Why a probe ran: the submission, the review queue's recheck, the poster's approval, the release. */
export const PROOF_TRIGGERS = ["SUBMISSION", "RECHECK", "APPROVAL", "RELEASE"] as const;
export const ProofTrigger = z.enum(PROOF_TRIGGERS);
export type ProofTrigger = z.infer<typeof ProofTrigger>;

export const ProofCheck = z.object({
  id: Uuid,
  jobId: Uuid,
  url: z.string(),
  trigger: ProofTrigger,
  status: ProofStatus,
  reason: z.string().nullable(),
  httpStatus: z.number().int().nullable(),
  finalUrl: z.string().nullable(),
  /** SHA-256 of the text the probe read (first 256 KiB) when LIVE: a change between checks means the content changed. */
  contentSha256: z.string().nullable(),
  checkedAt: Timestamp,
});

export const ListProofChecksQuery = z.strictObject({ limit: intParam(1, 100).optional(), cursor: Cursor.optional() });

export const ApproveJobRequest = z.strictObject({
  assignmentSignature: AssignmentSignature.optional().meta({
    description:
      "A job funded in EscrowV2 whose slot pays no agent yet (a bounty's claim): the payer's signature of the `assignment` a 409 ASSIGNMENT_SIGNATURE_REQUIRED answered (EIP-712). The service relays it on chain (assign) and approves once the agent is assigned.",
  }),
  approvalSignature: AssignmentSignature.optional().meta({
    description:
      "Optional, a job funded in EscrowV2 only: the payer's EIP-712 signature of the job's `escrowApproval.approval` (Approve(jobId, payer, agent, deadline), deadline the slot's expiry). Checked against the contract before anything is approved (400 APPROVAL_SIGNATURE_INVALID) and kept: the job's agent then sees it (escrowApproval.signature and .call) and can call releaseWithApproval itself if the service does not pay. Without it the approval works as before and only the service releases.",
  }),
});
