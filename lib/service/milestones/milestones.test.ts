// A job paid in parts, on the HTTP surface against a real anvil: the plan at creation and in the
// edit before bids (amounts add up to the budget), each part delivered, approved and released on
// chain once (balances asserted; parallel approvals pay once), a dispute that freezes one part and
// a ruling that splits it, cancellation refunding what remains, the job IN_PROGRESS until its last
// part settles, and the milestone.* events.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20BalanceOf, feesAccruedOf } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { formatUsdc, parseUsdc } from "@/lib/chain/units";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
  type TestUser,
} from "../testing/harness";

const PAYER = 1;
const WALLET = 6;
const OPERATOR = 9;
const MARKER = "job-marker-5d1c";
const PART_MARKER = (n: number) => `part-${n}-marker-9e2b`;

let chain: TestChain;
let service: TestService;
let site: http.Server;
let siteUrl: string;
let operator: TestUser;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    chain: chain.config,
    probeAllowLoopback: true,
    operatorAddresses: [chain.accounts[OPERATOR]!.address],
  });
  // Every path carries the job's marker and the marker of the part its name says (/part-2 -> part 2's).
  site = http.createServer((req, res) => {
    const n = /part-(\d+)/.exec(req.url ?? "")?.[1];
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<html><head><title>Work</title></head><body><h1>Delivered work</h1><p>${MARKER}</p>${n ? `<p>${PART_MARKER(Number(n))}</p>` : ""}</body></html>`,
    );
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  operator = await newUser(service, chain.accounts[OPERATOR]!.privateKey);
}, 60_000);

afterAll(async () => {
  site?.close();
  await service?.stop();
  await chain?.stop();
});

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as `0x${string}`;
const balance = (i: number) => erc20BalanceOf({ config: chain.config, address: chain.accounts[i]!.address });
const USDC = (v: string) => parseUsdc(v);
const fee = (units: bigint) => (units * BigInt(chain.config.feeBps)) / 10_000n;

const PLAN = [
  {
    title: "Part one: research",
    amountUsdc: "12",
    acceptanceCriteria: "A list of 20 sources",
    proofContentMarker: PART_MARKER(1),
  },
  {
    title: "Part two: draft",
    amountUsdc: "10",
    acceptanceCriteria: "A draft of 2000 words",
    proofContentMarker: PART_MARKER(2),
  },
  { title: "Part three: final", amountUsdc: "8", acceptanceCriteria: "The final text, edited" },
];

interface Setup {
  poster: TestUser;
  agent: TestAgent;
  jobId: string;
  escrowJobId: `0x${string}`;
}

async function postJob(poster: TestUser, plan: unknown = PLAN, budget = "30") {
  return service.http("POST", "/v1/jobs", {
    token: poster.token,
    body: jobInput({
      budget,
      inputData: { budgetType: "bid", proofHoldHours: 0, proofContentMarker: MARKER },
      milestones: plan,
    }),
  });
}

async function assigned(plan: unknown[] = PLAN, budget = "30"): Promise<Setup> {
  const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
  const created = await postJob(poster, plan, budget);
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const job = created.json.data;
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[PAYER]!.privateKey,
    escrowJobId: hexOf(job.escrowJobId),
    amount: USDC(budget),
  });
  await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  const agent = await newAgent(service, { walletAddress: chain.accounts[WALLET]!.address });
  const bid = (
    await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: budget } })
  ).data;
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
  return { poster, agent, jobId: job.id, escrowJobId: hexOf(job.escrowJobId) };
}

const part = (s: Setup, n: number, verb: string, token: string, body?: unknown) =>
  service.http("POST", `/v1/jobs/${s.jobId}/milestones/${n}/${verb}`, { token, ...(body ? { body } : {}) });
const submitPart = (s: Setup, n: number) =>
  part(s, n, "submit", s.agent.apiKey, { outputData: { url: `${siteUrl}/part-${n}` } });
const listParts = async (s: Setup, token: string) =>
  (await service.http("GET", `/v1/jobs/${s.jobId}/milestones`, { token })).json.data as Array<Record<string, any>>;
const jobStatus = async (s: Setup) => (await s.poster.client.getJob({ params: { id: s.jobId } })).data.status;

describe("the plan", () => {
  it("amounts must add up to the budget exactly; a job without milestones has an empty plan", async () => {
    const poster = await newUser(service);
    const off = await postJob(poster, [PLAN[0], PLAN[1]]);
    expect(off.status).toBe(400);
    expect(JSON.stringify(off.json)).toContain("must add up to the budget");
    expect((await postJob(poster, [{ ...PLAN[0], amountUsdc: "12.0000001" }, PLAN[1], PLAN[2]])).status).toBe(400);
    expect((await postJob(poster, [])).status).toBe(400);
    expect((await postJob(poster, [{ ...PLAN[0], extra: 1 }, PLAN[1], PLAN[2]])).status).toBe(400);

    const ok = await postJob(poster);
    expect(ok.status).toBe(201);
    const parts = (await service.http("GET", `/v1/jobs/${ok.json.data.id}/milestones`, { token: poster.token })).json
      .data;
    expect(
      parts.map((p: { position: number; amountUsdc: string; status: string }) => [p.position, p.amountUsdc, p.status]),
    ).toEqual([
      [1, "12", "OPEN"],
      [2, "10", "OPEN"],
      [3, "8", "OPEN"],
    ]);
    expect(parts[0].proofContentMarker).toBe(PART_MARKER(1));
    // A stranger reads the plan, not the parties' private fields.
    const stranger = await newUser(service);
    const seen = (await service.http("GET", `/v1/jobs/${ok.json.data.id}/milestones`, { token: stranger.token })).json
      .data;
    expect(seen[0]).toMatchObject({ title: PLAN[0]!.title, proofContentMarker: null, deliverableUrl: null });

    const whole = await poster.client.createJob({ body: jobInput() });
    expect(
      (await service.http("GET", `/v1/jobs/${whole.data.id}/milestones`, { token: poster.token })).json.data,
    ).toEqual([]);
  });

  it("a bid accepted at another price scales the plan to it, the last part taking the rounding", async () => {
    const poster = await newUser(service);
    const job = (await postJob(poster)).json.data;
    const agent = await newAgent(service);
    const bid = (
      await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "20" } })
    ).data;
    await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
    const parts = (await service.http("GET", `/v1/jobs/${job.id}/milestones`, { token: poster.token })).json.data;
    expect(parts.map((p: { amountUsdc: string }) => p.amountUsdc)).toEqual(["8", "6.666666", "5.333334"]);
  });

  it("the edit before bids replaces the plan; a budget that no longer fits it is 400; after a bid the plan is 409", async () => {
    const poster = await newUser(service);
    const job = (await postJob(poster)).json.data;
    const patch = (body: unknown) => service.http("PATCH", `/v1/jobs/${job.id}`, { token: poster.token, body });
    expect((await patch({ budget: "40" })).status).toBe(400);
    const both = await patch({ budget: "40", milestones: [{ ...PLAN[0], amountUsdc: "40" }] });
    expect(both.status, JSON.stringify(both.json)).toBe(200);
    expect(
      (await service.http("GET", `/v1/jobs/${job.id}/milestones`, { token: poster.token })).json.data,
    ).toHaveLength(1);
    expect((await patch({ milestones: [PLAN[0]] })).status).toBe(400);
    const agent = await newAgent(service);
    await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } });
    const late = await patch({ milestones: [{ ...PLAN[0], amountUsdc: "40" }] });
    expect(late.status).toBe(409);
    expect(late.json.code).toBe("JOB_EDIT_NOT_ALLOWED");
  });
});

describe("a bid's own plan", () => {
  it("a bid may propose a plan adding up to its price (400 otherwise); accepting it adopts the plan for the job", async () => {
    const poster = await newUser(service);
    const job = (await postJob(poster)).json.data;
    const agent = await newAgent(service);
    const bid = (body: Record<string, unknown>) =>
      service.http("POST", `/v1/jobs/${job.id}/bids`, {
        token: agent.apiKey,
        body: { agentId: agent.id, proposedUsdc: "20", ...body },
      });
    const plan = [
      { title: "Outline and sources", amountUsdc: "12", acceptanceCriteria: "An outline with 10 sources" },
      { title: "The full text", amountUsdc: "8", acceptanceCriteria: "The text, 3000 words" },
    ];
    const off = await bid({ milestones: [plan[0], { ...plan[1], amountUsdc: "3" }] });
    expect(off.status).toBe(400);
    expect(off.json.message).toContain(
      "must add up to the budget: the amounts add up to 15 USDC, the budget is 20 USDC",
    );
    expect((await bid({ milestones: [{ ...plan[0], extra: true }, plan[1]] })).status).toBe(400);

    const placed = await bid({ milestones: plan });
    expect(placed.status, JSON.stringify(placed.json)).toBe(201);
    expect(placed.json.data.milestones.map((m: { amountUsdc: string }) => m.amountUsdc)).toEqual(["12", "8"]);
    // The poster reads the proposed plan on the bids list; a bid without one carries none.
    const other = await newAgent(service);
    await other.client.placeBid({ params: { id: job.id }, body: { agentId: other.id, proposedUsdc: "30" } });
    const listed = (await service.http("GET", `/v1/jobs/${job.id}/bids`, { token: poster.token })).json.data;
    expect(listed.find((b: { agentId: string }) => b.agentId === agent.id).milestones[1].title).toBe("The full text");
    expect(listed.find((b: { agentId: string }) => b.agentId === other.id)).not.toHaveProperty("milestones");

    const accepted = await service.http("POST", `/v1/jobs/${job.id}/bids/${placed.json.data.id}/accept`, {
      token: poster.token,
    });
    expect(accepted.status, JSON.stringify(accepted.json)).toBe(200);
    const parts = (await service.http("GET", `/v1/jobs/${job.id}/milestones`, { token: poster.token })).json.data;
    expect(parts.map((p: { title: string; amountUsdc: string }) => [p.title, p.amountUsdc])).toEqual([
      ["Outline and sources", "12"],
      ["The full text", "8"],
    ]);
    expect((await poster.client.getJob({ params: { id: job.id } })).data.budgetUsdc).toBe("20");
  });
});

describe("a 3-part job of 30 USDC settled part by part on chain", () => {
  it("part 1 approved and paid, part 2 disputed and split, part 3 cancelled and refunded: everything adds up to the deposit", async () => {
    const s = await assigned();
    const [payer0, agent0, fees0] = [await balance(PAYER), await balance(WALLET), await feesAccruedOf(chain.config)];

    // The whole-job submission is refused on a job paid in parts.
    const whole = await service.http("POST", `/v1/jobs/${s.jobId}/submit`, {
      token: s.agent.apiKey,
      body: { outputData: { url: `${siteUrl}/part-1` } },
    });
    expect(whole.status).toBe(409);
    // A part's deliverable must carry that part's marker.
    const wrong = await part(s, 1, "submit", s.agent.apiKey, { outputData: { url: `${siteUrl}/part-2` } });
    expect(wrong.status).toBe(422);
    expect(wrong.json.code).toBe("PROOF_CHECK_FAILED");
    // Only the poster approves; nothing submitted is nothing to approve.
    expect((await part(s, 1, "approve", s.poster.token)).status).toBe(409);

    // Part 1: delivered, approved, released at once (hold 0): 12 less the fee on 12.
    const sub = await submitPart(s, 1);
    expect(sub.status, JSON.stringify(sub.json)).toBe(200);
    expect(sub.json.data.status).toBe("SUBMITTED");
    expect((await part(s, 1, "approve", s.agent.apiKey)).status).toBe(403);
    const ap = await part(s, 1, "approve", s.poster.token);
    expect(ap.status, JSON.stringify(ap.json)).toBe(200);
    expect(ap.json.data).toMatchObject({ status: "RELEASED", settlement: { kind: "RELEASE", status: "CONFIRMED" } });
    expect(ap.json.data.settlement.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await balance(WALLET)) - agent0).toBe(USDC("12") - fee(USDC("12")));
    expect(await jobStatus(s)).toBe("IN_PROGRESS");
    // Approving it again answers the part and moves nothing.
    expect((await part(s, 1, "approve", s.poster.token)).json.data.status).toBe("RELEASED");
    expect((await balance(WALLET)) - agent0).toBe(USDC("12") - fee(USDC("12")));

    // Part 2: delivered, then disputed by the poster: only part 2 is frozen.
    expect((await submitPart(s, 2)).status).toBe(200);
    const dispute = await part(s, 2, "dispute", s.poster.token, { reason: "The draft is half the length asked for." });
    expect(dispute.status, JSON.stringify(dispute.json)).toBe(200);
    expect(dispute.json.data.status).toBe("DISPUTED");
    expect((await part(s, 2, "approve", s.poster.token)).status).toBe(409);
    expect((await part(s, 1, "dispute", s.poster.token, { reason: "Changed my mind about part one." })).status).toBe(
      409,
    );
    // The parties never rule; the operator does (no evaluator named).
    const byPoster = await part(s, 2, "ruling", s.poster.token, {
      outcome: "SPLIT",
      agentShare: 40,
      reason: "Half the draft was delivered.",
    });
    expect(byPoster.status).toBe(403);
    const ruled = await part(s, 2, "ruling", operator.token, {
      outcome: "SPLIT",
      agentShare: 40,
      reason: "Half the draft was delivered.",
    });
    expect(ruled.status, JSON.stringify(ruled.json)).toBe(200);
    expect(ruled.json.data).toMatchObject({
      status: "SPLIT",
      ruling: { outcome: "SPLIT", agentShare: 40 },
      settlement: { kind: "SPLIT", status: "CONFIRMED", payerAmountUsdc: "6" },
    });
    expect(
      (
        await part(s, 2, "ruling", operator.token, {
          outcome: "PAY_AGENT",
          reason: "A second ruling must not move anything.",
        })
      ).status,
    ).toBe(409);
    expect(await jobStatus(s)).toBe("IN_PROGRESS");

    // Part 3: the poster cancels the rest; the escrow refunds what the parts left (8).
    const cancelled = await service.http("POST", `/v1/jobs/${s.jobId}/cancel`, { token: s.poster.token });
    expect(cancelled.status, JSON.stringify(cancelled.json)).toBe(200);
    expect(cancelled.json.data.status).toBe("CANCELLED");
    expect(cancelled.json.data.refundTxHash).toMatch(/^0x/);
    const parts = await listParts(s, s.poster.token);
    expect(parts.map((p) => p.status)).toEqual(["RELEASED", "SPLIT", "REFUNDED"]);

    const agentGot = (await balance(WALLET)) - agent0;
    const payerGot = (await balance(PAYER)) - payer0;
    const fees = (await feesAccruedOf(chain.config)) - fees0;
    const share = USDC("4");
    expect(agentGot).toBe(USDC("12") - fee(USDC("12")) + share - fee(share));
    expect(payerGot).toBe(USDC("6") + USDC("8"));
    expect(agentGot + payerGot + fees).toBe(USDC("30"));

    // The records count parts: one released, one split (disputed), none refunded by a ruling.
    const records = await service.http("GET", `/v1/records?agentIds=${s.agent.id}&posterIds=${s.poster.id}`, {
      token: s.poster.token,
    });
    expect(records.status, JSON.stringify(records.json)).toBe(200);
    const parts3 = { released: 1, split: 1, refunded: 0, disputed: 1 };
    expect(JSON.stringify(records.json)).toContain(JSON.stringify(parts3).slice(1, -1));

    const events = await service.db
      .selectFrom("domain_events")
      .select("type")
      .where("job_id", "=", s.jobId)
      .orderBy("seq")
      .execute();
    const types = events.map((e) => e.type).filter((t) => t.startsWith("milestone."));
    expect(types).toEqual([
      "milestone.submitted",
      "milestone.approved",
      "milestone.paid",
      "milestone.submitted",
      "milestone.disputed",
      "milestone.resolved",
      "milestone.paid",
    ]);

    // The job's timeline shows every part: its steps, and each movement on chain with its transaction.
    const timeline = await service.http("GET", `/v1/jobs/${s.jobId}/events`, { token: s.poster.token });
    expect(timeline.status, JSON.stringify(timeline.json)).toBe(200);
    const partSteps = (timeline.json.data as Array<{ type: string; data: Record<string, unknown> }>)
      .filter((e) => e.type.startsWith("milestone."))
      .map((e) => `${e.type} ${e.data.position}`);
    expect(partSteps).toEqual([
      "milestone.submitted 1",
      "milestone.approved 1",
      "milestone.paid 1",
      "milestone.submitted 2",
      "milestone.disputed 2",
      "milestone.resolved 2",
      "milestone.paid 2",
    ]);
    const paidParts = (timeline.json.data as Array<{ type: string; data: Record<string, unknown> }>).filter(
      (e) => e.type === "milestone.paid",
    );
    expect(paidParts[0]!.data).toMatchObject({
      position: 1,
      amountUsdc: formatUsdc(USDC("12") - fee(USDC("12"))),
      feeUsdc: formatUsdc(fee(USDC("12"))),
    });
    expect(paidParts[1]!.data).toMatchObject({ payerAmountUsdc: "6" });
    for (const p of paidParts) expect(p.data.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    // The rest went back to the payer when the job was cancelled: the escrow's refund.
    expect(timeline.json.data.map((e: { type: string }) => e.type)).toContain("job.refunded");
  }, 120_000);

  it("the job stays IN_PROGRESS until its last part is settled, then is COMPLETED; a part in flight blocks cancellation", async () => {
    const s = await assigned([
      { ...PLAN[0], amountUsdc: "15" },
      { ...PLAN[1], amountUsdc: "15" },
    ]);
    // The page's Cancel follows the action: offered while no part is in flight, withdrawn once one is delivered.
    const canCancel = async () =>
      (await service.http("GET", `/v1/jobs/${s.jobId}`, { token: s.poster.token })).json.data.viewer.can.cancel;
    expect(await canCancel()).toBe(true);
    expect((await submitPart(s, 1)).status).toBe(200);
    expect(await canCancel()).toBe(false);
    const blocked = await service.http("POST", `/v1/jobs/${s.jobId}/cancel`, { token: s.poster.token });
    expect(blocked.status).toBe(409);
    expect((await part(s, 1, "approve", s.poster.token)).json.data.status).toBe("RELEASED");
    expect(await jobStatus(s)).toBe("IN_PROGRESS");
    expect((await submitPart(s, 2)).status).toBe(200);
    expect((await part(s, 2, "approve", s.poster.token)).json.data.status).toBe("RELEASED");
    expect(await jobStatus(s)).toBe("COMPLETED");
  }, 120_000);

  it("a late part (deadline passed, nothing delivered) is cancelled and refunded alone; a part on time is not", async () => {
    const s = await assigned([
      { ...PLAN[0], amountUsdc: "15" },
      { ...PLAN[1], amountUsdc: "15", deadlineAt: new Date(Date.now() + 86_400_000).toISOString() },
    ]);
    const cancel = (token: string) => part(s, 2, "cancel", token);
    const early = await cancel(s.poster.token);
    expect(early.status).toBe(409);
    expect(early.json.message).toContain("part 2 is not late");
    expect((await part(s, 1, "cancel", s.poster.token)).json.message).toContain("it has no deadline");
    // The deadline passes with nothing delivered.
    await service.db
      .updateTable("job_milestones")
      .set({ deadline_at: new Date(Date.now() - 60_000) })
      .where("job_id", "=", s.jobId)
      .where("position", "=", 2)
      .execute();
    expect((await cancel(s.agent.apiKey)).status).toBe(403);
    const payer0 = await balance(PAYER);
    const done = await cancel(s.poster.token);
    expect(done.status, JSON.stringify(done.json)).toBe(200);
    expect(done.json.data).toMatchObject({ status: "REFUNDED", settlement: { kind: "REFUND", status: "CONFIRMED" } });
    expect((await balance(PAYER)) - payer0).toBe(USDC("15"));
    // Again: the same refund, nothing moves twice.
    expect((await cancel(s.poster.token)).json.data.status).toBe("REFUNDED");
    expect((await balance(PAYER)) - payer0).toBe(USDC("15"));
    // The other part goes on; the last one settled completes the job.
    expect(await jobStatus(s)).toBe("IN_PROGRESS");
    expect((await submitPart(s, 1)).status).toBe(200);
    expect((await part(s, 1, "approve", s.poster.token)).json.data.status).toBe("RELEASED");
    expect(await jobStatus(s)).toBe("COMPLETED");
  }, 120_000);

  it("parallel approvals of one part pay it once", async () => {
    const s = await assigned([
      { ...PLAN[0], amountUsdc: "20" },
      { ...PLAN[1], amountUsdc: "10" },
    ]);
    expect((await submitPart(s, 1)).status).toBe(200);
    const agent0 = await balance(WALLET);
    const answers = await Promise.all(Array.from({ length: 6 }, () => part(s, 1, "approve", s.poster.token)));
    for (const a of answers) expect(a.status, JSON.stringify(a.json)).toBe(200);
    // Each answer is the part, released or on its way; once every sender is done it is paid once.
    const settlements = await service.db
      .selectFrom("milestone_settlements")
      .selectAll()
      .where("job_id", "=", s.jobId)
      .execute();
    expect(settlements).toHaveLength(1);
    expect((await listParts(s, s.poster.token))[0]!.status).toBe("RELEASED");
    expect((await balance(WALLET)) - agent0).toBe(USDC("20") - fee(USDC("20")));
    const paid = await service.db
      .selectFrom("domain_events")
      .select("type")
      .where("job_id", "=", s.jobId)
      .where("type", "=", "milestone.paid")
      .execute();
    expect(paid).toHaveLength(1);
    // The reconciliation sees the slot holding what the paid part left (10), with no difference for
    // this job (on a PostgreSQL database shared with other suites, their jobs are on other chains).
    const rec = await service.http("GET", "/v1/admin/reconciliation", { token: operator.token });
    expect(rec.status, JSON.stringify(rec.json)).toBe(200);
    expect(rec.json.data.differences.filter((d: { jobId: string | null }) => d.jobId === s.jobId)).toEqual([]);
  }, 120_000);
});
