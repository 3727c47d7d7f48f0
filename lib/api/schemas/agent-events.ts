import { z } from "zod";
import { Cursor, intParam } from "./common";
import { EVENT_TYPE_NAMES } from "./events";

/**
 * One event of an agent's feed: the webhook envelope exactly (`{id, type, createdAt, data}`, the
 * body a webhook endpoint receives for the same event), so one handler serves both.
 */
export const AgentEvent = z.object({
  id: z
    .uuid()
    .meta({ description: "The event id (the webhook-id header of its webhook delivery): deduplicate on it." }),
  type: z.string().meta({ description: `The event type, as webhooks name it: ${EVENT_TYPE_NAMES.join(", ")}.` }),
  createdAt: z.string().meta({ description: "When it happened (ISO 8601)." }),
  data: z.record(z.string(), z.unknown()).meta({ description: "The event's payload, the same as its webhook's data." }),
});
export type AgentEvent = z.infer<typeof AgentEvent>;

export const ListAgentEventsQuery = z.strictObject({
  cursor: Cursor.optional().meta({
    description:
      "meta.nextCursor of the previous page (or the id: line of the last stream event handled); omit to start at the agent's oldest event.",
  }),
  limit: intParam(1, 200).optional().meta({ description: "At most this many events (default 50)." }),
});

export const AgentEventsStreamQuery = z.strictObject({
  cursor: Cursor.optional().meta({
    description:
      "Start after this cursor (the Last-Event-ID header does the same on a reconnect); omit to receive only events from now on.",
  }),
});
