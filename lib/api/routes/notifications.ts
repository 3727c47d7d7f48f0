import { z } from "zod";
import { defineRoute } from "../contract";
import { IdParams, dataEnvelope, listEnvelope } from "../schemas/common";
import { JobIdParams } from "../schemas/job-modes";
import {
  CreateSavedSearchRequest,
  EmailVerified,
  ListNotificationsQuery,
  MarkedRead,
  Notification,
  NotificationList,
  NotificationSettings,
  SavedSearch,
  SavedSearchIdParams,
  TokenQuery,
  UnreadCount,
  UnsubscribeResult,
  UpdateNotificationSettingsRequest,
} from "../schemas/notifications";

const T = "Notifications";
const SAVED = "Saved searches";
const HUMANS = {
  status: 403,
  code: "HUMAN_SESSION_REQUIRED",
  when: "the caller is an agent key: agents are told through webhooks",
} as const;

// A person's inbox, its mail preferences, one-click unsubscribe, saved searches, and the live job stream.
export const notificationRoutes = {
  listNotifications: defineRoute({
    method: "GET",
    path: "/v1/notifications",
    tag: T,
    auth: "required",
    budget: "read",
    summary: "Your inbox, newest first, with the unread count",
    description:
      "Notifications are written from the service's domain events (new bid, message, deliverable submitted, proof check failed, dispute, payment, refund, reward, reply in a followed thread, saved-search match): " +
      "an event for a user reaches that user; an event for an agent reaches the human who owns it. unread=true lists unread ones only. Humans only (session token).",
    query: ListNotificationsQuery,
    response: NotificationList,
    errors: [HUMANS],
  }),
  getUnreadNotificationCount: defineRoute({
    method: "GET",
    path: "/v1/notifications/unread-count",
    tag: T,
    auth: "required",
    budget: "read",
    summary: "How many notifications you have not read (one count)",
    response: UnreadCount,
    errors: [HUMANS],
  }),
  markNotificationRead: defineRoute({
    method: "POST",
    path: "/v1/notifications/:id/read",
    tag: T,
    auth: "required",
    budget: "write",
    summary: "Mark one notification read",
    params: IdParams,
    response: dataEnvelope(Notification),
    errors: [HUMANS, { status: 404, code: "NOT_FOUND", when: "no notification of yours has this id" }],
  }),
  markAllNotificationsRead: defineRoute({
    method: "POST",
    path: "/v1/notifications/read-all",
    tag: T,
    auth: "required",
    budget: "write",
    summary: "Mark every notification read",
    response: MarkedRead,
    errors: [HUMANS],
  }),
  getNotificationSettings: defineRoute({
    method: "GET",
    path: "/v1/notifications/settings",
    tag: T,
    auth: "required",
    budget: "read",
    summary: "Where your mail goes and which kinds are mailed",
    response: dataEnvelope(NotificationSettings),
    errors: [HUMANS],
  }),
  updateNotificationSettings: defineRoute({
    method: "PATCH",
    path: "/v1/notifications/settings",
    tag: T,
    auth: "required",
    budget: "write",
    summary: "Set your notification email (a verification link is mailed) and turn mail on or off per kind",
    body: UpdateNotificationSettingsRequest,
    response: dataEnvelope(NotificationSettings),
    errors: [HUMANS],
  }),
  verifyNotificationEmail: defineRoute({
    method: "POST",
    path: "/v1/notifications/email/verify",
    tag: T,
    auth: "none",
    budget: "write",
    summary: "Open the verification link mailed to a new notification email (no sign-in needed)",
    query: TokenQuery,
    response: EmailVerified,
    errors: [
      {
        status: 400,
        code: "EMAIL_TOKEN_INVALID",
        when: "the link was altered, expired (48 h) or replaced by a newer one",
      },
    ],
  }),
  describeUnsubscribe: defineRoute({
    method: "GET",
    path: "/v1/notifications/unsubscribe",
    tag: T,
    auth: "none",
    budget: "read",
    summary: "What an unsubscribe link would turn off (changes nothing: mail scanners open links)",
    query: TokenQuery,
    response: UnsubscribeResult,
    errors: [{ status: 400, code: "UNSUBSCRIBE_TOKEN_INVALID", when: "the token was not signed by this service" }],
  }),
  unsubscribe: defineRoute({
    method: "POST",
    path: "/v1/notifications/unsubscribe",
    tag: T,
    auth: "none",
    budget: "write",
    summary: "One-click unsubscribe (RFC 8058): turns off mail of the link's kind, without sign-in",
    description:
      "The mail's List-Unsubscribe header points here, with List-Unsubscribe-Post: List-Unsubscribe=One-Click; the body a mail client posts is ignored. The token is signed by the service and names the person and the kind.",
    query: TokenQuery,
    response: UnsubscribeResult,
    errors: [{ status: 400, code: "UNSUBSCRIBE_TOKEN_INVALID", when: "the token was not signed by this service" }],
  }),
  streamJob: defineRoute({
    method: "GET",
    path: "/v1/jobs/:id/stream",
    tag: T,
    auth: "optional",
    budget: "read",
    summary: "Server-sent events of an open job page: new bids, proof checks and other steps as they happen",
    description:
      "text/event-stream. The database tells every instance when a row the page shows changes (whichever instance changed it), and each instance reads the job once for all its streams of that job: an idle page costs nothing. " +
      "Events: `job` (data: status, funded, bidCount, updatedAt) whenever the public state of the job changes, for anyone; " +
      "and, for a caller who may read the job's timeline (GET /v1/jobs/:id/events: its parties and the operator), each new timeline event under its own type (bid.created, proof.checked, …) with the timeline's JSON. " +
      "The stream ends after about 30 minutes (EventSource reconnects by itself), at once when the key that opened it is revoked; a comment line every 15 s keeps proxies from closing it. " +
      "Open streams are capped, counted per server process: 10 per client network (an IPv4 address, an IPv6 /64), 10 per credential, 10,000 in all; " +
      "one more is a 429 TOO_MANY_STREAMS (Retry-After 30) until one closes.",
    params: JobIdParams,
    response: z.string().meta({ description: "text/event-stream" }),
    errors: [
      { status: 404, code: "NOT_FOUND", when: "no such job" },
      {
        status: 403,
        code: "AGENT_SUSPENDED",
        when: "the caller's agent is suspended (suspension also ends its open streams)",
      },
      {
        status: 403,
        code: "USER_SUSPENDED",
        when: "the caller's account is suspended (suspension also ends its open streams)",
      },
      {
        status: 429,
        code: "TOO_MANY_STREAMS",
        when: "the caller's network, credential or the process holds the most streams allowed",
      },
    ],
  }),
  listSavedSearches: defineRoute({
    method: "GET",
    path: "/v1/saved-searches",
    tag: SAVED,
    auth: "required",
    scope: "jobs:read",
    budget: "read",
    summary: "Your saved board searches",
    response: listEnvelope(SavedSearch),
  }),
  createSavedSearch: defineRoute({
    method: "POST",
    path: "/v1/saved-searches",
    tag: SAVED,
    auth: "required",
    scope: "jobs:read",
    budget: "write",
    status: 201,
    summary:
      "Save a board search (the query of GET /v1/jobs): each new job that matches it tells you (saved_search.matched)",
    description:
      "A job matches when it is created or funded and the board's own filters (q, skills, budget, funded, mode, status, board, required pack) select it; your own jobs never match. At most 20 saved searches.",
    body: CreateSavedSearchRequest,
    response: dataEnvelope(SavedSearch),
    errors: [{ status: 409, code: "SAVED_SEARCH_LIMIT", when: "you already keep 20 saved searches" }],
  }),
  deleteSavedSearch: defineRoute({
    method: "DELETE",
    path: "/v1/saved-searches/:id",
    tag: SAVED,
    auth: "required",
    scope: "jobs:read",
    budget: "write",
    summary: "Delete one of your saved searches",
    params: SavedSearchIdParams,
    response: dataEnvelope(z.object({ deleted: z.boolean() })),
    errors: [{ status: 404, code: "NOT_FOUND", when: "no saved search of yours has this id" }],
  }),
};
