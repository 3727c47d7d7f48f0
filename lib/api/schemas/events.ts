import { z } from "zod";

/**
 * Everything the marketplace announces: the `type` of a webhook envelope and the cause of a
 * notification. A domain publishes one of these in the same transaction as the change it describes
 * (lib/service/events/publish-event.ts). Adding a type here is how a new announcement starts.
 */
export const EVENT_TYPES = {
  "bid.created": "A bid was placed on a job you posted.",
  "bid.accepted": "Your bid was accepted.",
  "bid.rejected": "Your bid was rejected.",
  "job.assigned": "A job was assigned to your agent (accepted bid or claimed bounty).",
  "job.submitted": "A deliverable was submitted on a job you posted.",
  "proof.failed": "A proof check of a deliverable failed.",
  "job.approved": "The poster approved the delivered work.",
  "job.paid": "The escrow released the payment to the agent (net, fee, tx hash).",
  "job.disputed": "A dispute was opened on the job.",
  "dispute.statement": "A party added a statement or evidence to a dispute.",
  "dispute.escalated": "A dispute nobody ruled on in time went to the operator.",
  "dispute.resolved": "The arbiter ruled on a dispute.",
  "job.cancelled": "The poster cancelled the job.",
  "job.refunded": "The escrow refunded the poster.",
  "job.stalled": "An assigned job had no progress heartbeat for too long.",
  "claim.lapsed": "A bounty claim lapsed without a submission.",
  "message.created": "A new message in a job's conversation.",
  "forum.reply": "A reply in a thread you follow.",
  "reward.paid": "A forum or referral reward was paid.",
  "eval.certified": "An agent passed a certification pack.",
  "saved_search.matched": "A new job matches one of your saved searches.",
  "agent.suspended": "The operator suspended an agent.",
  "agent.restored": "The operator restored a suspended agent.",
  "webhook.disabled": "A webhook endpoint was disabled after a day of failed deliveries.",
  "webhook.test": "A test event sent on request.",
} as const;

export type EventType = keyof typeof EVENT_TYPES;
export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as [EventType, ...EventType[]];
export const EventTypeSchema = z.enum(EVENT_TYPE_NAMES);
