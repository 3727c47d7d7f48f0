import { sql } from "kysely";
import type { Actor } from "../auth/actor";
import type { ServiceContext } from "../context";
import { encodeCursor } from "../http/pagination";
import { listJobEvents } from "../jobs/job-timeline";
import { readsJobEvents } from "../jobs/job-viewer";
import { getJobRowWithLapse } from "../jobs/read-job";
import { takeStreamSlot } from "../http/stream-slots";
import { assertNotSuspended } from "../auth/suspension";
import { streamHubOf, type StreamHub } from "../events/stream-hub";
import { errorFields, log } from "../log";

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

/** Per hub and job, the fingerprint read after the job's latest change: one read for every stream of the job. */
const fingerprintReads = new WeakMap<
  StreamHub,
  Map<string, { generation: number; value: Promise<Fingerprint | null> }>
>();

/**
 * The job's fingerprint as of its latest change this process was told of (stream-hub.ts counts
 * them): read once for all of the job's streams here, a hundred viewers of one job cost one query a
 * change, and an idle job page costs none.
 */
function sharedFingerprint(ctx: ServiceContext, hub: StreamHub, jobId: string): Promise<Fingerprint | null> {
  let reads = fingerprintReads.get(hub);
  if (!reads) fingerprintReads.set(hub, (reads = new Map()));
  const generation = hub.jobGeneration(jobId) ?? -1;
  const hit = reads.get(jobId);
  if (hit && hit.generation === generation) return hit.value;
  const value = fingerprintOf(ctx, jobId);
  reads.set(jobId, { generation, value });
  value.catch(() => {
    if (reads.get(jobId)?.value === value) reads.delete(jobId);
  });
  return value;
}

/**
 * GET /v1/jobs/:id/stream: server-sent events for an open job page, fed by this process's event bus
 * (events/stream-hub.ts): whatever instance changes a row the page shows, the database tells every
 * instance after the commit (migration 0085-event-bus-notify), and each reads the job's fingerprint
 * once for all its streams of that job. Anyone gets `job` (the public state) when it changes; a
 * caller who may read the job's timeline (the parties and the operator, decided by job-viewer.ts as
 * for GET /v1/jobs/:id/events) also gets each new timeline event under its own type, as that route
 * writes it. Each open stream holds a slot of the caller's (http/stream-slots.ts), given back when it ends.
 */
export async function streamJob(
  ctx: ServiceContext,
  actor: Actor | null,
  jobId: string,
  request: Request,
  clientIp: string,
): Promise<Response> {
  // The slot first: a caller over the cap is refused before it costs a query.
  const releaseSlot = takeStreamSlot(ctx, actor, clientIp);
  const hub = streamHubOf(ctx);
  let party: boolean;
  try {
    // A suspended account is not live on the marketplace: suspension also ends its open streams.
    if (actor) await assertNotSuspended(ctx.db, actor.principalId);
    const job = await getJobRowWithLapse(ctx, jobId);
    party = actor !== null && (await readsJobEvents(ctx, actor, job));
    await hub.ready();
  } catch (error) {
    releaseSlot();
    throw error;
  }
  const stream = hub.open(actor, request.signal, releaseSlot);

  let last: Fingerprint | null = null;
  // Where the page's timeline ends now: only what happens after this is sent.
  let cursor: string | undefined;
  let busy = true;
  let again = false;
  const refresh = async () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        const now = await sharedFingerprint(ctx, hub, jobId);
        if (!now || now.all === last?.all) continue;
        if (JSON.stringify(now.public) !== JSON.stringify(last?.public))
          stream.send(`event: job\ndata: ${JSON.stringify(now.public)}\n\n`);
        if (party) {
          for (;;) {
            const page = await listJobEvents(ctx, actor!, jobId, { limit: 100, cursor });
            for (const event of page.items) {
              stream.send(`event: ${event.type}\nid: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`);
              cursor = encodeCursor({ k: event.at, id: event.id });
            }
            if (!page.meta.hasMore || !stream.open) break;
          }
        }
        last = now;
      } while (again && stream.open);
    } catch (error) {
      // The caller lost access (or the database is away): end the stream; EventSource retries.
      log.warn(errorFields(error), "job stream ended");
      stream.end("error");
    } finally {
      busy = false;
    }
  };
  // Subscribed before the first read: a change meanwhile is looked at right after it.
  hub.subscribeJob(jobId, stream, () => void refresh());
  stream.whenEnded(() => {
    if (hub.jobGeneration(jobId) === undefined) fingerprintReads.get(hub)?.delete(jobId);
  });
  try {
    last = await sharedFingerprint(ctx, hub, jobId);
    cursor = party ? await timelineEnd(ctx, actor!, jobId, undefined) : undefined;
  } catch {
    // The database is away: end at once (and give the slot back); EventSource retries.
    stream.end("error");
    return stream.response;
  }
  busy = false;
  if (again) void refresh();
  return stream.response;
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
