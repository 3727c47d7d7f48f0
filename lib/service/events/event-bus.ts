import pg from "pg";
import { sql } from "kysely";
import type { PGlite } from "@electric-sql/pglite";
import { databaseSourceOf, pgConnectionSettings, type Db } from "../db/connection";
import { errorFields, log } from "../log";

/**
 * The event bus: how a process learns, once, of what committed anywhere (any process, any
 * instance), so that its open streams are fed from memory instead of each polling the database.
 *
 * The default carrier is the database itself. Events: while a process has streams open, it reads
 * domain_events once a tick (POLL_MS) past the position it has delivered, in the feed's order
 * (tx, seq), and only below the oldest transaction still running (pg_snapshot_xmin), as the agent
 * feed serves them: one read serves every stream of the process, however many, and nothing is
 * delivered twice or out of order. Not NOTIFY from the writers: NOTIFY makes notifying transactions
 * commit one at a time, and on this machine cut 50 writers' commits from 1,496 to 172 a second
 * (docs/deployment.md). LISTEN (one connection per process) carries only what is rare: job-page
 * changes no event announces, and control messages (a key revoked, a principal suspended), which
 * must end streams on every instance at once. A LISTEN connection that is lost is opened again, and
 * its listeners check again what it may have missed (BusListener.resumed).
 *
 * Another broker (NATS JetStream, Redis streams) plugs in behind EventBus; docs/deployment.md says
 * when the database stops being enough.
 */

export const BUS_CHANNEL = "awm_bus";

/** A place in the feed: the inserting transaction's id and the event's seq (integers, as text). */
export interface FeedPosition {
  tx: string;
  seq: string;
}

/** A committed domain event, as the bus delivers it. */
export interface FeedEvent extends FeedPosition {
  id: string;
  type: string;
  jobId: string | null;
  /** User ids and agent ids the event concerns (publish-event.ts). */
  recipientIds: string[];
  createdAt: Date;
  data: Record<string, unknown>;
}

/**
 * What one instance tells every instance, besides events: a credential that must stop reading now,
 * or keys whose scopes or owner changed. Each of them also empties every instance's key cache
 * (auth/actor.ts), so no instance serves a key as it was before the change.
 */
export type ControlMessage =
  /** A key revoked (now) or rotated (it ends `at`, the end of its overlap). */
  | { kind: "credential.ended"; keyId: string; at?: string }
  | { kind: "principal.suspended"; principalId: string }
  /** The agent's keys resolve to something else (the owner's claim: a new owner, wider scopes); its streams go on. */
  | { kind: "agent.keys.changed"; agentId: string };

export interface BusListener {
  /** Committed events, in the feed's order, each once. */
  events?(events: FeedEvent[]): void;
  /** A job whose page (public state or timeline) may have changed. */
  jobChanged?(jobId: string): void;
  control?(message: ControlMessage): void;
  /**
   * The bus was cut off from its carrier and is back. Events of the gap still arrive (they are read
   * from the bus's position); control messages and job changes of the gap may be lost, so a listener
   * checks again what they would have told it.
   */
  resumed?(): void;
}

/** A handle that runs statements: the service's database or a transaction on it. */
type Executor = Pick<Db, "executeQuery">;

export interface EventBus {
  /** Starts carrying (idempotent); resolves once listening. */
  start(): Promise<void>;
  /** Delivers events from now on (idempotent): the process has streams open. */
  resume(): Promise<void>;
  /** Stops delivering events: the process has no stream left. */
  pause(): void;
  /**
   * Resolves with the bus's position once a read that began after the call has delivered: every
   * event committed before the call is at or below it. Calls at once share one read, so a crowd of
   * new streams costs one query, not one each.
   */
  sync(): Promise<FeedPosition | null>;
  subscribe(listener: BusListener): () => void;
  /** Sends a control message to every instance, in the caller's transaction: it leaves only if that commits. */
  publishControl(db: Executor, message: ControlMessage): Promise<void>;
  /** How the bus stands, for tests and the bench. */
  stats(): { listening: boolean; reads: number; position: FeedPosition | null };
  close(): Promise<void>;
}

export function comparePositions(a: FeedPosition, b: FeedPosition): number {
  const tx = BigInt(a.tx) - BigInt(b.tx);
  if (tx !== 0n) return tx < 0n ? -1 : 1;
  const seq = BigInt(a.seq) - BigInt(b.seq);
  return seq === 0n ? 0 : seq < 0n ? -1 : 1;
}

interface EventRow {
  id: string;
  seq: string;
  tx: string;
  type: string;
  job_id: string | null;
  recipient_ids: string[];
  created_at: Date;
  data: Record<string, unknown>;
}

const toEvent = (row: EventRow): FeedEvent => ({
  id: row.id,
  seq: row.seq,
  tx: row.tx,
  type: row.type,
  jobId: row.job_id,
  recipientIds: row.recipient_ids ?? [],
  createdAt: new Date(row.created_at),
  data: row.data,
});

/**
 * Every event after `after`, in the feed's order, of transactions older than any still running:
 * any later commit belongs to a transaction whose id is at least the snapshot's xmin, so it sorts
 * after all that was read (migration 0041-agent-event-feed).
 */
async function readEventsAfter(db: Db, after: FeedPosition, limit: number): Promise<FeedEvent[]> {
  const { rows } = await sql<EventRow>`
    select id, seq::text as seq, tx::text as tx, type, job_id, recipient_ids, created_at, data
    from domain_events
    where tx < pg_snapshot_xmin(pg_current_snapshot())
      and (tx, seq) > (${after.tx}::xid8, ${after.seq}::bigint)
    -- The columns, not the text aliases of the select list (text sorts 10 before 9).
    order by domain_events.tx, domain_events.seq
    limit ${limit}`.execute(db);
  return rows.map(toEvent);
}

/** The end of the feed now (0/0 when it is empty). */
export async function feedEndNow(db: Db): Promise<FeedPosition> {
  const { rows } = await sql<FeedPosition>`
    select tx::text as tx, seq::text as seq from domain_events
    where tx < pg_snapshot_xmin(pg_current_snapshot())
    order by domain_events.tx desc, domain_events.seq desc limit 1`.execute(db);
  return rows[0] ?? { tx: "0", seq: "0" };
}

/** Where notifications come from: a connection of their own (PostgreSQL) or PGlite itself. */
interface NotificationSource {
  /** Delivers every payload of the channel; `listening` runs each time LISTEN is (re)established. */
  start(onPayload: (payload: string) => void, listening: () => void): Promise<void>;
  readonly listening: boolean;
  close(): Promise<void>;
}

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

/** One LISTEN connection to the primary, outside the pool, opened again (with backoff) whenever it is lost. */
class PostgresNotifications implements NotificationSource {
  private client: pg.Client | null = null;
  private closed = false;
  private retryMs = RECONNECT_MIN_MS;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private onPayload: (payload: string) => void = () => {};
  private onListening: () => void = () => {};

  constructor(private readonly settings: pg.ClientConfig) {}

  get listening() {
    return this.client !== null;
  }

  async start(onPayload: (payload: string) => void, listening: () => void) {
    this.onPayload = onPayload;
    this.onListening = listening;
    await this.connect();
  }

  private held = false;

  /**
   * For tests of a lost connection: ends the LISTEN session as a network failure would; with `hold`,
   * no new one is opened until the returned function is called.
   */
  cut(hold = false): () => void {
    this.held = hold;
    const client = this.client as (pg.Client & { connection?: { stream?: { destroy(): void } } }) | null;
    this.client = null;
    client?.connection?.stream?.destroy();
    return () => {
      this.held = false;
      this.scheduleConnect();
    };
  }

  private async connect() {
    this.timer = undefined;
    if (this.closed) return;
    const client = new pg.Client(this.settings);
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => {});
      this.scheduleConnect();
    };
    client.on("notification", (message) => {
      if (message.channel === BUS_CHANNEL) this.onPayload(message.payload ?? "");
    });
    client.on("error", onLost);
    client.on("end", onLost);
    try {
      await client.connect();
      await client.query(`listen ${BUS_CHANNEL}`);
    } catch (error) {
      log.warn(errorFields(error), "event bus: could not listen; trying again");
      onLost();
      return;
    }
    if (lost) return;
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.retryMs = RECONNECT_MIN_MS;
    this.onListening();
  }

  private scheduleConnect() {
    if (this.closed || this.timer || this.held) return;
    this.timer = setTimeout(() => void this.connect(), this.retryMs);
    this.timer.unref?.();
    this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
  }

  async close() {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }
}

/** PGlite is one in-process session: its own NOTIFYs come back to it after each commit. */
class PGliteNotifications implements NotificationSource {
  private off: (() => void) | undefined;

  constructor(
    private readonly db: Db,
    private readonly pglite: PGlite,
  ) {}

  get listening() {
    return this.off !== undefined;
  }

  async start(onPayload: (payload: string) => void, listening: () => void) {
    this.off = this.pglite.onNotification((channel, payload) => {
      if (channel === BUS_CHANNEL) onPayload(payload);
    });
    // Through the service's handle, which queues it behind any open transaction (pglite-dialect.ts).
    await sql.raw(`listen ${BUS_CHANNEL}`).execute(this.db);
    listening();
  }

  async close() {
    this.off?.();
    this.off = undefined;
  }
}

const READ_PAGE = 500;

/**
 * The bus over the service's own database (PostgreSQL, or PGlite in-process). Events: one read of
 * the feed per tick for the whole process, and only while it has streams (resume/pause). Job changes
 * no event announces and control messages: LISTEN on the primary.
 */
export class DatabaseEventBus implements EventBus {
  private readonly listeners = new Set<BusListener>();
  private position: FeedPosition | null = null;
  private reading: Promise<void> | null = null;
  private again = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private resuming: Promise<void> | null = null;
  private started: Promise<void> | null = null;
  private listenedBefore = false;
  private closed = false;
  private reads = 0;
  /** Callers of sync() waiting for the next read to begin and end. */
  private syncWaiters: Array<() => void> = [];

  constructor(
    private readonly db: Db,
    readonly source: NotificationSource,
    /** How often the feed is read while streams are open. */
    readonly pollMs: number,
  ) {}

  start(): Promise<void> {
    return (this.started ??= this.source.start(
      (payload) => this.onPayload(payload),
      () => this.onListening(),
    ));
  }

  /**
   * Starts reading the feed on every tick, from its end now (a process that had no stream for a
   * while does not replay what it missed: a stream that wants that asks with its cursor).
   */
  resume(): Promise<void> {
    if (this.timer) return Promise.resolve();
    return (this.resuming ??= (async () => {
      try {
        this.position = await feedEndNow(this.db);
        if (this.closed || this.timer) return;
        this.timer = setInterval(() => this.read(), this.pollMs);
        this.timer.unref?.();
      } finally {
        this.resuming = null;
      }
    })());
  }

  /** Stops reading the feed (no stream left in this process). */
  pause(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  sync(): Promise<FeedPosition | null> {
    if (this.closed || !this.position) return Promise.resolve(this.position);
    return new Promise((resolve) => {
      this.syncWaiters.push(() => resolve(this.position));
      this.read();
    });
  }

  subscribe(listener: BusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publishControl(db: Executor, message: ControlMessage): Promise<void> {
    return notifyControl(db, message);
  }

  stats() {
    return { listening: this.source.listening, reads: this.reads, position: this.position };
  }

  async close() {
    this.closed = true;
    this.pause();
    await this.source.close();
    await this.reading?.catch(() => {});
  }

  private emit(call: (listener: BusListener) => void) {
    for (const listener of this.listeners) {
      try {
        call(listener);
      } catch (error) {
        log.error(errorFields(error), "event bus: a listener failed");
      }
    }
  }

  private onListening() {
    // Job changes and control messages of the gap were lost with the connection: listeners look again.
    if (this.listenedBefore) this.emit((l) => l.resumed?.());
    this.listenedBefore = true;
  }

  private onPayload(payload: string) {
    if (payload.startsWith("j:")) {
      const jobId = payload.slice(2);
      this.emit((l) => l.jobChanged?.(jobId));
    } else if (payload.startsWith("c:")) {
      const message = parseControl(payload.slice(2));
      if (message) this.emit((l) => l.control?.(message));
    }
  }

  /** Reads the feed past the position: one read at a time, and once more if asked meanwhile. */
  private read(): void {
    if (this.closed || !this.position) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.readOn();
  }

  private async readOn() {
    do {
      this.again = false;
      // Those who asked before this read began are answered when it ends.
      const synced = this.syncWaiters.splice(0);
      let events: FeedEvent[];
      try {
        this.reads += 1;
        events = await readEventsAfter(this.db, this.position!, READ_PAGE);
      } catch (error) {
        // The next tick tries again from the same position.
        if (!this.closed) log.warn(errorFields(error), "event bus: reading the feed failed");
        this.reading = null;
        for (const done of [...synced, ...this.syncWaiters.splice(0)]) done();
        return;
      }
      if (events.length > 0) {
        const last = events[events.length - 1]!;
        this.position = { tx: last.tx, seq: last.seq };
        this.emit((l) => l.events?.(events));
      }
      for (const done of synced) done();
      if (this.syncWaiters.length > 0) this.again = true;
      if (events.length === READ_PAGE) this.again = true;
    } while (this.again && !this.closed);
    // In the same turn as the loop's last look at `again`: a tick after it starts a new read.
    this.reading = null;
  }
}

function parseControl(text: string): ControlMessage | null {
  try {
    const value = JSON.parse(text) as Partial<Record<string, unknown>>;
    if (value.kind === "credential.ended" && typeof value.keyId === "string")
      return typeof value.at === "string"
        ? { kind: value.kind, keyId: value.keyId, at: value.at }
        : { kind: value.kind, keyId: value.keyId };
    if (value.kind === "principal.suspended" && typeof value.principalId === "string")
      return { kind: value.kind, principalId: value.principalId };
    if (value.kind === "agent.keys.changed" && typeof value.agentId === "string")
      return { kind: value.kind, agentId: value.agentId };
  } catch {
    // not ours
  }
  return null;
}

/**
 * How often a process with open streams reads the feed: a tenth of a second on PostgreSQL (one index
 * probe that finds nothing when nothing happened), a fifth on PGlite, whose one connection every
 * request shares.
 */
export const POLL_MS = { postgres: 100, pglite: 200 } as const;

/** The default bus of a database handle: its feed read on a tick, LISTEN on its primary (or PGlite's own notifications). */
export function databaseEventBus(db: Db): DatabaseEventBus {
  const source = databaseSourceOf(db);
  if (!source) throw new Error("the event bus needs a database opened by openDatabase (db/connection.ts)");
  if (source.kind === "pglite")
    return new DatabaseEventBus(db, new PGliteNotifications(db, source.pglite), POLL_MS.pglite);
  // No statement timeout on a session that only waits; its keep-alives notice a vanished server.
  const settings = { ...pgConnectionSettings(source.databaseUrl, source.timeouts), statement_timeout: undefined };
  return new DatabaseEventBus(db, new PostgresNotifications(settings), POLL_MS.postgres);
}

/**
 * Sends a control message to every instance with the default carrier (NOTIFY), in the caller's
 * transaction. For a change made where no stream hub runs (a script), which must still reach every
 * instance's streams.
 */
export async function notifyControl(db: Executor, message: ControlMessage): Promise<void> {
  await sql`select pg_notify(${BUS_CHANNEL}, ${`c:${JSON.stringify(message)}`})`.execute(db as Db);
}
