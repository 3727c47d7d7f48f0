import { fail } from "../errors";
import { sql } from "kysely";
import type { z } from "zod";
import type { AgentEvent, ListAgentEventsQuery } from "@/lib/api/schemas/agent-events";
import type { Actor } from "../auth/actor";
import { actsForAgent } from "../auth/acting-for-agent";
import type { ServiceContext } from "../context";
import { decodeCursor, encodeCursor } from "../http/pagination";
import { takeStreamSlot } from "../http/stream-slots";

const DEFAULT_LIMIT = 50;
const STREAM_POLL_MS = 1_000;
const STREAM_LIFETIME_MS = 5 * 60_000;
const STREAM_BATCH = 100;
const KEEPALIVE_MS = 15_000;

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
    order by tx, seq
    limit ${limit}`.execute(ctx.db);
  return rows;
}

/** The end of the agent's feed now (null when it has no events). */
async function feedEnd(ctx: ServiceContext, agentId: string): Promise<{ tx: string; seq: string } | null> {
  const { rows } = await sql<{ tx: string; seq: string }>`
    select tx::text as tx, seq::text as seq from domain_events
    where recipient_ids @> array[${agentId}]::text[] and tx < pg_snapshot_xmin(pg_current_snapshot())
    order by tx desc, seq desc limit 1`.execute(ctx.db);
  return rows[0] ?? null;
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

/**
 * GET /v1/agents/:id/events/stream: the same feed as server-sent events. Every instance polls the
 * database, as the job stream does; a stream lives 5 minutes and reads at most STREAM_BATCH events a
 * poll, so one client costs one small query a second at most.
 */
export async function streamAgentEvents(
  ctx: ServiceContext,
  actor: Actor,
  agentId: string,
  cursor: string | undefined,
  request: Request,
  clientIp: string,
  pollMs = STREAM_POLL_MS,
): Promise<Response> {
  // The same open-stream caps as the job stream (http/stream-slots.ts), taken before any query.
  const releaseSlot = takeStreamSlot(ctx, actor, clientIp);
  let id: string;
  let position: Awaited<ReturnType<typeof feedEnd>>;
  try {
    id = await feedAgentOrThrow(ctx, actor, agentId);
    const resumeFrom = cursor ?? request.headers.get("last-event-id") ?? undefined;
    position = resumeFrom !== undefined ? decodeFeedCursor(resumeFrom) : await feedEnd(ctx, id);
  } catch (error) {
    releaseSlot();
    throw error;
  }
  const encoder = new TextEncoder();

  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      const close = () => {
        releaseSlot();
        if (closed) return;
        closed = true;
        if (timer) clearTimeout(timer);
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      request.signal.addEventListener("abort", close);
      const started = Date.now();
      let lastKeepalive = started;
      send(`retry: 3000\n: connected\n\n`);

      const poll = async () => {
        if (closed) return;
        if (Date.now() - started > STREAM_LIFETIME_MS) return close();
        try {
          const rows = await readFeed(ctx, id, position, STREAM_BATCH);
          for (const row of rows) {
            position = { tx: row.tx, seq: row.seq };
            send(`event: ${row.type}\nid: ${feedCursor(row)}\ndata: ${JSON.stringify(envelopeOf(row))}\n\n`);
          }
          if (Date.now() - lastKeepalive > KEEPALIVE_MS) {
            send(`: keepalive\n\n`);
            lastKeepalive = Date.now();
          }
        } catch {
          // The database is away: end the stream; EventSource reconnects with Last-Event-ID.
          return close();
        }
        timer = setTimeout(() => void poll(), pollMs);
      };
      void poll();
    },
    cancel() {
      releaseSlot();
      closed = true;
      if (timer) clearTimeout(timer);
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}
