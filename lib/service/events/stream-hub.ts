import { sql } from "kysely";
import type { Actor } from "../auth/actor";
import type { Db } from "../db/connection";
import { errorFields, log } from "../log";
import type { ServiceContext } from "../context";
import { databaseEventBus, notifyControl, type ControlMessage, type EventBus, type FeedEvent } from "./event-bus";

/**
 * Every server-sent event stream of this process, fed from the one event bus (event-bus.ts) in
 * memory: an agent's feed by its id, a job page by the job's id. An open stream costs the database
 * nothing until something it shows changes; it costs this process its socket and about the memory
 * the README states.
 *
 * - Keep-alives: one timer for all streams, which also ends a stream at its lifetime or when its key
 *   expires.
 * - Slow readers: a stream whose unsent bytes pass MAX_BUFFERED_BYTES (the socket took nothing for
 *   that long) is dropped, its buffer freed; the client reconnects with the Last-Event-ID it
 *   received and loses nothing.
 * - Credentials: a key revoked or a principal suspended on any instance ends the streams opened
 *   with it at once (ControlMessage); after the bus was cut off, the open streams' keys are read again.
 */

/** Unsent bytes a stream may hold beyond its socket's own buffers before it is dropped. */
export const MAX_BUFFERED_BYTES = 256 * 1024;
/**
 * A dropped slow reader's queue is still sent for this long, should its client read again (then the
 * stream ends cleanly after its last whole event); after it, the queue is discarded and the socket cut.
 */
export const SLOW_READER_GRACE_MS = 10_000;
/** The bus stops reading events this long after the process's last stream ended. */
const PAUSE_AFTER_MS = 60_000;
/** A comment on every stream this often, so proxies and load balancers keep idle ones open. */
export const KEEPALIVE_MS = 15_000;
/**
 * A stream ends after this long (give or take a tenth, so reconnections spread out) and the client
 * reconnects, possibly to another instance: a scale-out rebalances within it.
 */
export const STREAM_LIFETIME_MS = 30 * 60_000;

const encoder = new TextEncoder();

export type EndReason = "client" | "lifetime" | "slow" | "credential" | "error" | "shutdown";

/** One open server-sent event stream: its response, and a bounded buffer in front of its socket. */
export class LiveStream {
  readonly response: Response;
  readonly openedAt = Date.now();
  readonly endsAt = this.openedAt + STREAM_LIFETIME_MS * (0.9 + Math.random() * 0.2);
  /** When its credential ends (the key's expiry, or sooner once it is rotated), in ms; null: never. */
  credentialEndsAt: number | null;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private ended: EndReason | null = null;
  private readonly onEnd: Array<(reason: EndReason) => void> = [];
  private roomWaiter: (() => void) | null = null;

  constructor(
    /** Who opened it: its key (ended when the key is), its principal (ended when suspended). */
    readonly actor: Actor | null,
    signal: AbortSignal,
  ) {
    this.credentialEndsAt = actor?.kind === "AGENT" && actor.keyExpiresAt ? actor.keyExpiresAt.getTime() : null;
    this.response = new Response(
      new ReadableStream<Uint8Array>(
        {
          start: (controller) => {
            this.controller = controller;
          },
          // Called after every read and enqueue while there is any room: the waiter wants half.
          pull: () => {
            if ((this.controller.desiredSize ?? 0) > MAX_BUFFERED_BYTES / 2) {
              this.roomWaiter?.();
              this.roomWaiter = null;
            }
            // A dropped slow reader that caught up with its queue ends cleanly.
            if (this.ended === "slow" && this.controller.desiredSize === MAX_BUFFERED_BYTES) this.finish("close");
          },
          cancel: () => this.end("client"),
        },
        { highWaterMark: MAX_BUFFERED_BYTES, size: (chunk) => chunk.byteLength },
      ),
      {
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache, no-transform",
          connection: "keep-alive",
          "x-accel-buffering": "no",
        },
      },
    );
    if (signal.aborted) this.end("client");
    else signal.addEventListener("abort", () => this.end("client"), { once: true });
  }

  get open(): boolean {
    return this.ended === null;
  }

  get endReason(): EndReason | null {
    return this.ended;
  }

  /** Queues text for the socket; false once the stream has ended (or is dropped now, as a slow reader). */
  send(text: string): boolean {
    if (this.ended) return false;
    const bytes = encoder.encode(text);
    if ((this.controller.desiredSize ?? 0) < bytes.byteLength) {
      // The socket has not taken the last MAX_BUFFERED_BYTES: drop the stream and its buffer. The
      // client resumes from the last whole event it received (its Last-Event-ID).
      this.end("slow");
      return false;
    }
    this.controller.enqueue(bytes);
    return true;
  }

  /** Resolves once the buffer has room again (for a long catch-up that must not outrun its reader). */
  room(): Promise<void> {
    if (this.ended || (this.controller.desiredSize ?? 0) > MAX_BUFFERED_BYTES / 2) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = this.roomWaiter;
      this.roomWaiter = () => {
        previous?.();
        resolve();
      };
      this.whenEnded(() => resolve());
    });
  }

  private finished = false;

  /** Closes the response: `close` after what is queued, `error` at once (the queue discarded, the socket cut). */
  private finish(how: "close" | "error") {
    if (this.finished) return;
    this.finished = true;
    try {
      if (how === "close") this.controller.close();
      else this.controller.error(new Error("stream ended"));
    } catch {
      // already closed by the client
    }
  }

  whenEnded(callback: (reason: EndReason) => void): void {
    if (this.ended) callback(this.ended);
    else this.onEnd.push(callback);
  }

  /** Ends the stream: gently after its lifetime (what is queued is still sent), at once otherwise. */
  end(reason: EndReason, farewell?: string): void {
    if (this.ended) return;
    if (farewell && reason !== "slow" && reason !== "client") this.send(farewell);
    this.ended = reason;
    if (reason === "slow") {
      // Nothing more is queued. What is queued still goes out while its reader catches up (pull
      // closes the stream then); one that does not is cut after the grace, its queue discarded.
      const grace = setTimeout(() => this.finish("error"), SLOW_READER_GRACE_MS);
      grace.unref?.();
    } else this.finish(reason === "error" ? "error" : "close");
    this.roomWaiter?.();
    this.roomWaiter = null;
    for (const callback of this.onEnd.splice(0)) {
      try {
        callback(reason);
      } catch (error) {
        log.error(errorFields(error), "stream: an end handler failed");
      }
    }
  }
}

type FeedHandler = (events: FeedEvent[]) => void;

/** Figures for tests, the bench and operators. */
export interface HubStats {
  open: number;
  ended: Record<EndReason, number>;
  busReads: number;
  listening: boolean;
}

export class StreamHub {
  private readonly streams = new Set<LiveStream>();
  private readonly feeds = new Map<string, Map<LiveStream, FeedHandler>>();
  private readonly jobs = new Map<string, Map<LiveStream, () => void>>();
  /** How many changes of each watched job this process was told of: a read started after the last one is fresh. */
  private readonly jobGenerations = new Map<string, number>();
  private readonly ended: Record<EndReason, number> = {
    client: 0,
    lifetime: 0,
    slow: 0,
    credential: 0,
    error: 0,
    shutdown: 0,
  };
  private started: Promise<void> | null = null;
  private keepalive: ReturnType<typeof setInterval> | undefined;
  private pauseTimer: ReturnType<typeof setTimeout> | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    /** The primary: the bus reads it, and credentials are checked again on it. */
    private readonly db: Db,
    readonly bus: EventBus,
  ) {}

  /**
   * Starts the bus and the keep-alive timer with the first stream (a process that never streams
   * never listens), and has the bus read events (it stops a while after the last stream ends).
   */
  async ready(): Promise<void> {
    await this.start();
    if (this.pauseTimer) clearTimeout(this.pauseTimer);
    this.pauseTimer = undefined;
    await this.bus.resume();
  }

  private start(): Promise<void> {
    return (this.started ??= (async () => {
      this.unsubscribe = this.bus.subscribe({
        events: (events) => this.deliver(events),
        jobChanged: (jobId) => this.jobChanged(jobId),
        control: (message) => this.control(message),
        resumed: () => void this.recheck(),
      });
      await this.bus.start();
      this.keepalive = setInterval(() => this.tick(), KEEPALIVE_MS);
      this.keepalive.unref?.();
    })().catch((error) => {
      this.started = null;
      throw error;
    }));
  }

  /** A new stream of `actor`'s, counted until it ends; `release` runs when it ends, however it ends. */
  open(actor: Actor | null, signal: AbortSignal, release: () => void): LiveStream {
    const stream = new LiveStream(actor, signal);
    this.streams.add(stream);
    stream.whenEnded((reason) => {
      this.streams.delete(stream);
      this.ended[reason] += 1;
      release();
      if (this.streams.size === 0 && !this.pauseTimer) {
        this.pauseTimer = setTimeout(() => {
          this.pauseTimer = undefined;
          if (this.streams.size === 0) this.bus.pause();
        }, PAUSE_AFTER_MS);
        this.pauseTimer.unref?.();
      }
    });
    stream.send(`retry: 3000\n: connected\n\n`);
    return stream;
  }

  /** Calls `handler` with every committed event addressed to `recipientId`, while the stream is open. */
  subscribeFeed(recipientId: string, stream: LiveStream, handler: FeedHandler): void {
    subscribe(this.feeds, recipientId, stream, handler);
  }

  /** Calls `handler` whenever something the job's page shows changed, while the stream is open. */
  subscribeJob(jobId: string, stream: LiveStream, handler: () => void): void {
    subscribe(this.jobs, jobId, stream, handler);
    stream.whenEnded(() => {
      if (!this.jobs.has(jobId)) this.jobGenerations.delete(jobId);
    });
  }

  /** The count of changes of a watched job so far (undefined once nobody here watches it). */
  jobGeneration(jobId: string): number | undefined {
    return this.jobs.has(jobId) ? (this.jobGenerations.get(jobId) ?? 0) : undefined;
  }

  stats(): HubStats {
    const bus = this.bus.stats();
    return { open: this.streams.size, ended: { ...this.ended }, busReads: bus.reads, listening: bus.listening };
  }

  async close(): Promise<void> {
    if (this.keepalive) clearInterval(this.keepalive);
    if (this.pauseTimer) clearTimeout(this.pauseTimer);
    this.unsubscribe?.();
    for (const stream of [...this.streams]) stream.end("shutdown");
    await this.bus.close();
  }

  private deliver(events: FeedEvent[]) {
    // A job page wakes on its job's events (a bid placed, an edit), besides the changes LISTEN brings.
    if (this.jobs.size > 0) {
      const touched = new Set<string>();
      for (const event of events) if (event.jobId && this.jobs.has(event.jobId)) touched.add(event.jobId);
      for (const jobId of touched) this.jobChanged(jobId);
    }
    if (this.feeds.size === 0) return;
    // Per recipient, its events in the feed's order, handed over in one call.
    const byRecipient = new Map<string, FeedEvent[]>();
    for (const event of events) {
      for (const recipient of event.recipientIds) {
        if (!this.feeds.has(recipient)) continue;
        let list = byRecipient.get(recipient);
        if (!list) byRecipient.set(recipient, (list = []));
        list.push(event);
      }
    }
    for (const [recipient, list] of byRecipient) {
      for (const handler of [...(this.feeds.get(recipient)?.values() ?? [])]) guarded(() => handler(list));
    }
  }

  private jobChanged(jobId: string) {
    const handlers = this.jobs.get(jobId);
    if (!handlers) return;
    this.jobGenerations.set(jobId, (this.jobGenerations.get(jobId) ?? 0) + 1);
    for (const handler of [...handlers.values()]) guarded(handler);
  }

  private control(message: ControlMessage) {
    // A claim widens the agent's keys: its streams go on (their key cache forgets it, auth/actor.ts).
    if (message.kind === "agent.keys.changed") return;
    const at = message.kind === "credential.ended" && message.at ? Date.parse(message.at) : Date.now();
    for (const stream of [...this.streams]) {
      const actor = stream.actor;
      if (!actor) continue;
      const ends =
        message.kind === "credential.ended"
          ? actor.kind === "AGENT" && actor.keyId === message.keyId
          : actor.principalId === message.principalId;
      if (!ends) continue;
      if (at <= Date.now()) stream.end("credential", `event: end\ndata: {"reason":"${message.kind}"}\n\n`);
      // A rotated key's streams end with its overlap (the keep-alive timer looks).
      else stream.credentialEndsAt = Math.min(stream.credentialEndsAt ?? at, at);
    }
  }

  /**
   * After the bus was cut off: control messages of the gap may be lost, so the open streams' keys and
   * principals are read once more (one query for the whole process), and every watched job is
   * looked at again.
   */
  private async recheck() {
    const keyIds = new Set<string>();
    const principalIds = new Set<string>();
    for (const stream of this.streams) {
      if (stream.actor?.kind === "AGENT") keyIds.add(stream.actor.keyId);
      if (stream.actor) principalIds.add(stream.actor.principalId);
    }
    for (const jobId of [...this.jobs.keys()]) this.jobChanged(jobId);
    if (principalIds.size === 0) return;
    try {
      const { rows } = await sql<{ kind: string; id: string }>`
        select 'key' as kind, id::text as id from api_keys
          where id::text = any(${[...keyIds]}::text[]) and (revoked_at is not null or expires_at <= now())
        union all
        select 'principal', id::text from principals
          where id::text = any(${[...principalIds]}::text[]) and suspended_at is not null`.execute(this.db);
      for (const row of rows)
        this.control(
          row.kind === "key"
            ? { kind: "credential.ended", keyId: row.id }
            : { kind: "principal.suspended", principalId: row.id },
        );
    } catch (error) {
      log.warn(errorFields(error), "streams: checking credentials again failed");
    }
  }

  /** The one timer: keep-alives, lifetimes, expired keys. */
  private tick() {
    const now = Date.now();
    for (const stream of [...this.streams]) {
      if (stream.credentialEndsAt !== null && stream.credentialEndsAt <= now)
        stream.end("credential", `event: end\ndata: {"reason":"credential.expired"}\n\n`);
      else if (now >= stream.endsAt) stream.end("lifetime");
      else stream.send(`: keepalive\n\n`);
    }
  }
}

function subscribe<H>(index: Map<string, Map<LiveStream, H>>, key: string, stream: LiveStream, handler: H) {
  if (!stream.open) return;
  let entries = index.get(key);
  if (!entries) index.set(key, (entries = new Map()));
  entries.set(stream, handler);
  stream.whenEnded(() => {
    const current = index.get(key);
    current?.delete(stream);
    if (current?.size === 0) index.delete(key);
  });
}

function guarded(call: () => void) {
  try {
    call();
  } catch (error) {
    log.error(errorFields(error), "stream: a handler failed");
  }
}

/** The process's stream hub, made with its first stream, over the default bus of the service's primary. */
export function streamHubOf(ctx: ServiceContext): StreamHub {
  return (ctx.streams ??= new StreamHub(ctx.db, databaseEventBus(ctx.db)));
}

/**
 * Tells every instance, once the caller's transaction commits, that streams opened with a credential
 * must end (a key revoked). Through this process's bus when it has one, else the default carrier.
 */
export function publishControl(
  ctx: ServiceContext,
  trx: Parameters<typeof notifyControl>[0],
  message: ControlMessage,
): Promise<void> {
  return ctx.streams ? ctx.streams.bus.publishControl(trx, message) : notifyControl(trx, message);
}
