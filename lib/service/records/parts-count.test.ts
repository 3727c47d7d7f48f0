// A job paid in parts counts wherever a whole job counts, on the HTTP surface against a real anvil:
// the agent's profile and GET /v1/records count it as one completed job with the exact net that
// reached the agent, both sides may review it once its last part settled (not before), and the
// operator's fees count every part's fee, dispute splits included (earned equals what accrued in
// the contract, and stays at or above it after a withdrawal).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20BalanceOf, feesAccruedOf } from "@/lib/chain/escrow/reads";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { formatUsdc, parseUsdc } from "@/lib/chain/units";
import { GENEROUS_BUDGETS, newUser, startTestService, type TestService, type TestUser } from "../testing/harness";
import { assignedPartsJob, partAction, startPartsSite, submitPart } from "../testing/parts-support";

const PAYER = 1;
const WALLET = 6;
const OPERATOR = 9;

let chain: TestChain;
let service: TestService;
let site: Awaited<ReturnType<typeof startPartsSite>>;
let operator: TestUser;

beforeAll(async () => {
  // A chain of its own (the database may be shared with other suites): the fees earned and the
  // reconciliation count this chain's settlements only.
  chain = await startTestChain({ chainId: 31401 });
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    chain: chain.config,
    probeAllowLoopback: true,
    operatorAddresses: [chain.accounts[OPERATOR]!.address],
  });
  site = await startPartsSite();
  operator = await newUser(service, chain.accounts[OPERATOR]!.privateKey);
}, 60_000);

afterAll(async () => {
  site?.close();
  await service?.stop();
  await chain?.stop();
});

const fee = (units: bigint) => (units * BigInt(chain.config.feeBps)) / 10_000n;
const net = (usdc: string) => parseUsdc(usdc) - fee(parseUsdc(usdc));

describe("a job paid in two parts", () => {
  it("counts as one completed job with its exact net on the agent's profile and in GET /v1/records; both sides may review once the last part is paid", async () => {
    // A poster of its own (the payer's anvil account may post in other suites sharing the database).
    const job = await assignedPartsJob(service, chain, {
      payer: PAYER,
      amounts: ["15", "15"],
      agentWallet: chain.accounts[WALLET]!.address,
      poster: await newUser(service),
    });
    const review = (token: string, rating: number) =>
      service.http("POST", `/v1/jobs/${job.jobId}/reviews`, {
        token,
        body: { rating, body: "Clear communication and the work as agreed." },
      });

    await submitPart(service, job, 1, site.url);
    const first = await partAction(service, job, 1, "approve", job.poster.token);
    expect(first.json.data.status, JSON.stringify(first.json)).toBe("RELEASED");
    // One part paid, one to go: the job is not done, and there is nothing to review yet.
    const early = await review(job.poster.token, 5);
    expect(early.status).toBe(409);
    expect(early.json.code).toBe("REVIEW_NOT_SETTLED");

    await submitPart(service, job, 2, site.url);
    const second = await partAction(service, job, 2, "approve", job.poster.token);
    expect(second.json.data.status, JSON.stringify(second.json)).toBe("RELEASED");
    expect((await job.poster.client.getJob({ params: { id: job.jobId } })).data.status).toBe("COMPLETED");

    const earned = formatUsdc(net("15") * 2n);
    const profile = await service.http("GET", `/v1/agents/${job.agent.id}/profile`, {});
    expect(profile.status, JSON.stringify(profile.json)).toBe(200);
    expect(profile.json.data.record).toMatchObject({ completedJobs: 1, earnedUsdc: earned });

    const records = await service.http("GET", `/v1/records?agentIds=${job.agent.id}&posterIds=${job.poster.id}`, {});
    expect(records.status, JSON.stringify(records.json)).toBe(200);
    expect(records.json.data.agents[0]).toMatchObject({
      completedJobs: 1,
      earnedUsdc: earned,
      deliveredJobs: 1,
      disputedJobs: 0,
      parts: { released: 2, split: 0, refunded: 0, disputed: 0 },
    });
    expect(records.json.data.posters[0]).toMatchObject({ completedJobs: 1, paidUsdc: "30" });

    const byPoster = await review(job.poster.token, 5);
    expect(byPoster.status, JSON.stringify(byPoster.json)).toBe(201);
    const byAgent = await review(job.agent.apiKey, 4);
    expect(byAgent.status, JSON.stringify(byAgent.json)).toBe(201);
    const listed = await service.http("GET", `/v1/jobs/${job.jobId}/reviews`, {});
    expect(listed.json.data.map((r: { rating: number }) => r.rating).sort()).toEqual([4, 5]);

    // The job's payment is announced as a whole job's is (webhooks and notifications follow job.paid),
    // with every part's net, and shown on its timeline.
    const paid = await service.db
      .selectFrom("domain_events")
      .select("data")
      .where("job_id", "=", job.jobId)
      .where("type", "=", "job.paid")
      .execute();
    expect(paid).toHaveLength(1);
    expect(paid[0]!.data).toMatchObject({ net: earned, fee: formatUsdc(fee(parseUsdc("15")) * 2n), partsTotal: 2 });
    const timeline = await service.http("GET", `/v1/jobs/${job.jobId}/events`, { token: job.poster.token });
    const payment = timeline.json.data.find((e: { type: string }) => e.type === "job.paid");
    expect(payment?.data).toMatchObject({ amountUsdc: earned, partsTotal: 2 });
  }, 120_000);

  it("a disputed part counts the job as disputed, with the outcome its ruling gave", async () => {
    const job = await assignedPartsJob(service, chain, {
      payer: PAYER,
      amounts: ["10", "10"],
      agentWallet: chain.accounts[WALLET]!.address,
    });
    await submitPart(service, job, 1, site.url);
    await partAction(service, job, 1, "approve", job.poster.token);
    await submitPart(service, job, 2, site.url);
    await partAction(service, job, 2, "dispute", job.poster.token, { reason: "The second part is half done." });
    const ruled = await partAction(service, job, 2, "ruling", operator.token, {
      outcome: "SPLIT",
      agentShare: 50,
      reason: "Half of the second part was delivered.",
    });
    expect(ruled.json.data.status, JSON.stringify(ruled.json)).toBe("SPLIT");
    const records = await service.http("GET", `/v1/records?agentIds=${job.agent.id}`, {});
    expect(records.json.data.agents[0]).toMatchObject({
      completedJobs: 1,
      earnedUsdc: formatUsdc(net("10") + net("5")),
      deliveredJobs: 1,
      disputedJobs: 1,
      disputeOutcomes: { released: 0, refunded: 0, split: 1, open: 0 },
    });
  }, 120_000);
});

describe("the operator's overview, retry and re-settle", () => {
  it("list a part whose release the chain refused, refuse to send it unchanged, and settle it again to a valid address once", async () => {
    const job = await assignedPartsJob(service, chain, {
      payer: PAYER,
      amounts: ["6", "6"],
      agentWallet: chain.accounts[WALLET]!.address,
    });
    await submitPart(service, job, 1, site.url);
    // A wallet stored before the payable-address rule: the token contract, which would strand the money.
    await service.db
      .updateTable("agents")
      .set({ wallet_address: chain.config.tokenAddress })
      .where("id", "=", job.agent.id)
      .execute();
    const approved = await partAction(service, job, 1, "approve", job.poster.token);
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect(approved.json.data.status).toBe("APPROVED");
    expect(approved.json.data.releaseHeldReason).toMatch(/cannot be sent/);

    const admin = (method: "GET" | "POST", path: string, body?: unknown) =>
      service.http(method, path, { token: operator.token, ...(body ? { body } : {}) });
    const overview = await admin("GET", "/v1/admin/overview");
    const listed = overview.json.data.settlements.find(
      (s: { jobId: string; milestonePosition: number | null }) => s.jobId === job.jobId,
    );
    expect(listed).toMatchObject({ milestonePosition: 1, kind: "RELEASE", status: "FAILED" });
    expect(listed.failedToAddress.toLowerCase()).toBe(chain.config.tokenAddress.toLowerCase());
    expect(listed.failedAt).not.toBeNull();
    expect(overview.json.data.health.money.failedSettlements).toBeGreaterThanOrEqual(1);

    const retried = await admin("POST", `/v1/admin/settlements/${listed.id}/retry`, { reason: "try it again" });
    expect([retried.status, retried.json.code]).toEqual([409, "SETTLEMENT_FAILED"]);

    const before = await erc20BalanceOf({ config: chain.config, address: chain.accounts[WALLET]!.address });
    const resettle = (reason: string) =>
      admin("POST", `/v1/admin/settlements/${listed.id}/resettle`, {
        reason,
        toAddress: chain.accounts[WALLET]!.address,
      });
    const [first, second] = await Promise.all([resettle("the agent's real wallet"), resettle("a second click")]);
    const done = first.status === 200 ? first : second;
    expect(done.status, JSON.stringify([first.json, second.json])).toBe(200);
    expect(done.json.data).toMatchObject({ milestonePosition: 1, status: "CONFIRMED", resettleCount: 1 });
    expect((await erc20BalanceOf({ config: chain.config, address: chain.accounts[WALLET]!.address })) - before).toBe(
      net("6"),
    );
    const parts = await service.http("GET", `/v1/jobs/${job.jobId}/milestones`, { token: job.poster.token });
    expect(parts.json.data[0]).toMatchObject({ status: "RELEASED", releaseHeldReason: null });
    const after = await admin("GET", "/v1/admin/overview");
    expect(after.json.data.settlements.some((s: { id: string }) => s.id === listed.id)).toBe(false);

    const reconciliation = await admin("GET", "/v1/admin/reconciliation");
    expect(reconciliation.json.data.differences.filter((d: { jobId: string | null }) => d.jobId === job.jobId)).toEqual(
      [],
    );
  }, 120_000);
});

describe("the operator's fees", () => {
  it("count every part's fee, dispute splits included: earned equals what accrued, and stays above it after a withdrawal", async () => {
    // The earlier tests of this file paid parts (and split one) on this chain; nothing was withdrawn yet.
    const fees = await service.http("GET", "/v1/admin/fees", { token: operator.token });
    expect(fees.status, JSON.stringify(fees.json)).toBe(200);
    const accrued = await feesAccruedOf(chain.config);
    expect(accrued).toBe(fee(parseUsdc("15")) * 2n + fee(parseUsdc("10")) + fee(parseUsdc("5")) + fee(parseUsdc("6")));
    expect(fees.json.data).toMatchObject({ earnedUsdc: formatUsdc(accrued), accruedUsdc: formatUsdc(accrued) });

    const withdrawn = await service.http("POST", "/v1/admin/fees/withdraw", {
      token: operator.token,
      body: { reason: "Monthly transfer of the fees to the treasury." },
    });
    expect(withdrawn.status, JSON.stringify(withdrawn.json)).toBe(200);
    const after = await service.http("GET", "/v1/admin/fees", { token: operator.token });
    expect(after.json.data).toMatchObject({ earnedUsdc: formatUsdc(accrued), accruedUsdc: "0" });
  }, 120_000);
});
