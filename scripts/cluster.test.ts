import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiClient } from "@/lib/api/client";
import { ApiError } from "@/lib/api/errors";
import { newUser, type TestService, type TestUser } from "@/lib/service/testing/harness";
import { postgresBinaries, startTempPostgres, type TempPostgres } from "@/lib/service/testing/temp-postgres";
import { WORKER_LOCK_KEY_SQL } from "@/lib/service/worker-leadership";
import { workers } from "@/lib/service/workers";
import { ensureBuild } from "./build-cache";
import { haproxyBinary, startCluster, type Cluster } from "./cluster-stack";
import { freePort } from "./stack";

const ready = Boolean(process.env.TEST_DATABASE_URL) && Boolean(haproxyBinary()) && Boolean(postgresBinaries());
if (process.env.TEST_DATABASE_URL && !ready) {
  console.warn(
    "[cluster.test] skipped: needs haproxy (apt-get install haproxy) and PostgreSQL's binaries (/usr/lib/postgresql/15/bin)",
  );
}

/**
 * `npm run cluster`'s picture, for real: two instances of the production server (the build, as
 * scripts/server.test.ts serves it) on a PostgreSQL primary with a streaming standby, behind
 * HAProxy. Under load one instance is killed (SIGKILL: no goodbye). Reads and idempotent writes
 * through the balancer go on (a write the killed instance was running is retried and run once on
 * the other), and the background workers carry on in the other instance.
 */
describe.runIf(ready)("two app instances behind HAProxy, one killed under load", () => {
  let pgCluster: TempPostgres;
  let cluster: Cluster;
  let db: pg.Client;
  let dataDir: string;

  beforeAll(async () => {
    const distDir = ensureBuild([process.env.SERVER_TEST_DIST_DIR || ".next-e2e"]);
    pgCluster = await startTempPostgres();
    dataDir = mkdtempSync(path.join(os.tmpdir(), "awm-cluster-"));
    const port = await freePort();
    cluster = await startCluster({
      port,
      count: 2,
      distDir,
      quiet: true,
      env: {
        DATABASE_URL: pgCluster.primaryUrl,
        DATABASE_REPLICA_URL: pgCluster.replicaUrl,
        DATA_DIR: dataDir,
        RATE_LIMIT_SCALE: "1000",
        // A write in flight in the killed instance is taken over by its retry once this lapses.
        IDEMPOTENCY_LEASE_MS: "3000",
        SESSION_SECRET: "cluster-test-session-secret-0123456789abcdef",
      },
    });
    db = new pg.Client({ connectionString: pgCluster.primaryUrl });
    await db.connect();
  }, 180_000);
  afterAll(async () => {
    await db?.end().catch(() => {});
    await cluster?.stop();
    await pgCluster?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  /** The serving process of each instance holds the workers' leadership session `awm-workers pid=<pid>`. */
  const leadersByWorker = async () => {
    const led = new Map<string, string[]>();
    for (const worker of workers) {
      const { rows } = await db.query<{ application_name: string }>(
        `select a.application_name from pg_locks l join pg_stat_activity a on a.pid = l.pid
         where l.locktype = 'advisory' and l.granted and l.objsubid = 1
           and ((l.classid::bigint << 32) | l.objid::bigint) = ${WORKER_LOCK_KEY_SQL}`,
        [worker.name],
      );
      led.set(
        worker.name,
        rows.map((r) => r.application_name),
      );
    }
    return led;
  };

  it("reads and idempotent writes are not lost, and the workers move to the surviving instance", async () => {
    const [a, b] = cluster.instances as [Cluster["instances"][0], Cluster["instances"][0]];
    const sessionOf = (instance: typeof a) => `awm-workers pid=${instance.process.pid}`;
    // Both instances answer behind the balancer and start their workers on their first /v1 request.
    for (const instance of [a, b]) expect((await fetch(`${instance.url}/v1/health/ready`)).status).toBe(200);
    const deadline = Date.now() + 60_000;
    let led = await leadersByWorker();
    while ([...led.values()].some((holders) => holders.length !== 1) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 300));
      led = await leadersByWorker();
    }
    // The instance leading the most workers is the one to kill.
    const countFor = (instance: typeof a) => [...led.values()].filter((h) => h[0] === sessionOf(instance)).length;
    const [victim, survivor] = countFor(a) >= countFor(b) ? [a, b] : [b, a];
    expect(countFor(victim)).toBeGreaterThan(0);

    // Writers: humans signed in through the balancer, each with the SDK as the README shows it
    // (retries on 5xx and network failures, an Idempotency-Key on every write that honours one).
    const lb = {
      baseUrl: cluster.url,
      ctx: { config: { siteUrl: cluster.url, chain: null } },
      client: (token?: string) => sdk(token),
    } as unknown as TestService;
    const sdk = (token?: string) =>
      createApiClient({
        baseUrl: cluster.url,
        token,
        idempotencyKeys: "auto",
        maxAttempts: 6,
        baseDelayMs: 100,
        maxDelayMs: 1_000,
      });
    const writers: TestUser[] = [];
    for (let i = 0; i < 6; i++) writers.push(await newUser(lb));
    const thread = await sdk(writers[0]!.token).createThread({
      body: {
        title: `Failover thread ${Date.now()}`,
        body: "Replies to this thread are written while an instance dies.",
        category: "bidding-strategy",
      },
    });
    const threadId = thread.data.id;

    let stop = false;
    let killedAt = 0;
    const reads = { ok: 0, failed: [] as string[] };
    const writes: Array<{ body: string; outcome: "201" | string; startedAt: number }> = [];
    const reader = async (i: number) => {
      while (!stop) {
        // Plain fetch, no client retries: the balancer alone must keep reads whole.
        const url =
          i % 2 ? `${cluster.url}/v1/forum/threads/${threadId}/replies?limit=5` : `${cluster.url}/v1/jobs?limit=5`;
        const headers: Record<string, string> =
          i % 3 === 0 ? { authorization: `Bearer ${writers[i % writers.length]!.token}` } : {};
        try {
          const res = await fetch(url, { headers });
          await res.arrayBuffer();
          if (res.status === 200) reads.ok += 1;
          else reads.failed.push(`${res.status} ${url}`);
        } catch (error) {
          reads.failed.push(`${(error as Error).message} ${url}`);
        }
      }
    };
    const writer = async (user: TestUser, i: number) => {
      const client = sdk(user.token);
      for (let n = 0; n < 12 && !stop; n++) {
        const body = `Reply ${n} of writer ${i} during the failover, ${Math.random().toString(36).slice(2)}`;
        const startedAt = Date.now();
        try {
          await client.createReply({ params: { slugOrId: threadId }, body: { body } });
          writes.push({ body, outcome: "201", startedAt });
        } catch (error) {
          writes.push({
            body,
            outcome: error instanceof ApiError ? `${error.status} ${error.code}` : String(error),
            startedAt,
          });
        }
      }
    };
    const load = Promise.all([
      ...Array.from({ length: 6 }, (_, i) => reader(i)),
      ...writers.map((w, i) => writer(w, i)),
    ]);
    await new Promise((r) => setTimeout(r, 1_500));
    killedAt = Date.now();
    victim.process.kill("SIGKILL");
    await new Promise((r) => setTimeout(r, 6_000));
    stop = true;
    await load;

    const outcomes = writes.reduce<Record<string, number>>(
      (acc, w) => ({ ...acc, [w.outcome]: (acc[w.outcome] ?? 0) + 1 }),
      {},
    );
    console.log(
      `[cluster.test] reads: ${reads.ok} answered 200, ${reads.failed.length} failed; writes: ${JSON.stringify(outcomes)}`,
    );

    // Reads: every one answered 200, through the kill.
    expect(reads.failed).toEqual([]);
    expect(reads.ok).toBeGreaterThan(50);

    // Writes: none doubled, none lost. A write in the killed process's hands when it died left its key
    // pending; the SDK's retry through the balancer waits out that key's lease (Retry-After on
    // 409 IDEMPOTENCY_IN_PROGRESS), then takes the key over on the survivor and runs it once.
    const { rows } = await db.query<{ body: string; n: number }>(
      "select body, count(*)::int as n from forum_replies where thread_id = $1 group by body",
      [threadId],
    );
    const stored = new Map(rows.map((r) => [r.body, r.n]));
    expect([...stored.values()].every((n) => n === 1)).toBe(true);
    expect(writes.filter((w) => w.outcome !== "201")).toEqual([]);
    for (const w of writes) expect(stored.get(w.body), w.body).toBe(1);
    expect(writes.filter((w) => w.startedAt > killedAt).length).toBeGreaterThan(0);
    // No key is left pending: every write that was in flight at the kill was answered since.
    const pending = await db.query<{ n: number }>(
      "select count(*)::int as n from idempotency_keys where scope like 'POST /v1/forum/threads/%' and response_status is null",
    );
    expect(pending.rows[0]!.n).toBe(0);

    // Workers: the killed instance's leadership ended with its session; the survivor takes each
    // worker over at that worker's next round (within one interval: those of up to 15 s are waited
    // for here, the minute-long ones are led by nobody or the survivor), and they keep running.
    const quick = new Set(workers.filter((w) => w.everyMs <= 15_000).map((w) => w.name));
    expect(quick.size).toBeGreaterThan(0);
    let after = await leadersByWorker();
    const moveDeadline = Date.now() + 30_000;
    while ([...quick].some((name) => after.get(name)?.[0] !== sessionOf(survivor)) && Date.now() < moveDeadline) {
      await new Promise((r) => setTimeout(r, 300));
      after = await leadersByWorker();
    }
    for (const [name, holders] of after) {
      if (quick.has(name)) expect(holders, name).toEqual([sessionOf(survivor)]);
      else
        expect(
          holders.filter((h) => h !== sessionOf(survivor)),
          name,
        ).toEqual([]);
    }
    const ran = async () =>
      (
        await db.query<{ n: number }>("select count(*)::int as n from worker_heartbeats where last_run_at > $1", [
          new Date(killedAt + 500),
        ])
      ).rows[0]!.n;
    const runDeadline = Date.now() + 20_000;
    while ((await ran()) === 0 && Date.now() < runDeadline) await new Promise((r) => setTimeout(r, 300));
    expect(await ran()).toBeGreaterThan(0);
  }, 150_000);
});
