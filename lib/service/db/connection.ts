import path from "node:path";
import fs from "node:fs";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { Database } from "./schema";
import { PGliteDialect } from "./pglite-dialect";
import { migrateToLatest } from "./migrate";
import { isStalePreparedStatement, statementNames } from "./prepared-statements";

// int8 comes back from PGlite as a number; make node-postgres agree so that one code path serves
// both. Our counts stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

export type Db = Kysely<Database>;

/**
 * How long anything may wait on PostgreSQL. Without these a connection that stops answering (a
 * failover that leaves half-open sockets, a stalled network) holds its caller forever: a request,
 * or a worker round and with it every later round. The server cancels a statement or an idle
 * transaction itself; the client gives up on a connection that does not answer at all (the server
 * never saw the query, so only the client can tell) and throws that connection away.
 */
export interface DatabaseTimeouts {
  /** Server side: a statement running longer is cancelled (SET statement_timeout). */
  statementTimeoutMs: number;
  /** Server side: a session idle inside a transaction longer is ended, and its locks released. */
  idleInTransactionTimeoutMs: number;
  /** Client side: a query with no answer after this fails, and its connection is destroyed. Above statementTimeoutMs, so the server's cancel normally comes first. */
  queryTimeoutMs: number;
  /** Client side: opening a connection, or waiting for a free one in the pool. */
  connectionTimeoutMs: number;
  /** TCP keep-alive probes start after this much silence, so a peer that vanished is noticed. */
  keepAliveInitialDelayMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  statementTimeoutMs: 15_000,
  idleInTransactionTimeoutMs: 30_000,
  queryTimeoutMs: 20_000,
  connectionTimeoutMs: 10_000,
  keepAliveInitialDelayMs: 10_000,
};

export interface DatabaseOptions {
  /** A PostgreSQL server; when unset, PGlite keeps the data in-process under dataDir. */
  databaseUrl?: string;
  /** Where PGlite keeps its files; "memory://" for a throwaway database. */
  dataDir?: string;
  /** Pool size for a PostgreSQL server. */
  maxConnections?: number;
  /** PostgreSQL only: repeated queries run as named prepared statements (prepared-statements.ts); on unless false. */
  preparedStatements?: boolean;
  /** PostgreSQL only; DEFAULT_DATABASE_TIMEOUTS unless given (tests of outages shorten them). */
  timeouts?: Partial<DatabaseTimeouts>;
}

/** The pg connection settings that carry the timeouts (a pool's, or the workers' leader connection's). */
export function pgConnectionSettings(databaseUrl: string, timeouts: Partial<DatabaseTimeouts> = {}): pg.ClientConfig {
  const t = { ...DEFAULT_DATABASE_TIMEOUTS, ...timeouts };
  return {
    connectionString: databaseUrl,
    statement_timeout: t.statementTimeoutMs,
    idle_in_transaction_session_timeout: t.idleInTransactionTimeoutMs,
    query_timeout: t.queryTimeoutMs,
    connectionTimeoutMillis: t.connectionTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: t.keepAliveInitialDelayMs,
  };
}

/** A pool's or a client's settings, and whether repeated queries run as named prepared statements (prepared-statements.ts; on unless false). */
export type GuardedClientConfig = pg.ClientConfig & { preparedStatements?: boolean };

/** pg's own text for a query that got no answer within query_timeout. */
export const QUERY_READ_TIMEOUT = "Query read timeout";

/**
 * A pg client that destroys its connection when a query got no answer in time. pg rejects the
 * query but keeps the socket, and the pool would hand the same silent connection to the next
 * caller; ended here, the pool drops it on release and opens a fresh one.
 */
export class GuardedClient extends pg.Client {
  constructor(config?: string | GuardedClientConfig) {
    super(config);
    const prepare = typeof config !== "object" || config.preparedStatements !== false;
    const query = this.query.bind(this) as (...args: unknown[]) => unknown;
    // A connection that no longer answers, or whose prepared statements went stale, is ended.
    const unusable = (error: unknown) =>
      (error as Error | null)?.message === QUERY_READ_TIMEOUT || isStalePreparedStatement(error);
    (this as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      // Kysely's (text, values): run as a named statement when the text is a repeated one.
      if (prepare && typeof args[0] === "string" && Array.isArray(args[1])) {
        const name = statementNames.nameFor(args[0]);
        if (name) args.splice(0, 2, { name, text: args[0], values: args[1] });
      }
      const last = args[args.length - 1];
      if (typeof last === "function") {
        args[args.length - 1] = (error: Error | null, ...rest: unknown[]) => {
          if (unusable(error)) this.abandon();
          return (last as (...a: unknown[]) => unknown)(error, ...rest);
        };
        return query(...args);
      }
      const result = query(...args);
      if (result && typeof (result as Promise<unknown>).then === "function") {
        // Registered before the caller's own handlers: the connection is ended before it can be released.
        (result as Promise<unknown>).then(undefined, (error: Error) => {
          if (unusable(error)) this.abandon();
        });
      }
      return result;
    };
  }

  /** Ends the session without waiting for a peer that no longer answers. */
  abandon(): void {
    const self = this as unknown as { _ending: boolean; connection?: { stream?: { destroy(): void } } };
    self._ending = true;
    self.connection?.stream?.destroy();
  }
}

/**
 * Where a database handle's data lives, for what needs a connection of its own beside the pool (the
 * event bus's LISTEN connection, lib/service/events/event-bus.ts) or PGlite itself.
 */
export type DatabaseSource =
  | { kind: "postgres"; databaseUrl: string; timeouts: Partial<DatabaseTimeouts> }
  | { kind: "pglite"; pglite: import("@electric-sql/pglite").PGlite };

const sources = new WeakMap<object, DatabaseSource>();

/** The source of a handle openDatabase returned (or of one made from it with withPlugin, when given that handle). */
export function databaseSourceOf(db: Db): DatabaseSource | undefined {
  return sources.get(db);
}

/** Records that `derived` (e.g. `db.withPlugin(...)`) reaches the same database as `db`. */
export function sameSourceAs(derived: Db, db: Db): Db {
  const source = sources.get(db);
  if (source) sources.set(derived, source);
  return derived;
}

export async function openDatabase(options: DatabaseOptions): Promise<Db> {
  let db: Db;
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      ...pgConnectionSettings(options.databaseUrl, options.timeouts),
      Client: GuardedClient,
      max: options.maxConnections ?? 10,
      preparedStatements: options.preparedStatements !== false,
    } as pg.PoolConfig);
    // An idle connection that dies (the server restarted, a failover) is dropped by the pool; without
    // a listener its error would end the process.
    pool.on("error", () => {});
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    sources.set(db, { kind: "postgres", databaseUrl: options.databaseUrl, timeouts: options.timeouts ?? {} });
  } else {
    const { PGlite } = await import("@electric-sql/pglite");
    const dataDir = options.dataDir ?? ".data";
    let location = dataDir;
    if (!dataDir.startsWith("memory://")) {
      location = path.resolve(dataDir, "pglite");
      fs.mkdirSync(location, { recursive: true });
    }
    const pglite = new PGlite(location);
    db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
    sources.set(db, { kind: "pglite", pglite });
  }
  await migrateToLatest(db);
  return db;
}
