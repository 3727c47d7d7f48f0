import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";

// The figures cover the configured chain's jobs: a chain id of this run's own keeps other suites'
// jobs (the database is shared) out of them, so the numbers below are exact.
const CHAIN_ID = 40_000 + Math.floor(Math.random() * 20_000);
const PAYER = 1;
const OPERATOR = 9;

let chain: TestChain;
let service: TestService;
let site: http.Server;
let siteUrl: string;
const readers: TestService[] = [];

beforeAll(async () => {
  chain = await startTestChain({ chainId: CHAIN_ID });
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    chain: chain.config,
    probeAllowLoopback: true,
    operatorAddresses: [chain.accounts[OPERATOR]!.address],
  });
  site = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      "<html><head><title>Leads</title></head><body><h1>50 fintech leads</h1><table><tr><td>Ada</td><td>ada@example.test</td></tr></table></body></html>",
    );
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  site?.close();
  await Promise.all([service?.stop(), ...readers.map((r) => r.stop())]);
  await chain?.stop();
});

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as `0x${string}`;

/** The figures as a new instance computes them now (each instance keeps its answer for 60 s). */
async function freshStats() {
  const reader = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config });
  readers.push(reader);
  const res = await reader.http("GET", "/v1/stats");
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.data;
}

async function postedJob(poster: TestUser, budget: string, funded: boolean) {
  // No proof hold: an approved job is released at once.
  const job = (
    await poster.client.createJob({ body: jobInput({ budget, inputData: { budgetType: "bid", proofHoldHours: 0 } }) })
  ).data;
  if (funded) {
    const { txHash } = await depositToEscrow({
      config: chain.config,
      privateKey: chain.accounts[PAYER]!.privateKey,
      escrowJobId: hexOf(job.escrowJobId),
      amount: parseUsdc(budget),
    });
    await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  }
  return job;
}

async function assign(poster: TestUser, jobId: string, budget: string) {
  const agent = await newAgent(service, { walletAddress: chain.accounts[6]!.address });
  const bid = (
    await agent.client.placeBid({ params: { id: jobId }, body: { agentId: agent.id, proposedUsdc: budget } })
  ).data;
  await poster.client.acceptBid({ params: { jobId, bidId: bid.id } });
  return agent;
}

describe("GET /v1/stats", () => {
  it("counts marketplace, forum-reward and referral jobs apart: posted, funded, completed, refunded, USDC released, median funding→release, dispute rate", async () => {
    const before = await freshStats();
    expect(before.chainId).toBe(CHAIN_ID);
    const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);

    // Released: funded, assigned, delivered, approved → 40 less the 5 % fee reaches the agent.
    const released = await postedJob(poster, "40", true);
    const worker = await assign(poster, released.id, "40");
    const submitted = await service.http("POST", `/v1/jobs/${released.id}/submit`, {
      token: worker.apiKey,
      body: { outputData: { url: `${siteUrl}/leads` } },
    });
    expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
    expect((await poster.client.approveJob({ params: { id: released.id } })).data.status).toBe("COMPLETED");

    // Disputed, then refunded by the operator's ruling (nothing is refunded without one).
    const disputed = await postedJob(poster, "10", true);
    await assign(poster, disputed.id, "10");
    const dispute = await service.http("POST", `/v1/jobs/${disputed.id}/dispute`, {
      token: poster.token,
      body: { reason: "The agent stopped answering." },
    });
    expect(dispute.status, JSON.stringify(dispute.json)).toBe(200);
    const operator = await newUser(service, chain.accounts[OPERATOR]!.privateKey);
    const ruling = await service.http("POST", `/v1/jobs/${disputed.id}/dispute/ruling`, {
      token: operator.token,
      body: { outcome: "REFUND_POSTER", reason: "The agent never delivered anything." },
    });
    expect(ruling.status, JSON.stringify(ruling.json)).toBe(200);
    expect(ruling.json.data.ruling.settlement).toMatchObject({ kind: "REFUND", status: "CONFIRMED" });

    // Disputed and still open: not settled, so it is in neither side of the dispute rate.
    const open = await postedJob(poster, "12", true);
    await assign(poster, open.id, "12");
    expect(
      (
        await service.http("POST", `/v1/jobs/${open.id}/dispute`, {
          token: poster.token,
          body: { reason: "Still talking it over." },
        })
      ).status,
    ).toBe(200);

    // Cancelled while funded: refunded, never disputed. And one never funded.
    const cancelled = await postedJob(poster, "5", true);
    expect((await poster.client.cancelJob({ params: { id: cancelled.id } })).data.status).toBe("CANCELLED");
    await postedJob(poster, "7", false);

    // Reward budget: 2 THREAD slots (forum rewards) and 1 REFERRAL slot, left unfunded.
    const sponsor = await newUser(service);
    for (const [kind, slots] of [
      ["THREAD", 2],
      ["REFERRAL", 1],
    ] as const) {
      const created = await service.http("POST", "/v1/forum/reward-campaigns", {
        token: sponsor.token,
        body: { kind, slots, funding: "SPONSOR" },
      });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
    }

    const after = await freshStats();
    const delta = (group: string, field: string) => after[group][field] - before[group][field];
    expect({
      posted: delta("marketplace", "jobsPosted"),
      funded: delta("marketplace", "jobsFunded"),
      completed: delta("marketplace", "jobsCompleted"),
      refunded: delta("marketplace", "jobsRefunded"),
      settled: delta("marketplace", "settledJobs"),
      disputedSettled: delta("marketplace", "disputedSettledJobs"),
      usdc: Number(after.marketplace.usdcSettled) - Number(before.marketplace.usdcSettled),
    }).toEqual({ posted: 5, funded: 4, completed: 1, refunded: 2, settled: 3, disputedSettled: 1, usdc: 38 });
    expect(delta("forumRewards", "jobsPosted")).toBe(2);
    expect(delta("referrals", "jobsPosted")).toBe(1);
    for (const group of ["forumRewards", "referrals"]) {
      expect(delta(group, "jobsFunded")).toBe(0);
      expect(delta(group, "settledJobs")).toBe(0);
    }
    expect(after.marketplace.disputeRate).toBe(after.marketplace.disputedSettledJobs / after.marketplace.settledJobs);

    // This run's chain is its own: before it nothing had settled, so the figures are exactly this test's.
    expect(before.marketplace).toMatchObject({
      settledJobs: 0,
      disputeRate: null,
      medianSecondsFundingToRelease: null,
      usdcSettled: "0",
    });
    expect(after.marketplace).toMatchObject({
      jobsPosted: 5,
      jobsCompleted: 1,
      usdcSettled: "38",
      settledJobs: 3,
      disputedSettledJobs: 1,
      disputeRate: 1 / 3,
    });
    const timing = await service.db
      .selectFrom("jobs")
      .innerJoin("escrow_settlements", "escrow_settlements.job_id", "jobs.id")
      .select(["jobs.funded_at", "escrow_settlements.confirmed_at"])
      .where("jobs.id", "=", released.id)
      .executeTakeFirstOrThrow();
    const seconds = (timing.confirmed_at!.getTime() - timing.funded_at!.getTime()) / 1000;
    expect(after.marketplace.medianSecondsFundingToRelease).toBeCloseTo(seconds, 2);
    expect(after.definitions.disputeRate).toMatch(/settledJobs/);
  });

  it("is public, open to any origin and cacheable for a minute; the preflight answers too", async () => {
    const reader = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config });
    readers.push(reader);
    const first = await reader.http("GET", "/v1/stats", { headers: { origin: "https://elsewhere.example" } });
    expect(first.status).toBe(200);
    expect(first.headers.get("access-control-allow-origin")).toBe("*");
    expect(first.headers.get("cache-control")).toBe("public, max-age=60");

    // Within the minute this instance answers the same figures, however the data moves.
    const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
    await postedJob(poster, "3", false);
    const second = await reader.http("GET", "/v1/stats");
    expect(second.json.data).toEqual(first.json.data);

    const preflight = await reader.http("OPTIONS", "/v1/stats", {
      headers: { origin: "https://elsewhere.example", "access-control-request-method": "GET" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("GET");
  });
});
