import { execFileSync } from "node:child_process";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workers } from "@/lib/service/workers";
import { WORKER_LOCK_KEY_SQL } from "@/lib/service/worker-leadership";
import { ensureBuild } from "./build-cache";
import { freePort, startAppServer, type AppServer } from "./stack";

// The production server as `npm start` and production launch it (scripts/server.mjs, the real
// build), on a PostgreSQL database of its own so no other suite's instances compete for the workers.
describe.runIf(Boolean(process.env.TEST_DATABASE_URL))("scripts/server.mjs on PostgreSQL", () => {
  // The describe body is collected even when skipped: no database URL must not throw here.
  const base = process.env.TEST_DATABASE_URL ?? "";
  const databaseUrl = base.replace(/\/([^/]+)$/, "/$1_cluster");
  const admin = () => new pg.Client({ connectionString: base.replace(/\/[^/]+$/, "/postgres") });
  let server: AppServer | undefined;

  beforeAll(async () => {
    const client = admin();
    await client.connect();
    const name = new URL(databaseUrl).pathname.slice(1);
    await client.query(`drop database if exists "${name}" with (force)`);
    await client.query(`create database "${name}"`);
    await client.end();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("runs WEB_CONCURRENCY processes, and each background worker runs in exactly one of them", async () => {
    const distDir = ensureBuild([process.env.SERVER_TEST_DIST_DIR || ".next-bench"]);
    const port = await freePort();
    server = await startAppServer({
      port,
      distDir,
      quiet: true,
      env: { DATABASE_URL: databaseUrl, WEB_CONCURRENCY: "3", WORKERS: "on", SITE_URL: `http://127.0.0.1:${port}` },
    });

    // The primary forks the serving processes: three node children.
    const children = execFileSync("ps", ["-o", "pid=", "--ppid", String(server.process.pid)], { encoding: "utf8" })
      .split("\n")
      .map((s) => s.trim())
      .filter(Boolean)
      .map(Number);
    expect(children).toHaveLength(3);

    // Each process starts the service (and its workers) on its first /v1 request; the cluster
    // hands connections out in turn, so a few fresh connections reach every process.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const leaders = async () => {
        const rows = [];
        for (const worker of workers) {
          const { rows: holders } = await db.query<{ application_name: string }>(
            // Advisory locks are per database, and other suites' instances lead workers of the same
            // names in theirs at the same time: only this database's holders count.
            `select a.application_name from pg_locks l join pg_stat_activity a on a.pid = l.pid
             where l.locktype = 'advisory' and l.granted and l.objsubid = 1
               and l.database = (select oid from pg_database where datname = current_database())
               and ((l.classid::bigint << 32) | l.objid::bigint) = ${WORKER_LOCK_KEY_SQL}`,
            [worker.name],
          );
          rows.push({ worker: worker.name, holders: holders.map((h) => h.application_name) });
        }
        return rows;
      };
      const workerSessions = async () =>
        (
          await db.query<{ application_name: string }>(
            `select application_name from pg_stat_activity where application_name like 'awm-workers pid=%' and datname = current_database()`,
          )
        ).rows.map((r) => r.application_name);
      const deadline = Date.now() + 60_000;
      while ((await workerSessions()).length < 3 && Date.now() < deadline) {
        await Promise.all(
          Array.from({ length: 6 }, () =>
            fetch(`${server!.url}/v1/health`, { headers: { connection: "close" } }).then((r) => r.arrayBuffer()),
          ),
        );
        await new Promise((r) => setTimeout(r, 200));
      }
      // Every process has its leadership connection open: all three started their workers.
      expect((await workerSessions()).sort()).toEqual(children.map((pid) => `awm-workers pid=${pid}`).sort());
      // And each worker is led by exactly one of them (once the first lead attempts have answered).
      let led = await leaders();
      while (led.some((l) => l.holders.length === 0) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        led = await leaders();
      }
      for (const { worker, holders } of led) {
        expect(holders, worker).toHaveLength(1);
        expect(
          children.map((pid) => `awm-workers pid=${pid}`),
          worker,
        ).toContain(holders[0]);
      }
    } finally {
      await db.end();
    }
  }, 900_000);
});
