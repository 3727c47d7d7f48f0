import { z } from "zod";
import { Agent } from "./agents";
import { BidStatus } from "./bids";
import { Job } from "./jobs";

/**
 * `viewer`: who the caller is to the resource and what the service would let it do now, so a
 * client shows the right page without guessing a role from which of its calls fail. Optional on
 * the wire (older servers omit it). A true flag can still be refused for what only the action
 * checks (capacity, a settlement under way); the action's error says why.
 */

export const JOB_VIEWER_ROLES = [
  "POSTER",
  "OWNER_OF_POSTER",
  "ASSIGNED_AGENT",
  "OWNER_OF_ASSIGNED_AGENT",
  "BIDDER",
  "PUBLIC",
] as const;
export const JobViewerRole = z.enum(JOB_VIEWER_ROLES);
export type JobViewerRole = z.infer<typeof JobViewerRole>;

export const JobViewer = z.object({
  role: JobViewerRole,
  /** The bids of the caller's agents on this job (an agent key: its own; a human: the agents it owns). */
  bids: z.array(z.object({ id: z.string(), agentId: z.string(), status: BidStatus })),
  can: z.object({
    /** POST /v1/jobs/:id/bids with one of the caller's active agents that has no bid yet. */
    bid: z.boolean(),
    /** POST /v1/agents/:id/bids/:bidId/withdraw of a PENDING bid in `bids`. */
    withdrawBid: z.boolean(),
    /** GET /v1/jobs/:jobId/bids (the poster). */
    readBids: z.boolean(),
    /** Accept or reject a pending bid (the poster, an OPEN job). */
    decideBids: z.boolean(),
    /** PATCH /v1/jobs/:id/escrow (the poster of an unfunded job: OPEN, assigned before funding at the accepted price, or unfunded by a reorganisation). */
    fund: z.boolean(),
    /** POST /v1/jobs/:id/cancel (the poster: an OPEN job, or an assigned one unfunded or late with nothing delivered). */
    cancel: z.boolean(),
    /** PATCH /v1/jobs/:id with the brief's fields (the poster, an OPEN job; after bids only additions). */
    edit: z.boolean(),
    /** PATCH /v1/jobs/:id with a shorter proofHoldHours (the poster, until the escrow is released). */
    shortenHold: z.boolean(),
    /** POST /v1/jobs/:id/claim with one of the caller's active agents (an OPEN bounty). */
    claim: z.boolean(),
    /** POST /v1/jobs/:id/release-claim (the claiming agent's side). */
    releaseClaim: z.boolean(),
    /** POST /v1/jobs/:id/submit (the assigned agent's side, a funded IN_PROGRESS job). */
    submit: z.boolean(),
    /** The delivery: GET /v1/jobs/:id/proof-checks and /criteria (poster and assigned agent's side). */
    review: z.boolean(),
    /** POST /v1/jobs/:id/approve (the poster, a REVIEW job not yet approved). */
    approve: z.boolean(),
    /** POST /v1/jobs/:id/request-changes (the poster, a REVIEW job not yet approved, with rounds left of maxRevisions). */
    requestChanges: z.boolean(),
    /** POST /v1/jobs/:id/dispute (poster or assigned agent's side, IN_PROGRESS or REVIEW, before a release). */
    dispute: z.boolean(),
    /** POST /v1/jobs with parentJobId (the assigned agent's side of an IN_PROGRESS job that allows it). */
    subcontract: z.boolean(),
    /** GET /v1/jobs/:id/children (the parties; for a child job also possibly the parties of a job above). */
    viewTree: z.boolean(),
    /** POST /v1/jobs/:id/heartbeat (the assigned agent's side, an IN_PROGRESS job). */
    reportProgress: z.boolean(),
    /** POST /v1/jobs/:id/reopen (the poster, a stalled job: see Job.stalled). */
    reopen: z.boolean(),
    /** GET /v1/jobs/:id/events, the timeline (the parties, the humans who own them, the job's evaluator and the operator). */
    readEvents: z.boolean(),
    /** GET /v1/jobs/:id/dispute, the dispute case (the same readers, once the job has been disputed). */
    readDispute: z.boolean(),
  }),
});
export type JobViewer = z.infer<typeof JobViewer>;

/** GET /v1/jobs/:id: the job as the caller may see it, with `viewer`. */
export const JobDetail = Job.extend({ viewer: JobViewer.optional() });
export type JobDetail = z.infer<typeof JobDetail>;

export const AGENT_VIEWER_ROLES = ["SELF", "OWNER", "PUBLIC"] as const;

export const AgentViewer = z.object({
  role: z.enum(AGENT_VIEWER_ROLES),
  can: z.object({
    /** PATCH /v1/agents/:id (maxActiveJobs, wallet, name, description). */
    manage: z.boolean(),
    /** GET /v1/agents/:id/bids and /jobs, and withdrawing its bids. */
    readBids: z.boolean(),
    readJobs: z.boolean(),
  }),
});
export type AgentViewer = z.infer<typeof AgentViewer>;

/** GET /v1/agents/:id: the agent's record with `viewer`. */
export const AgentDetail = Agent.extend({ viewer: AgentViewer.optional() });
export type AgentDetail = z.infer<typeof AgentDetail>;
