import pg from "pg";
import { sql } from "kysely";
import type { PGlite } from "@electric-sql/pglite";
import { databaseSourceOf, pgConnectionSettings, type Db } from "../db/connection";
import { errorFields, log } from "../log";

/**
 * The event bus: how an instance learns, once, of what committed anywhere (any process, any
 * instance), so that its open streams are fed from memory instead of each polling the database.
 *
 * The default carrier is PostgreSQL's LISTEN/NOTIFY on the primary (migration 0085-event-bus-notify):
 * NOTIFY is sent at commit and never for a rolled-back change, and one LISTEN connection per process
 * receives every notification. The notifications are wake-ups; the events themselves are read from
 * domain_events in the feed's order (tx, seq), past the position this bus has delivered, and only
 * below the oldest transaction still running (pg_snapshot_xmin), as the agent feed serves them. So
 * one read per burst serves every stream of the process, nothing is delivered twice or out of the
 * feed's order, and a notification lost with its connection loses nothing: once listening again,
 * the bus reads on from its position.
 *
 * Another broker (NATS JetStream, Redis streams) plugs in behind EventBus; docs/deployment.md says
 * when PostgreSQL's NOTIFY stops being enough.
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

/** What one instance tells every instance, besides events: a credential that must stop reading now. */
export type ControlMessage =
  /** A key revoked (now) or rotated (it ends `at`, the end of its overlap). */
  { kind: "credential.ended"; keyId: string; at?: string } | { kind: "principal.suspended"; principalId: string };

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
async function feedEndNow(db: Db): Promise<FeedPosition> {
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
/** How soon to look again when a notified transaction is still behind an older one that runs. */
const HORIZON_RETRY_MIN_MS = 5;
const HORIZON_RETRY_MAX_MS = 1_000;

/** The bus over the service's own database: PostgreSQL (LISTEN/NOTIFY) or PGlite (its in-process notifications). */
export class DatabaseEventBus implements EventBus {
  private readonly listeners = new Set<BusListener>();
  private position: FeedPosition | null = null;
  /** The newest transaction notified as having committed events. */
  private wantedTx = 0n;
  private reading: Promise<void> | null = null;
  private again = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private retryMs = HORIZON_RETRY_MIN_MS;
  private started: Promise<void> | null = null;
  private listenedBefore = false;
  private closed = false;
  private reads = 0;

  constructor(
    private readonly db: Db,
    readonly source: NotificationSource,
  ) {}

  start(): Promise<void> {
    return (this.started ??= (async () => {
      this.position = await feedEndNow(this.db);
      await this.source.start(
        (payload) => this.onPayload(payload),
        () => this.onListening(),
      );
    })());
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
    if (this.retryTimer) clearTimeout(this.retryTimer);
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
    // Whatever committed before LISTEN took hold (at start, or while cut off) is read now.
    this.read();
    if (this.listenedBefore) this.emit((l) => l.resumed?.());
    this.listenedBefore = true;
  }

  private onPayload(payload: string) {
    if (payload.startsWith("e:")) {
      const tx = /^\d{1,20}$/.test(payload.slice(2)) ? BigInt(payload.slice(2)) : 0n;
      if (tx > this.wantedTx) this.wantedTx = tx;
      this.read();
    } else if (payload.startsWith("j:")) {
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
      let events: FeedEvent[];
      try {
        this.reads += 1;
        events = await readEventsAfter(this.db, this.position!, READ_PAGE);
      } catch (error) {
        if (this.closed) {
          this.reading = null;
          return;
        }
        log.warn(errorFields(error), "event bus: reading the feed failed; trying again");
        this.reading = null;
        this.retryLater();
        return;
      }
      if (events.length > 0) {
        const last = events[events.length - 1]!;
        this.position = { tx: last.tx, seq: last.seq };
        this.emit((l) => l.events?.(events));
      }
      if (events.length === READ_PAGE) this.again = true;
    } while (this.again && !this.closed);
    // In the same turn as the loop's last look at `again`: a notification after it starts a new read.
    this.reading = null;
    // A transaction that was announced is still behind an older one that runs: look again shortly.
    if (BigInt(this.position!.tx) < this.wantedTx) this.retryLater();
    else this.retryMs = HORIZON_RETRY_MIN_MS;
  }

  private retryLater() {
    if (this.retryTimer || this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.read();
    }, this.retryMs);
    this.retryTimer.unref?.();
    this.retryMs = Math.min(this.retryMs * 2, HORIZON_RETRY_MAX_MS);
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
  } catch {
    // not ours
  }
  return null;
}

/** The default bus of a database handle: LISTEN on its PostgreSQL primary, or PGlite's own notifications. */
export function databaseEventBus(db: Db): DatabaseEventBus {
  const source = databaseSourceOf(db);
  if (!source) throw new Error("the event bus needs a database opened by openDatabase (db/connection.ts)");
  if (source.kind === "pglite") return new DatabaseEventBus(db, new PGliteNotifications(db, source.pglite));
  // No statement timeout on a session that only waits; its keep-alives notice a vanished server.
  const settings = { ...pgConnectionSettings(source.databaseUrl, source.timeouts), statement_timeout: undefined };
  return new DatabaseEventBus(db, new PostgresNotifications(settings));
}

/**
 * Sends a control message to every instance with the default carrier (NOTIFY), in the caller's
 * transaction. For a change made where no stream hub runs (a script), which must still reach every
 * instance's streams.
 */
export async function notifyControl(db: Executor, message: ControlMessage): Promise<void> {
  await sql`select pg_notify(${BUS_CHANNEL}, ${`c:${JSON.stringify(message)}`})`.execute(db as Db);
}
