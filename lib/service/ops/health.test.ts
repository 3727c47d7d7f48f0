import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import type { ServiceConfig } from "../config";
import type { Database } from "../db/schema";
import { jobInput, newUser, startTestService, type TestService } from "../testing/harness";
import { startRpcFaultProxy } from "../testing/rpc-fault-proxy";
import { chainKeyOf } from "../rewards/amounts";
import { recordWorkerRound, recordWorkerStart, startWorkers, workers } from "../workers";
import type { Worker } from "../context";
import { HEALTH_CACHE_MS, LATE_AFTER_ROUNDS, ROUND_GRACE_MS, STUCK_AFTER_MS } from "./check-health";

let chain: TestChain;
const started: TestService[] = [];
beforeAll(async () => {
  // A chain id of its own: the money part counts this chain's rows only, so suites sharing a PostgreSQL database do not show up here.
  chain = await startTestChain({ chainId: 31363 });
});
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  await chain?.stop();
});

/** A fresh service per scenario: each instance shares one health answer for 2 s. */
async function serviceWith(overrides: Partial<ServiceConfig> = {}): Promise<TestService> {
  const service = await startTestService({ chain: chain.config, ...overrides });
  started.push(service);
  return service;
}

/** Every registered worker had a successful round just now (as running instances record them). */
async function allWorkersRan(service: TestService) {
  for (const worker of workers) await recordWorkerRound(service.ctx, worker.name, null);
}

describe("GET /v1/health", () => {
  it("200 with status ok when the database, the chain and every worker are fine; no rate budget is charged", async () => {
    // A budget of one public read a minute: a health probe must not count against it.
    const service = await serviceWith({
      rateBudgets: { publicReadsPerMinute: 1, authReadsPerMinute: 1, writesPerMinute: 1 },
    });
    await allWorkersRan(service);
    const res = await service.http("GET", "/v1/health", { ip: "127.9.8.7" });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({
      status: "ok",
      database: { ok: true },
      chain: { ok: true, configured: true, chainId: chain.config.chainId },
      workers: { ok: true },
    });
    expect(res.json.data.chain.blockNumber).toMatch(/^\d+$/);
    expect(res.json.data.workers.workers.map((w: { name: string }) => w.name)).toEqual(workers.map((w) => w.name));
    for (const w of res.json.data.workers.workers) {
      expect(w).toMatchObject({
        late: false,
        lastError: null,
        lateAfterMs: LATE_AFTER_ROUNDS * w.everyMs + ROUND_GRACE_MS,
      });
      expect(w.lagMs).toBeLessThan(60_000);
    }
    for (let i = 0; i < 5; i++) expect((await service.http("GET", "/v1/health", { ip: "127.9.8.7" })).status).toBe(200);
    // The same client's first ordinary read still has its whole budget, and its second is refused.
    expect((await service.http("GET", "/v1/stats", { ip: "127.9.8.7" })).status).toBe(200);
    expect((await service.http("GET", "/v1/stats", { ip: "127.9.8.7" })).status).toBe(429);
  });

  it("an instance whose clock runs 400 s ahead does not call the workers' fresh rounds late", async () => {
    const service = await serviceWith();
    await allWorkersRan(service);
    const skewed = await startTestService({ chain: chain.config }, { ownPool: true });
    started.push(skewed);
    skewed.ctx.now = () => new Date(Date.now() + 400_000);
    const res = await skewed.http("GET", "/v1/health");
    expect(res.json.data.workers, JSON.stringify(res.json.data.workers.detail)).toMatchObject({ ok: true });
    for (const w of res.json.data.workers.workers) expect(w.lagMs).toBeLessThan(60_000);
  });

  it("503 with the same envelope when the RPC does not answer, or serves another chain", async () => {
    const offline = await serviceWith({ chain: { ...chain.config, rpcUrl: "http://127.0.0.1:9/" } });
    await allWorkersRan(offline);
    const res = await offline.http("GET", "/v1/health");
    expect(res.status).toBe(503);
    expect(res.json.data).toMatchObject({
      status: "down",
      database: { ok: true },
      workers: { ok: true },
      chain: { ok: false, configured: true, blockNumber: null },
    });
    expect(res.json.data.chain.detail).toMatch(/did not answer/);
    // The chain is every instance's: the load balancer's probe keeps this instance in.
    const ready = await offline.http("GET", "/v1/health/ready");
    expect(ready.status, JSON.stringify(ready.json)).toBe(200);
    expect(ready.json.data).toMatchObject({ status: "ok", database: { ok: true } });

    const misrouted = await serviceWith({ chain: { ...chain.config, chainId: 999_001 } });
    const wrong = await misrouted.http("GET", "/v1/health");
    expect(wrong.status).toBe(503);
    expect(wrong.json.data.chain).toMatchObject({ ok: false, chainId: 999_001 });
    expect(wrong.json.data.chain.detail).toMatch(
      new RegExp(`serves chain ${chain.config.chainId}, not the configured chain 999001`),
    );
  });

  it("a deployment without a payment chain says so and is not down for it", async () => {
    const service = await serviceWith({ chain: null });
    await allWorkersRan(service);
    const res = await service.http("GET", "/v1/health");
    expect(res.status).toBe(200);
    expect(res.json.data.chain).toMatchObject({ ok: true, configured: false, chainId: null, blockNumber: null });
    expect(res.json.data.chain.detail).toMatch(/no payment chain is configured/);
  });

  it("a worker that missed several rounds (or keeps failing) is late: 503 naming it and its last error", async () => {
    const service = await serviceWith();
    await allWorkersRan(service);
    const worker = workers[0]!;
    const lateAfter = LATE_AFTER_ROUNDS * worker.everyMs + ROUND_GRACE_MS;
    // It was started, and last succeeded, just over the limit ago; the rounds since failed.
    const past = new Date(Date.now() - lateAfter - 5_000);
    await recordWorkerStart({ ...service.ctx, now: () => past }, worker.name);
    await recordWorkerRound({ ...service.ctx, now: () => past }, worker.name, null);
    await recordWorkerRound(service.ctx, worker.name, new Error("RPC refused the connection"));

    const res = await service.http("GET", "/v1/health");
    expect(res.status).toBe(503);
    expect(res.json.data).toMatchObject({
      status: "down",
      database: { ok: true },
      chain: { ok: true },
      workers: { ok: false },
    });
    const item = res.json.data.workers.workers.find((w: { name: string }) => w.name === worker.name);
    expect(item).toMatchObject({ late: true, lastRunAt: past.toISOString(), lastError: "RPC refused the connection" });
    expect(item.lagMs).toBeGreaterThan(lateAfter);
    expect(res.json.data.workers.detail).toContain(`${worker.name}: no successful round`);
    for (const other of res.json.data.workers.workers.filter((w: { name: string }) => w.name !== worker.name))
      expect(other.late).toBe(false);
    // A late worker is the deployment's, not this instance's: it stays in the balancer.
    expect((await service.http("GET", "/v1/health/ready")).status).toBe(200);

    // A fresh start counts as a round in progress: not late until it misses its rounds.
    await recordWorkerStart(service.ctx, worker.name);
    const restarted = await serviceWith();
    const again = await restarted.http("GET", "/v1/health");
    expect(again.status, JSON.stringify(again.json.data.workers)).toBe(200);
  });

  it("a worker no instance ever started is late (WORKERS=off everywhere)", async () => {
    const service = await serviceWith();
    await allWorkersRan(service);
    const worker = workers[1]!;
    await service.db.deleteFrom("worker_heartbeats").where("name", "=", worker.name).execute();
    try {
      const res = await service.http("GET", "/v1/health");
      expect(res.status).toBe(503);
      const item = res.json.data.workers.workers.find((w: { name: string }) => w.name === worker.name);
      expect(item).toMatchObject({ late: true, lagMs: null, startedAt: null, lastRunAt: null });
      expect(res.json.data.workers.detail).toContain(`${worker.name}: never started by any instance`);
    } finally {
      await allWorkersRan(service);
    }
  });

  it("the database not answering is a 503 naming it, not a 500", async () => {
    const service = await serviceWith();
    // This instance's own context now points at a server that is not there.
    const broken = new Kysely<Database>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ connectionString: "postgres://postgres@127.0.0.1:9/none", connectionTimeoutMillis: 500 }),
      }),
    });
    service.ctx.db = broken;
    try {
      const res = await service.http("GET", "/v1/health");
      expect(res.status).toBe(503);
      expect(res.json.data).toMatchObject({
        status: "down",
        database: { ok: false, latencyMs: null },
        chain: { ok: true },
        workers: { ok: false, detail: "unknown: the database is down" },
      });
      expect(res.json.data.database.detail).toMatch(/^select 1 failed/);
      // Its own database gone: this instance is out of the balancer.
      const ready = await service.http("GET", "/v1/health/ready");
      expect(ready.status).toBe(503);
      expect(ready.json.data).toMatchObject({ status: "down", database: { ok: false, latencyMs: null } });
    } finally {
      await broken.destroy();
    }
  });
});

describe("worker heartbeats", () => {
  it("running workers records each successful round and each failure in the database", async () => {
    const service = await serviceWith();
    const tag = `${process.pid}-${Date.now()}`;
    const fine: Worker = { name: `test-fine-${tag}`, everyMs: 20, run: async () => {} };
    const failing: Worker = {
      name: `test-failing-${tag}`,
      everyMs: 20,
      run: async () => {
        throw new Error("nothing to do but fail");
      },
    };
    const stop = startWorkers(service.ctx, [fine, failing]);
    await new Promise((r) => setTimeout(r, 300));
    stop();
    const rows = await service.db
      .selectFrom("worker_heartbeats")
      .selectAll()
      .where("name", "in", [fine.name, failing.name])
      .execute();
    const byName = new Map(rows.map((r) => [r.name, r]));
    expect(byName.get(fine.name)).toMatchObject({ last_error: null });
    expect(byName.get(fine.name)!.last_run_at!.getTime()).toBeGreaterThan(Date.now() - 5_000);
    expect(byName.get(failing.name)).toMatchObject({ last_run_at: null, last_error: "nothing to do but fail" });
    await service.db.deleteFrom("worker_heartbeats").where("name", "in", [fine.name, failing.name]).execute();
  });
});

describe("GET /v1/health: flapping RPCs and money that needs a person", () => {
  it("half the RPC replies lost: each probe is tried twice, so the chain stays ok", async () => {
    const proxy = await startRpcFaultProxy(chain.rpcUrl);
    try {
      const service = await serviceWith({ chain: { ...chain.config, rpcUrl: proxy.url } });
      await allWorkersRan(service);
      // Every other eth_blockNumber reply is lost: the first probe of each answer fails, the second passes.
      proxy.drop(["eth_blockNumber"], { everyOther: true });
      for (let i = 0; i < 3; i++) {
        const res = await service.http("GET", "/v1/health");
        expect(res.status, JSON.stringify(res.json.data.chain)).toBe(200);
        expect(res.json.data).toMatchObject({ status: "ok", chain: { ok: true } });
        await new Promise((r) => setTimeout(r, HEALTH_CACHE_MS + 50));
      }
      expect(proxy.dropped.eth_blockNumber).toBeGreaterThanOrEqual(3);
      // Every reply lost: down, after the second try.
      proxy.drop(["eth_blockNumber"]);
      const down = await service.http("GET", "/v1/health");
      expect(down.status).toBe(503);
      expect(down.json.data).toMatchObject({ status: "down", chain: { ok: false } });
    } finally {
      await proxy.stop();
    }
  });

  it("a FAILED settlement, a stuck withdrawal and reconciliation differences: 200 degraded with the counts; fixed, ok again", async () => {
    const service = await serviceWith();
    await allWorkersRan(service);
    const fine = await service.http("GET", "/v1/health");
    expect(fine.json.data).toMatchObject({
      status: "ok",
      money: {
        ok: true,
        failedSettlements: 0,
        stuck: {
          settlements: 0,
          partSettlements: 0,
          withdrawals: 0,
          packPayouts: 0,
          rewardFunding: 0,
          x402Payments: 0,
        },
      },
    });

    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const settlement = await service.db
      .insertInto("escrow_settlements")
      .values({ job_id: job.id, kind: "REFUND", status: "FAILED", to_address: null })
      .returning("id")
      .executeTakeFirstOrThrow();
    const longAgo = new Date(Date.now() - STUCK_AFTER_MS - 60_000);
    const withdrawal = await service.db
      .insertInto("wallet_withdrawals")
      .values({
        owner_user_id: poster.id,
        to_address: "0x000000000000000000000000000000000000dEaD",
        amount_usdc: "1",
        chain_key: chainKeyOf(chain.config),
        sent_tx_hash: null,
        sent_raw_tx: null,
        failure_reason: null,
        lease_until: null,
        confirmed_at: null,
        created_at: longAgo,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const run = await service.db
      .insertInto("reconciliation_runs")
      .values({ chain_id: chain.config.chainId, checked_at: new Date(), differences: 2, report: JSON.stringify({}) })
      .returning("id")
      .executeTakeFirstOrThrow();
    try {
      const degraded = await serviceWith();
      const res = await degraded.http("GET", "/v1/health");
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json.data).toMatchObject({
        status: "degraded",
        database: { ok: true },
        chain: { ok: true },
        workers: { ok: true },
        money: {
          ok: false,
          failedSettlements: 1,
          stuck: {
            settlements: 0,
            partSettlements: 0,
            withdrawals: 1,
            packPayouts: 0,
            rewardFunding: 0,
            x402Payments: 0,
          },
          reconciliationDifferences: 2,
        },
      });
      expect(res.json.data.money.detail).toMatch(/1 escrow settlement\(s\) FAILED.*1 withdrawals.*2 difference/);
    } finally {
      await service.db.deleteFrom("reconciliation_runs").where("id", "=", run.id).execute();
      await service.db
        .updateTable("wallet_withdrawals")
        .set({ status: "CONFIRMED" })
        .where("id", "=", withdrawal.id)
        .execute();
      await service.db.deleteFrom("escrow_settlements").where("id", "=", settlement.id).execute();
    }
    const again = await (await serviceWith()).http("GET", "/v1/health");
    expect(again.status).toBe(200);
    expect(again.json.data).toMatchObject({ status: "ok", money: { ok: true, failedSettlements: 0 } });
  });
});
