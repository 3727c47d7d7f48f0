import { GuardedClient, pgConnectionSettings, type DatabaseTimeouts } from "./db/connection";
import { log } from "./log";

/**
 * Who runs each background worker when several processes (a cluster of one machine, or instances
 * on many machines) share one PostgreSQL: the holder of a session advisory lock named after the
 * worker. Leadership lives in the database, never in process memory, so it holds across every
 * process and machine, and it moves by itself: when the leader dies its connection closes, the
 * lock is released and another process takes it on its next try.
 *
 * One dedicated connection per process holds every lock it leads (not a pool connection: a session
 * lock belongs to the connection that took it). Before each round the leader checks on that
 * connection that it still holds the lock, so a leader whose connection was cut stops before the
 * next round rather than running beside the new one. The work itself is still claimed row by row
 * (FOR UPDATE SKIP LOCKED), so even a round cut off midway never handles an item twice.
 *
 * The connection carries the pools' timeouts (db/connection.ts): a leadership check that gets no
 * answer fails within queryTimeoutMs, the silent connection is destroyed (its locks go with it, as
 * the server sees the session end) and the next check opens a new one and takes the locks again.
 */
export interface WorkerLeadership {
  /** Whether this process leads `name` now (taking the lead if nobody holds it). */
  lead(name: string): Promise<boolean>;
  close(): Promise<void>;
}

/** PGlite: one process owns the data, so that process leads every worker. */
export const SINGLE_PROCESS_LEADERSHIP: WorkerLeadership = {
  lead: async () => true,
  close: async () => {},
};

/** The advisory lock key of a worker (64-bit, from its name), computed in SQL by hashtextextended. */
export const WORKER_LOCK_KEY_SQL = "hashtextextended('awm-worker:' || $1, 0)";

export function postgresLeadership(
  databaseUrl: string,
  options: { applicationName?: string; timeouts?: Partial<DatabaseTimeouts> } = {},
): WorkerLeadership {
  let client: GuardedClient | null = null;
  let connecting: Promise<GuardedClient> | null = null;
  let closed = false;

  const connect = (): Promise<GuardedClient> => {
    if (client) return Promise.resolve(client);
    connecting ??= (async () => {
      const next = new GuardedClient({
        ...pgConnectionSettings(databaseUrl, options.timeouts),
        application_name: options.applicationName ?? `awm-workers pid=${process.pid}`,
      });
      // A lost connection has lost its locks with it: forget it, and lead nothing until a new one
      // has taken the locks again.
      const drop = () => {
        if (client === next) client = null;
      };
      next.on("error", (error) => {
        log.warn({ reason: error.message }, "worker leadership connection lost");
        drop();
      });
      next.on("end", drop);
      try {
        await next.connect();
      } catch (error) {
        next.abandon();
        throw error;
      } finally {
        connecting = null;
      }
      client = next;
      return next;
    })();
    return connecting;
  };

  return {
    async lead(name) {
      if (closed) return false;
      let conn: GuardedClient;
      try {
        conn = await connect();
      } catch (error) {
        log.warn({ reason: (error as Error).message }, "cannot reach the database to take the worker lead");
        return false;
      }
      try {
        // Held already (by this connection), or free and taken now. pg_try_advisory_lock is
        // re-entrant, so only take it when not held, or the unlock count would grow.
        const { rows } = await conn.query<{ held: boolean }>(
          `select exists (
             select 1 from pg_locks
             where locktype = 'advisory' and pid = pg_backend_pid() and granted and objsubid = 1
               and ((classid::bigint << 32) | objid::bigint) = ${WORKER_LOCK_KEY_SQL}
           ) or pg_try_advisory_lock(${WORKER_LOCK_KEY_SQL}) as held`,
          [name],
        );
        return rows[0]?.held === true;
      } catch (error) {
        if (!closed) log.warn({ worker: name, reason: (error as Error).message }, "worker leadership check failed");
        // Whatever went wrong, this session can no longer be trusted to hold the locks: end it, so
        // the server releases them and the next check starts from a fresh session.
        if (client === conn) client = null;
        conn.abandon();
        return false;
      }
    },
    async close() {
      closed = true;
      const conn = client ?? (connecting ? await connecting.catch(() => null) : null);
      client = null;
      // Closing the session releases every lock it held.
      await conn?.end().catch(() => {});
    },
  };
}
