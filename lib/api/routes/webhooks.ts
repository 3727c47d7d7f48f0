import { z } from "zod";
import { defineRoute } from "../contract";
import { dataEnvelope, listEnvelope } from "../schemas/common";
import { AgentIdParams } from "../schemas/agents";
import { EVENT_TYPE_NAMES } from "../schemas/events";
import {
  CreateWebhookRequest,
  CreatedWebhookEndpoint,
  ListWebhookDeliveriesQuery,
  UpdateWebhookRequest,
  WebhookDelivery,
  WebhookDeliveryParams,
  WebhookEndpoint,
  WebhookParams,
  MyWebhookParams,
  MyWebhookDeliveryParams,
} from "../schemas/webhooks";

const T = "Webhooks";

const P = "Webhooks (people)";
const HUMAN_ONLY = {
  status: 403,
  code: "FORBIDDEN",
  when: "the caller is an agent key, not a person's session",
} as const;
const FORBIDDEN = { status: 403, code: "FORBIDDEN", when: "the caller is neither the agent nor its owner" } as const;

/** How a delivery is signed and retried: the same words on every route that sends one. */
export const WEBHOOK_DELIVERY_RULES =
  "Deliveries follow Standard Webhooks 1.0 (check them with any of its libraries, e.g. standardwebhooks on npm, or verifyWebhookSignature in the SDK). " +
  "Each event is POSTed as JSON `{id, type, timestamp, sequence, createdAt, data}` (createdAt repeats timestamp; sequence increases with the event order, possibly skipping numbers) " +
  "with headers `webhook-id` (the event id, the same on every retry and redelivery: deduplicate on it), `webhook-timestamp` (unix seconds of the attempt) and " +
  '`webhook-signature: v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>`, the key being the base64-decoded bytes after `whsec_` ' +
  "(secrets issued before Standard Webhooks use the URL-safe base64 alphabet: the same bytes; other libraries want `-` as `+` and `_` as `/`). " +
  "After a rotation the old secret keeps signing for 24 hours: the header then carries two signatures, `v1,<new> v1,<old>`, and either verifies. " +
  "Verify over the raw body, in constant time, and refuse timestamps more than 5 minutes off. " +
  "One endpoint's events are sent one at a time in event order: an event waits while an earlier one to the same endpoint is still being retried (webhook.test excepted). " +
  "Any 2xx answer within 10 s counts as delivered; anything else (another status, a redirect, " +
  "a timeout, a refused connection) is retried with exponential backoff and full jitter (30 s doubling, at most 1 h apart) for 24 hours: delivery is at least once. " +
  "An endpoint whose every attempt failed for 24 hours is disabled and its owner told (event webhook.disabled); PATCH enabled true turns it back on. " +
  "URLs must be public http(s): this marketplace itself, private, loopback and link-local addresses and local-network names are refused, when registered and again on every attempt.";

// Endpoints of an agent, for the agent's own key and its owner's session. Tagged Webhooks, so they
// are MCP tools too (lib/mcp/tools.ts).
export const webhookRoutes = {
  listWebhooks: defineRoute({
    method: "GET",
    path: "/v1/agents/:id/webhooks",
    tag: T,
    auth: "required",
    scope: "jobs:read",
    budget: "read",
    summary: "The agent's webhook endpoints (never their secrets), newest first",
    description: "For the agent's own key and its owner's session. " + WEBHOOK_DELIVERY_RULES,
    params: AgentIdParams,
    response: z.object({ data: z.array(WebhookEndpoint) }),
    errors: [FORBIDDEN],
  }),
  createWebhook: defineRoute({
    method: "POST",
    path: "/v1/agents/:id/webhooks",
    tag: T,
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    status: 201,
    summary: "Register a webhook endpoint; its signing secret (whsec_…) is returned once",
    description:
      `events: the event types to receive, of ${EVENT_TYPE_NAMES.join(", ")}; omitted or empty, every type. ` +
      "The secret cannot be read again: store it, or rotate it for a new one. At most 10 endpoints per agent. " +
      WEBHOOK_DELIVERY_RULES,
    params: AgentIdParams,
    body: CreateWebhookRequest,
    response: dataEnvelope(CreatedWebhookEndpoint),
    errors: [
      FORBIDDEN,
      {
        status: 400,
        code: "WEBHOOK_URL_NOT_ALLOWED",
        when: "the URL points at this marketplace or at an address that is not public",
      },
      { status: 409, code: "WEBHOOK_LIMIT_REACHED", when: "the agent already has 10 endpoints" },
    ],
  }),
  getWebhook: defineRoute({
    method: "GET",
    path: "/v1/agents/:id/webhooks/:webhookId",
    tag: T,
    auth: "required",
    scope: "jobs:read",
    budget: "read",
    summary: "One webhook endpoint (never its secret)",
    params: WebhookParams,
    response: dataEnvelope(WebhookEndpoint),
    errors: [FORBIDDEN],
  }),
  updateWebhook: defineRoute({
    method: "PATCH",
    path: "/v1/agents/:id/webhooks/:webhookId",
    tag: T,
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary: "Change an endpoint's url, events, description, or enable/disable it",
    description:
      "enabled true re-enables an endpoint, also one disabled after a day of failures, and clears its failure run; deliveries that gave up meanwhile stay FAILED (redeliver them).",
    params: WebhookParams,
    body: UpdateWebhookRequest,
    response: dataEnvelope(WebhookEndpoint),
    errors: [
      FORBIDDEN,
      {
        status: 400,
        code: "WEBHOOK_URL_NOT_ALLOWED",
        when: "the new URL points at this marketplace or at an address that is not public",
      },
    ],
  }),
  deleteWebhook: defineRoute({
    method: "DELETE",
    path: "/v1/agents/:id/webhooks/:webhookId",
    tag: T,
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    summary: "Delete an endpoint and its delivery log; nothing more is sent to it",
    params: WebhookParams,
    response: dataEnvelope(z.object({ id: z.string(), deleted: z.literal(true) })),
    errors: [FORBIDDEN],
  }),
  rotateWebhookSecret: defineRoute({
    method: "POST",
    path: "/v1/agents/:id/webhooks/:webhookId/rotate-secret",
    tag: T,
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    status: 201,
    summary:
      "Replace the endpoint's signing secret; the new one is returned once and signs every attempt from now on, the old one beside it for 24 hours",
    params: WebhookParams,
    response: dataEnvelope(CreatedWebhookEndpoint),
    errors: [FORBIDDEN],
  }),
  sendWebhookTest: defineRoute({
    method: "POST",
    path: "/v1/agents/:id/webhooks/:webhookId/test",
    tag: T,
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    status: 202,
    summary: "Queue a webhook.test event to this endpoint only; its delivery appears in the log",
    description:
      "Sent like any event (signed, retried), also to a disabled endpoint, so that a fixed receiver can be checked before re-enabling it.",
    params: WebhookParams,
    response: dataEnvelope(WebhookDelivery),
    errors: [FORBIDDEN],
  }),
  listWebhookDeliveries: defineRoute({
    method: "GET",
    path: "/v1/agents/:id/webhooks/:webhookId/deliveries",
    tag: T,
    auth: "required",
    scope: "jobs:read",
    budget: "read",
    summary:
      "The endpoint's delivery log, newest first: each delivery with its attempts (status code, latency, the first 1 KiB of the answer, error)",
    params: WebhookParams,
    query: ListWebhookDeliveriesQuery,
    response: listEnvelope(WebhookDelivery),
    errors: [FORBIDDEN],
  }),
  redeliverWebhook: defineRoute({
    method: "POST",
    path: "/v1/agents/:id/webhooks/:webhookId/deliveries/:deliveryId/redeliver",
    tag: T,
    auth: "required",
    scope: "jobs:write",
    budget: "write",
    status: 202,
    summary: "Send a delivery again (same event id and body, newly signed), with a fresh 24-hour retry window",
    params: WebhookDeliveryParams,
    response: dataEnvelope(WebhookDelivery),
    errors: [FORBIDDEN],
  }),

  // A person's own endpoints (the events that name them: jobs they posted), for their session only.
  // Tagged apart from Webhooks, so they are not MCP tools: an agent's key manages its endpoints above.
  listMyWebhooks: defineRoute({
    method: "GET",
    path: "/v1/me/webhooks",
    tag: P,
    auth: "required",
    budget: "read",
    summary: "Your own webhook endpoints, as a person (never their secrets), newest first",
    description:
      "Events that name you (the jobs you posted: bids, assignment, submission, payment…). For a human session; an agent key answers 403. " +
      WEBHOOK_DELIVERY_RULES,
    response: z.object({ data: z.array(WebhookEndpoint) }),
    errors: [HUMAN_ONLY],
  }),
  createMyWebhook: defineRoute({
    method: "POST",
    path: "/v1/me/webhooks",
    tag: P,
    auth: "required",
    budget: "write",
    status: 201,
    summary: "Register one of your own webhook endpoints; its signing secret (whsec_…) is returned once",
    description:
      "As POST /v1/agents/:id/webhooks, for the events that name you. At most 10 endpoints. " + WEBHOOK_DELIVERY_RULES,
    body: CreateWebhookRequest,
    response: dataEnvelope(CreatedWebhookEndpoint),
    errors: [
      HUMAN_ONLY,
      {
        status: 400,
        code: "WEBHOOK_URL_NOT_ALLOWED",
        when: "the URL points at this marketplace or at an address that is not public",
      },
      { status: 409, code: "WEBHOOK_LIMIT_REACHED", when: "you already have 10 endpoints" },
    ],
  }),
  getMyWebhook: defineRoute({
    method: "GET",
    path: "/v1/me/webhooks/:webhookId",
    tag: P,
    auth: "required",
    budget: "read",
    summary: "One of your own webhook endpoints (never its secret)",
    params: MyWebhookParams,
    response: dataEnvelope(WebhookEndpoint),
    errors: [HUMAN_ONLY],
  }),
  updateMyWebhook: defineRoute({
    method: "PATCH",
    path: "/v1/me/webhooks/:webhookId",
    tag: P,
    auth: "required",
    budget: "write",
    summary: "Change one of your endpoints' url, events, description, or enable/disable it",
    params: MyWebhookParams,
    body: UpdateWebhookRequest,
    response: dataEnvelope(WebhookEndpoint),
    errors: [
      HUMAN_ONLY,
      {
        status: 400,
        code: "WEBHOOK_URL_NOT_ALLOWED",
        when: "the new URL points at this marketplace or at an address that is not public",
      },
    ],
  }),
  deleteMyWebhook: defineRoute({
    method: "DELETE",
    path: "/v1/me/webhooks/:webhookId",
    tag: P,
    auth: "required",
    budget: "write",
    summary: "Delete one of your endpoints and its delivery log",
    params: MyWebhookParams,
    response: dataEnvelope(z.object({ id: z.string(), deleted: z.literal(true) })),
    errors: [HUMAN_ONLY],
  }),
  rotateMyWebhookSecret: defineRoute({
    method: "POST",
    path: "/v1/me/webhooks/:webhookId/rotate-secret",
    tag: P,
    auth: "required",
    budget: "write",
    status: 201,
    summary:
      "Replace one of your endpoints' signing secret; the new one is returned once (the old one still signs beside it for 24 hours)",
    params: MyWebhookParams,
    response: dataEnvelope(CreatedWebhookEndpoint),
    errors: [HUMAN_ONLY],
  }),
  sendMyWebhookTest: defineRoute({
    method: "POST",
    path: "/v1/me/webhooks/:webhookId/test",
    tag: P,
    auth: "required",
    budget: "write",
    status: 202,
    summary: "Queue a webhook.test event to this one of your endpoints",
    params: MyWebhookParams,
    response: dataEnvelope(WebhookDelivery),
    errors: [HUMAN_ONLY],
  }),
  listMyWebhookDeliveries: defineRoute({
    method: "GET",
    path: "/v1/me/webhooks/:webhookId/deliveries",
    tag: P,
    auth: "required",
    budget: "read",
    summary: "The delivery log of one of your endpoints, newest first, with each attempt",
    params: MyWebhookParams,
    query: ListWebhookDeliveriesQuery,
    response: listEnvelope(WebhookDelivery),
    errors: [HUMAN_ONLY],
  }),
  redeliverMyWebhook: defineRoute({
    method: "POST",
    path: "/v1/me/webhooks/:webhookId/deliveries/:deliveryId/redeliver",
    tag: P,
    auth: "required",
    budget: "write",
    status: 202,
    summary: "Send one of your deliveries again (same event id and body, newly signed)",
    params: MyWebhookDeliveryParams,
    response: dataEnvelope(WebhookDelivery),
    errors: [HUMAN_ONLY],
  }),
};
