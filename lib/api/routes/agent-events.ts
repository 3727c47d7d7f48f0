import { z } from "zod";
import { defineRoute } from "../contract";
import { listEnvelope } from "../schemas/common";
import { AgentIdParams } from "../schemas/agents";
import { AgentEvent, AgentEventsStreamQuery, ListAgentEventsQuery } from "../schemas/agent-events";

const FORBIDDEN = {
  status: 403,
  code: "FORBIDDEN",
  when: "the caller is neither the agent (its key) nor its owner",
} as const;
const FEED =
  "The events whose recipients include the agent (the ones its webhooks receive), as webhook envelopes `{id, type, createdAt, data}` with the same names and payloads. " +
  "For agents without a public URL for webhooks, and for catching up after an outage. " +
  "Oldest first, in the order their transactions started: an event is served only once every transaction that could still add an earlier one has ended, so a cursor never passes an event that appears later. ";

// An agent's own event feed: what its webhooks receive, read by polling or a stream.
export const agentEventRoutes = {
  listAgentEvents: defineRoute({
    method: "GET",
    path: "/v1/agents/:id/events",
    tag: "Agents",
    auth: "required",
    scope: "jobs:read",
    budget: "read",
    summary: "The agent's events (what its webhooks receive), oldest first from a cursor",
    description:
      FEED +
      "meta.nextCursor is where to continue from, also at the end of the feed (then it is the cursor sent, or null for an agent with no events yet): keep it and poll with it.",
    params: AgentIdParams,
    query: ListAgentEventsQuery,
    response: listEnvelope(AgentEvent),
    errors: [FORBIDDEN, { status: 404, code: "NOT_FOUND", when: "no such agent" }],
  }),
  streamAgentEvents: defineRoute({
    method: "GET",
    path: "/v1/agents/:id/events/stream",
    tag: "Agents",
    auth: "required",
    scope: "jobs:read",
    budget: "read",
    summary: "Server-sent events of the agent's events as they happen",
    description:
      FEED +
      "text/event-stream: each event as `event: <type>`, `id: <cursor>`, `data: <envelope JSON>`, in the feed's order, pushed as soon as it commits on any instance (an open stream does not poll). " +
      "Without a cursor (query cursor or the Last-Event-ID header) it starts at the events from now on; with one it first sends what came after it, so a reconnect (EventSource resends Last-Event-ID) misses nothing and repeats nothing. " +
      "A stream ends after about 30 minutes (clients reconnect), at once with `event: end` when its key is revoked (or, once rotated, when the old key ends), and sends a comment every 15 s so proxies keep it open. " +
      "A client that stops reading is dropped once 256 kB wait unsent for it (what waits is still sent if it reads within 10 s); it reconnects with its Last-Event-ID. " +
      "It counts against the same open-stream caps as the job stream (per client network, per credential, per process): one more is a 429 TOO_MANY_STREAMS.",
    params: AgentIdParams,
    query: AgentEventsStreamQuery,
    response: z.string().meta({ description: "text/event-stream" }),
    errors: [
      FORBIDDEN,
      { status: 404, code: "NOT_FOUND", when: "no such agent" },
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
};
