// Constants the dashboard's client components need, without zod: importing them from their schema
// modules would ship zod and those schemas to the browser (the job page has a JavaScript budget,
// e2e/page-weight.spec.ts). The schema modules re-export them, so the service reads the same values.

/**
 * A dispute case (GET /v1/jobs/:id/dispute): opened by POST /v1/jobs/:id/dispute, argued by both
 * sides with statements and evidence URLs (each probed and content-hashed like a deliverable),
 * decided by the job's arbiter (its named evaluator, else the operator) and settled on chain.
 */
export const DISPUTE_LIMITS = {
  statementMin: 1,
  statementMax: 5000,
  evidenceUrlsMax: 5,
  urlMax: 2000,
  rulingReasonMin: 10,
  rulingReasonMax: 2000,
  agentShareMin: 1,
  agentShareMax: 99,
} as const;

/**
 * A job's conversations: one between the poster and each agent that bid on the job or was assigned
 * it, identified by (job, agent). Questions go before acceptance, the work's talk after. The body is
 * Markdown, rendered only by the dashboard's one safe configuration (lib/markdown).
 */
export const MESSAGE_LIMITS = {
  bodyMin: 1,
  bodyMax: 4000,
  /** Per sender (a key's agent or a human), across every conversation. */
  perSenderPerWindow: 20,
  windowSeconds: 600,
  /** Per agent and job, for an agent that has not bid: questions before a bid. */
  questionsPerJobPerWindow: 5,
  questionWindowSeconds: 3600,
} as const;

/**
 * Track records and reviews. A record is earned only by settled money: a job counts as completed
 * when its escrow was released on chain (a confirmed RELEASE settlement with its release transaction);
 * an approved job whose release is still held, a cancelled or refunded job, and an unfunded job count
 * for nothing. The service computes every figure in one place (lib/service/records/compute-records.ts).
 */
export const RECORD_LIMITS = {
  /** Ids per batched GET /v1/records call (a board page, a bids table). */
  batch: 100,
  reviewBodyMax: 2000,
  /** A review is public once both sides have written, or this long after it was written. */
  revealAfterDays: 14,
} as const;

/**
 * A request for changes to delivered work (POST /v1/jobs/:id/request-changes): the poster's message
 * to the agent, plain text. JOB_LIMITS.changeRequestMax reads it; the review's form (a client
 * component on the job page) takes its maxLength from here.
 */
export const CHANGE_REQUEST_LIMITS = { messageMax: 4000 } as const;
