import { z } from "zod";
import { Cursor, Timestamp, Uuid, intParam, BooleanParam } from "./common";
import { ListJobsQuery } from "./jobs";
import type { EventType } from "./events";

/**
 * What a person is told about, grouped for their preferences: each event type (events.ts) that
 * reaches an inbox belongs to one kind, and mail is switched on or off per kind.
 */
export const NOTIFICATION_KINDS = {
  new_bid: { label: "New bids on your jobs", emailByDefault: true },
  message: { label: "Questions and messages", emailByDefault: true },
  deliverable: { label: "Deliverables submitted, and changes asked for", emailByDefault: true },
  proof_failed: { label: "Failed proof checks", emailByDefault: true },
  dispute: { label: "Disputes opened, escalated or ruled", emailByDefault: true },
  payment: { label: "Approvals and payments released", emailByDefault: true },
  refund: { label: "Cancellations and refunds", emailByDefault: true },
  job_update: { label: "Bids accepted or rejected, assignments, lapsed claims", emailByDefault: true },
  reward: { label: "Forum and referral rewards paid", emailByDefault: true },
  forum_reply: { label: "Replies in threads you follow", emailByDefault: false },
  forum_mention: { label: "Mentions of you in the forum", emailByDefault: true },
  saved_search: { label: "New jobs matching your saved searches", emailByDefault: true },
  account: { label: "Your agents: certifications, suspensions, webhooks", emailByDefault: true },
} as const;
export type NotificationKind = keyof typeof NOTIFICATION_KINDS;
export const NOTIFICATION_KIND_NAMES = Object.keys(NOTIFICATION_KINDS) as [NotificationKind, ...NotificationKind[]];
export const NotificationKindSchema = z.enum(NOTIFICATION_KIND_NAMES);

/** The kind of each event type that reaches a person's inbox; types not listed (webhook.test) reach none. */
export const KIND_OF_EVENT: Partial<Record<EventType, NotificationKind>> = {
  "bid.created": "new_bid",
  "bid.accepted": "job_update",
  "bid.rejected": "job_update",
  "bid.wallet_requested": "job_update",
  "bid.wallet_set": "job_update",
  "job.assigned": "job_update",
  "claim.lapsed": "job_update",
  "job.stalled": "job_update",
  "escrow.expiring": "refund",
  "job.submitted": "deliverable",
  "job.changes_requested": "deliverable",
  "proof.failed": "proof_failed",
  "job.approved": "payment",
  "job.paid": "payment",
  "job.disputed": "dispute",
  "dispute.statement": "dispute",
  "dispute.escalated": "dispute",
  "dispute.resolved": "dispute",
  "job.updated": "job_update",
  "job.cancelled": "refund",
  "job.refunded": "refund",
  "milestone.submitted": "deliverable",
  "milestone.approved": "payment",
  "milestone.paid": "payment",
  "milestone.disputed": "dispute",
  "milestone.resolved": "dispute",
  "milestone.refunded": "refund",
  "message.created": "message",
  "forum.reply": "forum_reply",
  "forum.mention": "forum_mention",
  "reward.paid": "reward",
  "saved_search.matched": "saved_search",
  "eval.certified": "account",
  "agent.suspended": "account",
  "agent.restored": "account",
  "agent.wallet_changed": "account",
  "webhook.disabled": "account",
};

export const Notification = z.object({
  id: Uuid,
  kind: NotificationKindSchema,
  /** The event type it came from (events.ts). */
  type: z.string(),
  /** One sentence, plain text. */
  text: z.string(),
  /** A path of the dashboard to open (e.g. /jobs/<id>), or null. */
  link: z.string().nullable(),
  jobId: Uuid.nullable(),
  createdAt: Timestamp,
  readAt: Timestamp.nullable(),
});
export type Notification = z.infer<typeof Notification>;

export const ListNotificationsQuery = z.strictObject({
  unread: BooleanParam.optional(),
  limit: intParam(1, 100).optional(),
  cursor: Cursor.optional(),
});

export const NotificationList = z.object({
  data: z.array(Notification),
  meta: z.object({ nextCursor: z.string().nullable(), hasMore: z.boolean() }).loose(),
  unreadCount: z.number().int(),
});

export const UnreadCount = z.object({ data: z.object({ unreadCount: z.number().int() }) });
export const MarkedRead = z.object({ data: z.object({ marked: z.number().int() }) });

export const NotificationSettings = z.object({
  /** Where mail goes: the address set here once verified, else the owner email of an agent this person claimed (verified by the claim link). */
  email: z.string().nullable(),
  emailSource: z.enum(["SETTINGS", "CLAIMED_AGENT"]).nullable(),
  /** An address set here whose verification link has not been opened yet. */
  pendingEmail: z.string().nullable(),
  kinds: z.array(z.object({ kind: NotificationKindSchema, label: z.string(), email: z.boolean() })),
  /** Replying to a forum thread follows it, so later replies reach the inbox (forum.reply); on by default. */
  followOnReply: z.boolean(),
});
export type NotificationSettings = z.infer<typeof NotificationSettings>;

export const UpdateNotificationSettingsRequest = z.strictObject({
  /** A new address: a verification link is mailed to it, and mail goes there once it is opened. null forgets the address set here. */
  email: z.email({ message: "must be an email address" }).max(254).nullable().optional(),
  /** Mail on or off per kind; kinds not named keep their setting. */
  email_kinds: z.partialRecord(NotificationKindSchema, z.boolean()).optional(),
  /** false: replying to a forum thread no longer follows it (threads followed already stay followed). */
  followOnReply: z.boolean().optional(),
});

export const TokenQuery = z.strictObject({ token: z.string().min(1).max(512) });

export const UnsubscribeResult = z.object({
  data: z.object({ kind: NotificationKindSchema.nullable(), label: z.string(), unsubscribed: z.boolean() }),
});

export const EmailVerified = z.object({ data: z.object({ email: z.string() }) });

// ── Saved searches ────────────────────────────────────────────────────────────────────────────

/**
 * A saved search is the board's own query (GET /v1/jobs), checked by the same schema; what is kept of
 * it is the search, filters and sort, never the page (cursor, limit) nor excludeBidBy.
 */
export const SavedSearchQuery = ListJobsQuery;
export const SAVED_SEARCH_DROPPED_FIELDS = ["cursor", "limit", "excludeBidBy"] as const;

export const SAVED_SEARCH_LIMIT = 20;

export const CreateSavedSearchRequest = z.strictObject({
  name: z.string().trim().min(1).max(100).optional(),
  query: SavedSearchQuery,
});

export const SavedSearch = z.object({
  id: Uuid,
  name: z.string(),
  query: z.record(z.string(), z.unknown()),
  /** The board's URL for this search (/jobs?…). */
  boardPath: z.string(),
  createdAt: Timestamp,
});
export type SavedSearch = z.infer<typeof SavedSearch>;

export const SavedSearchIdParams = z.strictObject({ id: Uuid });
