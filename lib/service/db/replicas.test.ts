import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENEROUS_BUDGETS, newUser, startTestService, type TestService, type TestUser } from "../testing/harness";
import { postgresBinaries, startTempPostgres, type TempPostgres } from "../testing/temp-postgres";
import { openDatabase, type Db } from "./connection";
import { ReadReplicas, REPLICA_APPLICATION_NAME } from "./replicas";

const binaries = postgresBinaries();
if (!binaries) {
  // CI has PostgreSQL 15's binaries; a machine without them cannot start a standby.
  console.warn(
    "[replicas.test] skipped: no PostgreSQL binaries (initdb, pg_ctl, pg_basebackup, postgres) in /usr/lib/postgresql/15/bin or PG_BIN",
  );
}

const until = async <T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`${what} did not happen within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/**
 * A real streaming replica: a temporary primary and a standby made with pg_basebackup -R, both
 * started by this test. Replay on the standby is paused to make it fall behind on purpose, so
 * which server answered a read shows in what the read contains.
 */
describe.runIf(Boolean(binaries))("read replicas on a real PostgreSQL streaming standby", () => {
  const BOUND_MS = 5_000;
  let cluster: TempPostgres;
  let primary: Db;
  let replicas: ReadReplicas;
  let service: TestService;
  let standby: pg.Client;
  let writer: TestUser;
  let threadId: string;

  const threadIds = async (as: { token?: string; ip?: string } = {}) => {
    const res = await service.http("GET", "/v1/forum/threads?limit=100", as);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    return (res.json.data as Array<{ id: string }>).map((t) => t.id);
  };
  const replicaHealth = async () => {
    const res = await service.http("GET", "/v1/health");
    return res.json.data.database.replicas[0] as {
      ok: boolean;
      lagMs: number | null;
      maxLagMs: number;
      serving: boolean;
      detail: string;
      name: string;
    };
  };
  const replayPaused = async () =>
    (await standby.query<{ state: string }>("select pg_get_wal_replay_pause_state() as state")).rows[0]!.state;

  beforeAll(async () => {
    cluster = await startTempPostgres();
    primary = await openDatabase({ databaseUrl: cluster.primaryUrl, maxConnections: 10 });
    replicas = new ReadReplicas(primary, { urls: [cluster.replicaUrl], maxLagMs: BOUND_MS, checkEveryMs: 100 });
    await replicas.start();
    service = await startTestService({ rateBudgets: GENEROUS_BUDGETS }, { db: primary, replicas });
    standby = new pg.Client({ connectionString: cluster.replicaUrl });
    await standby.connect();
    // The migrations reached the standby: it serves.
    await until(replicaHealth, (r) => r.serving && r.lagMs === 0, "the standby catching up");
    writer = await newUser(service);
  }, 120_000);
  afterAll(async () => {
    await standby?.end().catch(() => {});
    await service?.stop().catch(() => {});
    await replicas?.close();
    await primary?.destroy();
    await cluster?.stop();
  }, 60_000);

  it("health names the standby, caught up, within its bound", async () => {
    const replica = await replicaHealth();
    expect(replica).toMatchObject({ ok: true, serving: true, lagMs: 0, maxLagMs: BOUND_MS });
    expect(replica.name).toBe(`127.0.0.1:${new URL(cluster.replicaUrl).port}/postgres`);
  });

  it("public reads come from the standby; the writer's own reads right after its write come from the primary", async () => {
    await standby.query("select pg_wal_replay_pause()");
    await until(replayPaused, (s) => s === "paused", "replay paused");

    const posted = await service.http("POST", "/v1/forum/threads", {
      token: writer.token,
      body: {
        title: `Replica test thread ${Date.now()}`,
        body: "Is this read served by the standby or by the primary?",
        category: "bidding-strategy",
      },
    });
    expect(posted.status, JSON.stringify(posted.json)).toBe(201);
    threadId = posted.json.data.id;

    // Anyone else reads the paused standby (within the bound): the thread is not there yet.
    expect(await threadIds()).not.toContain(threadId);
    // The writer reads its own write at once: its reads go to the primary.
    expect(await threadIds({ token: writer.token })).toContain(threadId);
    // The standby's sessions carry the replica pool's name.
    const sessions = await standby.query<{ n: number }>(
      "select count(*)::int as n from pg_stat_activity where application_name = $1",
      [REPLICA_APPLICATION_NAME],
    );
    expect(sessions.rows[0]!.n).toBeGreaterThan(0);
  });

  it("an agent that signs up reads its own new profile at once from the same address; others see it once the standby has it", async () => {
    const ip = "127.201.7.9";
    const signup = await service.http("POST", "/v1/agent-signups", {
      ip,
      body: { ownerEmail: `replica-${Date.now()}@example.test`, name: "Replica Reader", vertical: "RESEARCH" },
    });
    expect(signup.status, JSON.stringify(signup.json)).toBe(201);
    const agentId = signup.json.data.agent.id as string;
    expect(
      (await service.http("GET", `/v1/agents/${agentId}/profile`, { ip, token: signup.json.data.apiKey })).status,
    ).toBe(200);
    // Another caller, with replay still paused and within the bound: the standby does not know the agent.
    expect((await service.http("GET", `/v1/agents/${agentId}/profile`)).status).toBe(404);
  });

  it("reports the standby's lag, and past the bound every read goes to the primary", async () => {
    const lagging = await until(replicaHealth, (r) => !r.serving, `the lag passing ${BOUND_MS} ms`, 30_000);
    expect(lagging.ok).toBe(false);
    expect(lagging.lagMs).toBeGreaterThan(BOUND_MS);
    expect(lagging.detail).toMatch(/over the bound of 5000 ms: reads go to the primary/);
    expect(await threadIds()).toContain(threadId);

    await standby.query("select pg_wal_replay_resume()");
    const back = await until(replicaHealth, (r) => r.serving, "the standby catching up again");
    expect(back.lagMs).toBeLessThanOrEqual(BOUND_MS);
    expect(await threadIds()).toContain(threadId);
  }, 60_000);

  it("a stopped standby: reads go to the primary at once, and health says it is down", async () => {
    await standby.end();
    await cluster.stopReplica();
    const reads = await Promise.all(Array.from({ length: 5 }, () => threadIds()));
    for (const ids of reads) expect(ids).toContain(threadId);
    const down = await until(
      replicaHealth,
      (r) => !r.ok && r.detail.startsWith("down"),
      "health reporting the standby down",
      10_000,
    );
    expect(down).toMatchObject({ serving: false });
    expect((await service.http("GET", "/v1/health")).json.data.database.detail).toMatch(
      /0 of 1 read replica\(s\) serving/,
    );
  }, 60_000);
});
