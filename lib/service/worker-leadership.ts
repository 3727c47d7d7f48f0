import pg from "pg";

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

export function postgresLeadership(databaseUrl: string, options: { applicationName?: string } = {}): WorkerLeadership {
  let client: pg.Client | null = null;
  let connecting: Promise<pg.Client> | null = null;
  let closed = false;

  const connect = (): Promise<pg.Client> => {
    if (client) return Promise.resolve(client);
    connecting ??= (async () => {
      const next = new pg.Client({ connectionString: databaseUrl, application_name: options.applicationName ?? `awm-workers pid=${process.pid}` });
      // A lost connection has lost its locks with it: forget it, and lead nothing until a new one
      // has taken the locks again.
      const drop = () => {
        if (client === next) client = null;
      };
      next.on("error", (error) => {
        console.error("[workers] leadership connection lost:", error.message);
        drop();
      });
      next.on("end", drop);
      try {
        await next.connect();
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
      let conn: pg.Client;
      try {
        conn = await connect();
      } catch (error) {
        console.error("[workers] cannot reach the database to take the lead:", (error as Error).message);
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
        if (!closed) console.error(`[workers] leadership check of ${name} failed:`, (error as Error).message);
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
