import { fail } from "../errors";
import { sql } from "kysely";
import type { z } from "zod";
import type { AgentEvent, ListAgentEventsQuery } from "@/lib/api/schemas/agent-events";
import type { Actor } from "../auth/actor";
import { actsForAgent } from "../auth/acting-for-agent";
import { assertNotSuspended } from "../auth/suspension";
import type { ServiceContext } from "../context";
import { decodeCursor, encodeCursor } from "../http/pagination";
import { takeStreamSlot } from "../http/stream-slots";
import { errorFields, log } from "../log";
import { comparePositions, feedEndNow, type FeedEvent } from "./event-bus";
import { streamHubOf } from "./stream-hub";

const DEFAULT_LIMIT = 50;
const STREAM_BATCH = 100;

/** A feed position: the event's transaction id and its seq (both integers, as text). */
const DIGITS = /^\d{1,20}$/;
const feedCursor = (row: { tx: string; seq: string }) => encodeCursor({ k: row.tx, id: row.seq });

function decodeFeedCursor(cursor: string | undefined): { tx: string; seq: string } | null {
  const position = decodeCursor(cursor, DIGITS, (k) => typeof k === "string" && DIGITS.test(k));
  return position ? { tx: String(position.k), seq: position.id } : null;
}

/** The agent, if the caller acts for it (its key, or its owner's session). */
async function feedAgentOrThrow(ctx: ServiceContext, actor: Actor, agentId: string): Promise<string> {
  if (actor.kind === "AGENT" && actor.agentId === agentId) return agentId;
  const agent = await ctx.db
    .selectFrom("agents")
    .select(["id", "owner_user_id"])
    .where("id", "=", agentId)
    .executeTakeFirst();
  if (!agent) throw fail("NOT_FOUND", "agent not found");
  if (!actsForAgent(actor, agent)) throw fail("FORBIDDEN", "only the agent (its key) and its owner read its events");
  return agent.id;
}

interface FeedRow {
  id: string;
  seq: string;
  tx: string;
  type: string;
  created_at: Date;
  data: Record<string, unknown>;
}

/**
 * The events addressed to the agent after `after`, in (tx, seq) order, and only those whose
 * transaction is older than every transaction still running (pg_snapshot_xmin): any event committed
 * later belongs to a running transaction, whose id is at least that xmin, so it sorts after all
 * that was served.
 */
async function readFeed(
  ctx: ServiceContext,
  agentId: string,
  after: { tx: string; seq: string } | null,
  limit: number,
): Promise<FeedRow[]> {
  const { rows } = await sql<FeedRow>`
    select id, seq::text as seq, tx::text as tx, type, created_at, data
    from domain_events
    where recipient_ids @> array[${agentId}]::text[]
      and tx < pg_snapshot_xmin(pg_current_snapshot())
      ${after ? sql`and (tx, seq) > (${after.tx}::xid8, ${after.seq}::bigint)` : sql``}
    -- The columns, not the text aliases of the select list (text sorts 10 before 9).
    order by domain_events.tx, domain_events.seq
    limit ${limit}`.execute(ctx.db);
  return rows;
}

/** The webhook envelope of an event (as deliver-webhooks.ts sends it). */
const envelopeOf = (row: FeedRow): AgentEvent => ({
  id: row.id,
  type: row.type,
  createdAt: new Date(row.created_at).toISOString(),
  data: row.data,
});

/** GET /v1/agents/:id/events */
export async function listAgentEvents(
  ctx: ServiceContext,
  actor: Actor,
  agentId: string,
  query: z.output<typeof ListAgentEventsQuery>,
) {
  const id = await feedAgentOrThrow(ctx, actor, agentId);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const after = decodeFeedCursor(query.cursor);
  const rows = await readFeed(ctx, id, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(envelopeOf),
    meta: { nextCursor: last ? feedCursor(last) : (query.cursor ?? null), hasMore: rows.length > limit, limit },
  };
}

/** Events a reconnecting stream keeps from the bus while it reads its backlog; past this it reads the database again. */
const PENDING_MAX = 1_000;

const sseOf = (event: FeedEvent) =>
  `event: ${event.type}\nid: ${feedCursor(event)}\ndata: ${JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: event.createdAt.toISOString(),
    data: event.data,
  })}\n\n`;

const feedEventOf = (row: FeedRow): FeedEvent => ({
  id: row.id,
  seq: row.seq,
  tx: row.tx,
  type: row.type,
  jobId: null,
  recipientIds: [],
  createdAt: new Date(row.created_at),
  data: row.data,
});

/**
 * GET /v1/agents/:id/events/stream: the same feed as server-sent events, fed by this process's event
 * bus (stream-hub.ts) in the feed's order: an open stream costs the database nothing. With a cursor
 * (query, or Last-Event-ID on a reconnect) it first subscribes, then reads what it missed from the
 * database, then sends what the bus brought meanwhile past that, so nothing is lost or sent twice.
 */
export async function streamAgentEvents(
  ctx: ServiceContext,
  actor: Actor,
  agentId: string,
  cursor: string | undefined,
  request: Request,
  clientIp: string,
): Promise<Response> {
  // The same open-stream caps as the job stream (http/stream-slots.ts), taken before any query.
  const releaseSlot = takeStreamSlot(ctx, actor, clientIp);
  const hub = streamHubOf(ctx);
  let id: string;
  let position: { tx: string; seq: string } | null;
  try {
    id = await feedAgentOrThrow(ctx, actor, agentId);
    // A suspended account is not live on the marketplace: suspension also ends its open streams.
    await assertNotSuspended(ctx.db, actor.principalId);
    const resumeFrom = cursor ?? request.headers.get("last-event-id") ?? undefined;
    position = resumeFrom !== undefined ? decodeFeedCursor(resumeFrom) : null;
    await hub.ready();
  } catch (error) {
    releaseSlot();
    throw error;
  }
  const stream = hub.open(actor, request.signal, releaseSlot);

  const deliver = (events: FeedEvent[]) => {
    for (const event of events) {
      if (position && comparePositions(event, position) <= 0) continue;
      if (!stream.send(sseOf(event))) return;
      position = event;
    }
  };
  // Subscribed first: what commits while the backlog (or where the feed ends) is read waits here,
  // and is sent after it.
  let pending: FeedEvent[] | null = [];
  let overflowed = false;
  hub.subscribeFeed(id, stream, (events) => {
    if (!pending) return deliver(events);
    if (pending.length + events.length > PENDING_MAX) overflowed = true;
    else pending.push(...events);
  });
  // Without a position the stream starts where the bus stands once it has read past every event
  // committed before now, and that place is taken before the answer's headers go out: a client that
  // has its 200 and then commits an event gets it (taken after, the event could be counted among
  // those before the stream). With one, the backlog is read while the stream is open.
  if (position) void catchUp();
  else await catchUp();
  return stream.response;

  /**
   * Without a position, the bus's once it has read past every event committed before now (what it
   * brings after that is new; new streams at once share that read); with one, the backlog after it,
   * read from the database in pages its socket keeps up with. Never throws: a failure ends the stream.
   */
  async function catchUp() {
    try {
      if (!position) {
        position = (await hub.bus.sync()) ?? (await feedEndNow(ctx.db));
        const waiting = pending ?? [];
        pending = null;
        deliver(waiting);
        return;
      }
      for (;;) {
        for (;;) {
          const rows = await readFeed(ctx, id, position, STREAM_BATCH);
          for (const row of rows) {
            // At the pace its reader takes them: a long backlog is not a slow reader.
            await stream.room();
            deliver([feedEventOf(row)]);
          }
          if (rows.length < STREAM_BATCH || !stream.open) break;
        }
        if (!overflowed) break;
        // More came meanwhile than is kept: read on from the database, which holds all of it.
        overflowed = false;
        pending = [];
      }
      const waiting = pending ?? [];
      pending = null;
      deliver(waiting);
    } catch (error) {
      // The database is away: end the stream; EventSource reconnects with Last-Event-ID.
      log.warn(errorFields(error), "agent event stream: reading the backlog failed");
      stream.end("error");
    }
  }
}
