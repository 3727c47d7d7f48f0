import { sql } from "kysely";
import type { Actor } from "../auth/actor";
import type { ServiceContext } from "../context";
import { encodeCursor } from "../http/pagination";
import { listJobEvents } from "../jobs/job-timeline";
import { readsJobEvents } from "../jobs/job-viewer";
import { getJobRowWithLapse } from "../jobs/read-job";
import { takeStreamSlot } from "../http/stream-slots";
import { errorFields, log } from "../log";

const STREAM_POLL_MS = 1_000;
const STREAM_LIFETIME_MS = 5 * 60_000;
const KEEPALIVE_MS = 15_000;

interface Fingerprint {
  /** What anyone may see: the page's public state. */
  public: { status: string; funded: boolean; bidCount: number; updatedAt: string };
  /** Everything the timeline is made of: when it changes, a party's stream reads the timeline. */
  all: string;
}

/**
 * One cheap query per poll: the job's public state, and a fingerprint of every row its timeline is
 * derived from (job-timeline.ts), so the timeline itself is read only when something changed.
 */
async function fingerprintOf(ctx: ServiceContext, jobId: string): Promise<Fingerprint | null> {
  const { rows } = await sql<{ status: string; funded: boolean; bid_count: number; updated_at: Date; rest: string }>`
    select j.status, j.escrow_tx_hash is not null as funded, j.updated_at, j.bid_count,
      concat_ws('|',
        (select max(updated_at)::text from bids b where b.job_id = j.id),
        (select count(*)::text || ':' || coalesce(max(checked_at)::text, '') from proof_checks p where p.job_id = j.id),
        (select max(updated_at)::text from job_criteria_results c where c.job_id = j.id),
        (select count(*)::text from escrow_settlements s where s.job_id = j.id and s.status = 'CONFIRMED'),
        (select max(coalesce(ended_at, claimed_at))::text from job_claims k where k.job_id = j.id),
        (select max(updated_at)::text from job_milestones m where m.job_id = j.id),
        (select count(*)::text from milestone_settlements ms where ms.job_id = j.id and ms.status = 'CONFIRMED')
      ) as rest
    from jobs j where j.id = ${jobId}`.execute(ctx.db);
  const row = rows[0];
  if (!row) return null;
  const pub = {
    status: row.status,
    funded: row.funded,
    bidCount: Number(row.bid_count),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
  return { public: pub, all: `${JSON.stringify(pub)}|${row.rest}` };
}

const fingerprintsByService = new WeakMap<
  ServiceContext,
  Map<string, { at: number; value: Promise<Fingerprint | null> }>
>();

/**
 * The job's fingerprint, read once for every stream of the job in this process that polls within
 * `maxAgeMs`: a hundred viewers of one job cost one query a poll, not a hundred.
 */
function sharedFingerprint(ctx: ServiceContext, jobId: string, maxAgeMs: number): Promise<Fingerprint | null> {
  let recent = fingerprintsByService.get(ctx);
  if (!recent) fingerprintsByService.set(ctx, (recent = new Map()));
  const now = Date.now();
  const hit = recent.get(jobId);
  if (hit && now - hit.at < maxAgeMs) return hit.value;
  if (recent.size > 10_000) for (const [key, entry] of recent) if (now - entry.at >= maxAgeMs) recent.delete(key);
  const value = fingerprintOf(ctx, jobId);
  recent.set(jobId, { at: now, value });
  value.catch(() => recent.delete(jobId));
  return value;
}

/**
 * GET /v1/jobs/:id/stream: server-sent events for an open job page. Every instance polls the
 * database (no process memory is shared), so a bid placed through any instance reaches every
 * stream within a poll. Anyone gets `job` (the public state) when it changes; a caller who may read
 * the job's timeline (the parties and the operator, decided by job-viewer.ts as for GET
 * /v1/jobs/:id/events) also gets each new timeline event under its own type, as that route writes it.
 * Each open stream holds a slot of the caller's (http/stream-slots.ts), given back when it ends.
 */
export async function streamJob(
  ctx: ServiceContext,
  actor: Actor | null,
  jobId: string,
  request: Request,
  clientIp: string,
  pollMs = STREAM_POLL_MS,
): Promise<Response> {
  // The slot first: a caller over the cap is refused before it costs a query.
  const releaseSlot = takeStreamSlot(ctx, actor, clientIp);
  let party: boolean;
  try {
    const job = await getJobRowWithLapse(ctx, jobId);
    party = actor !== null && (await readsJobEvents(ctx, actor, job));
  } catch (error) {
    releaseSlot();
    throw error;
  }
  const encoder = new TextEncoder();

  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
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
      if (request.signal.aborted) return close();
      const started = Date.now();
      let lastKeepalive = started;
      let last = await sharedFingerprint(ctx, jobId, pollMs / 2).catch(() => null);
      // Where the page's timeline ends now: only what happens after this is sent.
      let cursor: string | undefined;
      try {
        cursor = party ? await timelineEnd(ctx, actor!, jobId, undefined) : undefined;
      } catch {
        // The database is away: end at once (and give the slot back); EventSource retries.
        return close();
      }
      send(`retry: 3000\n: connected\n\n`);

      const poll = async () => {
        if (closed) return;
        if (Date.now() - started > STREAM_LIFETIME_MS) return close();
        try {
          const now = await sharedFingerprint(ctx, jobId, pollMs / 2);
          if (now && now.all !== last?.all) {
            if (JSON.stringify(now.public) !== JSON.stringify(last?.public))
              send(`event: job\ndata: ${JSON.stringify(now.public)}\n\n`);
            if (party) {
              for (;;) {
                const page = await listJobEvents(ctx, actor!, jobId, { limit: 100, cursor });
                for (const event of page.items) {
                  send(`event: ${event.type}\nid: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`);
                  cursor = encodeCursor({ k: event.at, id: event.id });
                }
                if (!page.meta.hasMore) break;
              }
            }
            last = now;
          }
          if (Date.now() - lastKeepalive > KEEPALIVE_MS) {
            send(`: keepalive\n\n`);
            lastKeepalive = Date.now();
          }
        } catch (error) {
          // The caller lost access (or the database is away): end the stream; EventSource retries.
          log.warn(errorFields(error), "job stream ended");
          return close();
        }
        timer = setTimeout(() => void poll(), pollMs);
      };
      timer = setTimeout(() => void poll(), pollMs);
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

/** The cursor just past the timeline's last event now (undefined for an empty timeline). */
async function timelineEnd(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  from: string | undefined,
): Promise<string | undefined> {
  let cursor = from;
  for (;;) {
    const page = await listJobEvents(ctx, actor, jobId, { limit: 500, cursor });
    const last = page.items[page.items.length - 1];
    if (last) cursor = encodeCursor({ k: last.at, id: last.id });
    if (!page.meta.hasMore) return cursor;
  }
}
