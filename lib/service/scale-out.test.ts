import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import type { Worker } from "./context";
import { runProofRecheckRound } from "./deliverables/review-queue";
import { proofRecheckWorker } from "./deliverables/worker";
import { runRewardsRound, rewardsWorker } from "./rewards/worker";
import { balanceOf, claimedAgent, randomAddress, uniqueTitle } from "./testing/rewards-support";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "./testing/harness";
import { uniqueText } from "@/lib/testing/unique-text";
import { postgresLeadership, type WorkerLeadership } from "./worker-leadership";
import { startWorkers } from "./workers";

type Res = Awaited<ReturnType<TestService["http"]>>;
const countBy = (results: Res[]) =>
  results.reduce<Record<string, number>>((acc, r) => {
    const key = r.status === 409 ? `409 ${r.json.code}` : String(r.status);
    acc[key] = (acc[key] ?? 0) + 1;
    return acc;
  }, {});

const MARKER = "scale-out-marker-91c2";
const until = async (done: () => Promise<boolean>, what: string, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/**
 * Several machines: two app instances (each its own HTTP server, service and connection pool, as two
 * processes would have) on one PostgreSQL. Every concurrency rule must hold with requests split
 * between them, and each background worker must run in one of them at a time.
 */
describe.runIf(Boolean(process.env.TEST_DATABASE_URL))("two app instances on one PostgreSQL", () => {
  const databaseUrl = process.env.TEST_DATABASE_URL!;
  let chain: TestChain;
  let a: TestService;
  let b: TestService;
  let admin: TestUser;
  let site: http.Server;
  let siteUrl: string;
  const hits = new Map<string, number>();

  beforeAll(async () => {
    chain = await startTestChain({ chainId: 31352 });
    const config = {
      rateBudgets: GENEROUS_BUDGETS,
      chain: chain.config,
      probeAllowLoopback: true,
      rewardsAdminAddresses: [chain.accounts[9]!.address],
    };
    a = await startTestService(config, { ownPool: true });
    b = await startTestService(config, { ownPool: true });
    admin = await newUser(a, chain.accounts[9]!.privateKey);
    site = http.createServer((req, res) => {
      hits.set(req.url ?? "/", (hits.get(req.url ?? "/") ?? 0) + 1);
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<html><head><title>Leads</title></head><body><p>queue ${req.url} ${MARKER}</p></body></html>`);
    });
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await new Promise((r) => site?.close(r));
    await chain?.stop();
  });

  it("20 parallel bids by one agent split between the instances give one bid", async () => {
    const poster = await newUser(a);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const agent = await newAgent(b);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).http("POST", `/v1/jobs/${job.id}/bids`, {
          token: agent.apiKey,
          body: { agentId: agent.id, proposedUsdc: String(40 - i) },
        }),
      ),
    );
    expect(countBy(results)).toEqual({ "201": 1, "409 BID_ALREADY_PLACED": 19 });
    expect(await a.db.selectFrom("bids").select("id").where("job_id", "=", job.id).execute()).toHaveLength(1);
  });

  it("6 accepts split between the instances for an agent of capacity 2 give two assignments", async () => {
    const agent = await newAgent(a);
    await agent.client.updateAgent({ params: { id: agent.id }, body: { maxActiveJobs: 2 } });
    const offers = [];
    for (let i = 0; i < 6; i++) {
      const poster = await newUser(i % 2 ? a : b);
      const job = (await poster.client.createJob({ body: jobInput({ title: `Scale-out capacity job ${i}` }) })).data;
      const bid = (
        await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } })
      ).data;
      offers.push({ poster, job, bid });
    }
    const results = await Promise.all(
      offers.map(({ poster, job, bid }, i) =>
        (i % 2 ? b : a).http("POST", `/v1/jobs/${job.id}/bids/${bid.id}/accept`, { token: poster.token }),
      ),
    );
    expect(countBy(results)).toEqual({ "200": 2, "409 AGENT_AT_CAPACITY": 4 });
    const jobs = await b.db
      .selectFrom("jobs")
      .select(["status", "agent_id"])
      .where(
        "id",
        "in",
        offers.map((o) => o.job.id),
      )
      .execute();
    expect(jobs.filter((j) => j.status === "IN_PROGRESS" && j.agent_id === agent.id)).toHaveLength(2);
  });

  it("both instances' workers over 100 jobs in review check each exactly once, one instance at a time", async () => {
    const poster = await newUser(a);
    const tag = Math.random().toString(36).slice(2, 10);
    const inserted = await sql<{ id: string }>`
      insert into jobs (poster_id, status, participation_mode, template_id, title, description, budget_usdc, input_data, output_data,
                        escrow_job_id, escrow_tx_hash, chain_id, token_symbol, token_address, payment_provider, submitted_at, proof_checked_at, proof_check_status)
      select ${poster.id}::uuid, 'REVIEW', 'BID', 'custom-v1', 'Scale-out queue job ' || g, 'queue test', 10,
             jsonb_build_object('budgetType', 'bid', 'proofHoldHours', 168, 'participationMode', 'BID', 'generalDescription', 'q', 'acceptanceCriteria', '[]'::jsonb, 'proofContentMarker', ${MARKER}::text),
             jsonb_build_object('url', ${siteUrl}::text || '/q/' || ${tag}::text || '-' || g),
             '0x' || md5(${tag}::text || g) || md5(g || ${tag}::text), '0x' || md5('tx' || ${tag}::text || g) || md5(${tag}::text || 'tx' || g),
             ${chain.config.chainId}, 'USDC', '0x1111111111111111111111111111111111111111', 'ON_CHAIN_USDC', now() - interval '2 hours', now() - interval '1 hour', 'LIVE'
      from generate_series(1, 100) g
      returning id`.execute(a.db);
    const ids = inserted.rows.map((r) => r.id);

    // The registered worker's name (its lock), its round limited to this test's jobs and sped up.
    let inRound = 0;
    let overlapped = false;
    const roundsBy = { a: 0, b: 0 };
    const worker = (who: "a" | "b"): Worker => ({
      name: proofRecheckWorker.name,
      everyMs: 50,
      run: async (ctx) => {
        inRound += 1;
        if (inRound > 1) overlapped = true;
        roundsBy[who] += 1;
        try {
          await runProofRecheckRound(ctx, { batchSize: 10, only: ids });
        } finally {
          inRound -= 1;
        }
      },
    });
    const leaderships = [postgresLeadership(databaseUrl), postgresLeadership(databaseUrl)];
    const stops = [
      startWorkers(a.ctx, [worker("a")], leaderships[0]),
      startWorkers(b.ctx, [worker("b")], leaderships[1]),
    ];
    try {
      const checked = async () => {
        const r = await sql<{
          n: number;
        }>`select count(*)::int as n from proof_checks where job_id = any(${ids}::uuid[]) and trigger = 'RECHECK'`.execute(
          a.db,
        );
        return r.rows[0]!.n >= 100;
      };
      await until(checked, "100 rechecks");
      // The leader keeps leading: give the other instance rounds in which it could have run.
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      stops.forEach((stop) => stop());
      await Promise.all(leaderships.map((l) => l.close()));
    }
    expect(overlapped).toBe(false);
    expect(roundsBy.a === 0 || roundsBy.b === 0).toBe(true);
    const paths = [...hits.entries()].filter(([path]) => path.startsWith(`/q/${tag}-`));
    expect(paths).toHaveLength(100);
    expect(paths.every(([, count]) => count === 1)).toBe(true);
    const rows = await sql<{ n: number; jobs: number }>`
      select count(*)::int as n, count(distinct job_id)::int as jobs from proof_checks where job_id = any(${ids}::uuid[]) and trigger = 'RECHECK'`.execute(
      a.db,
    );
    expect(rows.rows[0]).toEqual({ n: 100, jobs: 100 });
    await sql`delete from proof_checks where job_id = any(${ids}::uuid[])`.execute(a.db);
    await sql`delete from jobs where id = any(${ids}::uuid[])`.execute(a.db);
  }, 120_000);

  it("20 eligible threads by one owner posted through both instances, with both instances' reward workers, pay one reward once", async () => {
    const owner = await newUser(a);
    const payout = randomAddress();
    expect((await a.http("PUT", "/v1/forum/me/payout", { token: owner.token, body: { address: payout } })).status).toBe(
      200,
    );
    const campaign = await a.http("POST", "/v1/forum/reward-campaigns", {
      token: admin.token,
      body: { kind: "THREAD", slots: 3 },
    });
    expect(campaign.status, JSON.stringify(campaign.json)).toBe(201);
    const agents = await Promise.all(Array.from({ length: 19 }, (_, i) => claimedAgent(i % 2 ? a : b, owner)));
    const before = await balanceOf(chain.config, payout);
    const posted = await Promise.all(
      [owner, ...agents].map((author, i) =>
        (i % 2 ? a : b).http("POST", "/v1/forum/threads", {
          token: "apiKey" in author ? author.apiKey : author.token,
          body: { title: uniqueTitle(), body: uniqueText(450), category: "agent-economics" },
        }),
      ),
    );
    expect(posted.map((p) => p.status)).toEqual(Array(20).fill(201));
    const ids = posted.map((p) => p.json.data.id as string);

    // Each instance runs the rewards worker (under its registered name) as production does.
    const worker: Worker = {
      name: rewardsWorker.name,
      everyMs: 100,
      run: (ctx) => runRewardsRound(ctx, { onlyContributions: ids }).then(() => {}),
    };
    const leaderships: WorkerLeadership[] = [postgresLeadership(databaseUrl), postgresLeadership(databaseUrl)];
    const stops = [startWorkers(a.ctx, [worker], leaderships[0]), startWorkers(b.ctx, [worker], leaderships[1])];
    try {
      await until(async () => {
        const rows = await a.db
          .selectFrom("forum_rewards")
          .select("status")
          .where("contribution_id", "in", ids)
          .where("kind", "=", "THREAD")
          .execute();
        return rows.length === ids.length && rows.every((r) => ["PAID", "NOT_ELIGIBLE"].includes(r.status));
      }, "every thread's reward decided");
    } finally {
      stops.forEach((stop) => stop());
      await Promise.all(leaderships.map((l) => l.close()));
    }
    const rows = await a.db
      .selectFrom("forum_rewards")
      .select("status")
      .where("contribution_id", "in", ids)
      .where("kind", "=", "THREAD")
      .execute();
    expect(rows.filter((r) => r.status === "PAID")).toHaveLength(1);
    expect((await balanceOf(chain.config, payout)) - before).toBe(parseUsdc("0.095"));
  }, 180_000);

  it("a rate budget holds across the instances: requests from one address split between them pass `limit` times in all", async () => {
    const limit = 12;
    const budgets = { publicReadsPerMinute: limit, authReadsPerMinute: 1000, writesPerMinute: 1000 };
    const x = await startTestService({ rateBudgets: budgets }, { ownPool: true });
    const y = await startTestService({ rateBudgets: budgets }, { ownPool: true });
    try {
      // Near the end of a window the budget would start over midway: start in a fresh one.
      const intoWindow = Date.now() % 60_000;
      if (intoWindow > 45_000) await new Promise((r) => setTimeout(r, 60_500 - intoWindow));
      const ip = `127.250.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
      const statuses: number[] = [];
      // In waves of parallel requests, alternating instances, well past the limit.
      for (let wave = 0; wave < 5; wave++) {
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) => (i % 2 ? x : y).http("GET", "/v1/jobs?limit=1", { ip })),
        );
        statuses.push(...answers.map((r) => r.status));
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
      expect(statuses.filter((s) => s === 429)).toHaveLength(40 - limit);
    } finally {
      await x.stop();
      await y.stop();
    }
  }, 120_000);

  it("a worker's leadership is held by one instance and moves when it goes away", async () => {
    const name = `test-leadership-${Math.random().toString(36).slice(2)}`;
    const first = postgresLeadership(databaseUrl);
    const second = postgresLeadership(databaseUrl);
    try {
      expect(await first.lead(name)).toBe(true);
      expect(await second.lead(name)).toBe(false);
      expect(await first.lead(name)).toBe(true);
      await first.close();
      expect(await second.lead(name)).toBe(true);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
