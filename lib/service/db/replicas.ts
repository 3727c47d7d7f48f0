import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import type { Database } from "./schema";
import { GuardedClient, pgConnectionSettings, type Db, type DatabaseTimeouts } from "./connection";

/**
 * Read replicas (PostgreSQL streaming standbys, env DATABASE_REPLICA_URL) for the public reads that
 * opt in (router.ts, ImplementOptions.replica). Writes, and every other read, stay on the primary.
 *
 * How far behind a replica is, is measured on the data, not guessed from timestamps: every check
 * reads the primary's WAL position (pg_current_wal_lsn) and remembers when it read it, then each
 * replica's replayed position (pg_last_wal_replay_lsn). A replica that has replayed a position the
 * primary had at time t holds every transaction committed before t: `caughtUpTo` is the newest such
 * t. Its lag is now − caughtUpTo, so an idle primary means no lag, and a replica cut off from the
 * primary while writes go on falls behind by the clock.
 *
 * A replica serves a read only when it is up, is a standby, lags at most maxLagMs, and (read your
 * writes) caught up past the caller's last write: `pick(lastWriteAt)`. Otherwise the read goes to
 * the primary. A replica that fails a query is marked down until its next successful check.
 */
export interface ReplicaOptions {
  /** One or more standbys' connection strings. */
  urls: string[];
  /** A replica further behind than this serves no read (env REPLICA_MAX_LAG_MS). */
  maxLagMs: number;
  /** How often the positions are read (env REPLICA_CHECK_MS). */
  checkEveryMs: number;
  maxConnections?: number;
  timeouts?: Partial<DatabaseTimeouts>;
  /** Repeated reads run as named prepared statements (prepared-statements.ts); on unless false. */
  preparedStatements?: boolean;
}

export const DEFAULT_REPLICA_MAX_LAG_MS = 5_000;
export const DEFAULT_REPLICA_CHECK_MS = 500;
/** The name replica sessions carry (pg_stat_activity.application_name on the standby). */
export const REPLICA_APPLICATION_NAME = "awm-replica-reads";

export interface ReplicaState {
  /** The replica's host:port/database (never its password). */
  name: string;
  up: boolean;
  /** Milliseconds behind the primary at the last check; null when unknown (down, or never measured). */
  lagMs: number | null;
  /** Whether it serves reads now: up, a standby, and within maxLagMs. */
  serving: boolean;
  detail: string;
}

interface Replica {
  name: string;
  db: Db;
  up: boolean;
  /** When the primary had the newest position this replica has replayed (epoch ms); null: unknown. */
  caughtUpTo: number | null;
  lagMs: number | null;
  detail: string;
}

interface Sample {
  at: number;
  lsn: bigint;
}

/** A WAL position as PostgreSQL prints it ("16/B374D848") as a number that orders. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split("/");
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/** host:port/database of a connection string, without user or password. */
function nameOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || "5432"}${u.pathname}`;
  } catch {
    return "replica";
  }
}

export class ReadReplicas {
  private readonly replicas: Replica[];
  /** The primary's positions, newest last, as far back as a replica within maxLagMs could need. */
  private samples: Sample[] = [];
  private timer: ReturnType<typeof setInterval> | null = null;
  private checking: Promise<void> | null = null;
  private next = 0;

  constructor(
    private readonly primary: Db,
    readonly options: ReplicaOptions,
  ) {
    this.replicas = options.urls.map((url) => {
      const pool = new pg.Pool({
        ...pgConnectionSettings(url, { connectionTimeoutMs: 2_000, ...options.timeouts }),
        application_name: REPLICA_APPLICATION_NAME,
        Client: GuardedClient,
        max: options.maxConnections ?? 10,
        preparedStatements: options.preparedStatements !== false,
      } as pg.PoolConfig);
      // An idle connection that dies (the standby stopped) is dropped by the pool, not the process.
      pool.on("error", () => {});
      // A standby that stops under a checked-out connection: its query fails (and is handled); the
      // client's own error event must not end the process.
      pool.on("connect", (client) => client.on("error", () => {}));
      const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
      return { name: nameOf(url), db, up: false, caughtUpTo: null, lagMs: null, detail: "not checked yet" };
    });
  }

  /** Checks now, then every checkEveryMs until close(). */
  async start(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), this.options.checkEveryMs);
    this.timer.unref();
  }

  /**
   * A replica that holds every transaction committed before `lastWriteAt` (epoch ms; null: no
   * recent write by this caller) and lags at most maxLagMs, in turn; null: read the primary.
   */
  pick(lastWriteAt: number | null): Db | null {
    const now = Date.now();
    const n = this.replicas.length;
    for (let i = 0; i < n; i++) {
      const replica = this.replicas[(this.next + i) % n]!;
      if (!this.serves(replica, now)) continue;
      if (lastWriteAt !== null && replica.caughtUpTo! <= lastWriteAt) continue;
      this.next = (this.next + i + 1) % n;
      return replica.db;
    }
    return null;
  }

  /** A query on this replica failed as unreachable: no reads go to it until a check succeeds. */
  markDown(db: Db, reason: string): void {
    const replica = this.replicas.find((r) => r.db === db);
    if (replica) {
      replica.up = false;
      replica.detail = `down: ${reason}`;
    }
  }

  states(): ReplicaState[] {
    const now = Date.now();
    return this.replicas.map((r) => ({
      name: r.name,
      up: r.up,
      lagMs: r.lagMs,
      serving: this.serves(r, now),
      detail: r.detail,
    }));
  }

  /** Reads the primary's position, then each replica's; concurrent callers share one round. */
  check(): Promise<void> {
    this.checking ??= this.checkOnce().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.checking?.catch(() => {});
    await Promise.all(this.replicas.map((r) => r.db.destroy()));
  }

  private serves(replica: Replica, now: number): boolean {
    return replica.up && replica.caughtUpTo !== null && now - replica.caughtUpTo <= this.options.maxLagMs;
  }

  private async checkOnce(): Promise<void> {
    const at = Date.now();
    try {
      const { rows } = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(this.primary);
      this.samples.push({ at, lsn: parseLsn(rows[0]!.lsn) });
    } catch {
      // Without the primary's position no replica is known to be current: caughtUpTo stays, and
      // ages past maxLagMs (the primary is then down too, and reads fail either way).
    }
    await Promise.all(this.replicas.map((replica) => this.checkReplica(replica, at)));
    // Keep the samples a replica within the bound could still match, and the newest one older.
    const keepFrom = at - this.options.maxLagMs - 10 * this.options.checkEveryMs;
    const firstKept = this.samples.findIndex((s) => s.at >= keepFrom);
    if (firstKept > 1) this.samples = this.samples.slice(firstKept - 1);
  }

  private async checkReplica(replica: Replica, at: number): Promise<void> {
    try {
      const { rows } = await sql<{ lsn: string | null; standby: boolean }>`
        select pg_last_wal_replay_lsn()::text as lsn, pg_is_in_recovery() as standby`.execute(replica.db);
      const row = rows[0]!;
      if (!row.standby || row.lsn === null) {
        replica.up = false;
        replica.lagMs = null;
        replica.detail = "not a standby (pg_is_in_recovery() is false): it serves no reads";
        return;
      }
      const replayed = parseLsn(row.lsn);
      let caughtUpTo: number | null = null;
      for (let i = this.samples.length - 1; i >= 0; i--) {
        if (this.samples[i]!.lsn <= replayed) {
          caughtUpTo = this.samples[i]!.at;
          break;
        }
      }
      // Positions only grow: an older match never replaces a newer one.
      if (caughtUpTo !== null && (replica.caughtUpTo === null || caughtUpTo > replica.caughtUpTo)) {
        replica.caughtUpTo = caughtUpTo;
      }
      replica.up = true;
      replica.lagMs = replica.caughtUpTo === null ? null : Math.max(0, at - replica.caughtUpTo);
      replica.detail =
        replica.lagMs === null
          ? "up; its lag is not measured yet"
          : replica.lagMs > this.options.maxLagMs
            ? `${replica.lagMs} ms behind the primary, over the bound of ${this.options.maxLagMs} ms: ` +
              "reads go to the primary"
            : `${replica.lagMs} ms behind the primary (bound ${this.options.maxLagMs} ms)`;
    } catch (error) {
      replica.up = false;
      replica.detail = `down: ${(error as Error).message.split("\n")[0]!.slice(0, 200)}; reads go to the primary`;
    }
  }
}

/**
 * The last write of each caller (by credential and by client address) in this process, for read
 * your writes: a read by a caller whose write a replica may not hold yet goes to the primary.
 * Entries older than the replica bound are dropped, since no serving replica is that far behind.
 */
export class RecentWrites {
  private readonly at = new Map<string, number>();

  constructor(private readonly forgetAfterMs: number) {}

  record(keys: string[], when = Date.now()): void {
    if (this.at.size > 100_000) this.prune(when);
    for (const key of keys) this.at.set(key, when);
  }

  lastOf(keys: string[]): number | null {
    let last: number | null = null;
    const now = Date.now();
    for (const key of keys) {
      const when = this.at.get(key);
      if (when !== undefined && now - when <= this.forgetAfterMs && (last === null || when > last)) last = when;
    }
    return last;
  }

  private prune(now: number): void {
    for (const [key, when] of this.at) if (now - when > this.forgetAfterMs) this.at.delete(key);
  }
}
