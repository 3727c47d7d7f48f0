import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20BalanceOf, getEscrow } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { finishPendingSettlements, SETTLEMENT_LEASE_MS } from "../escrow/settle-job";
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
import { announceSettledRulings, escalateDueDisputes } from "./escalate-disputes";

const HOUR = 3600_000;
const PAYER = 1;
const AGENT_WALLET = 6;
const EVALUATOR = 8;
const OPERATOR = 9;
const page = (body: string) => `<html><head><title>Evidence</title></head><body>${body}</body></html>`;
const SCREENSHOT = page("<h1>Chat log</h1><p>The poster asked for 50 leads and got 50 leads.</p>");

let chain: TestChain;
let service: TestService;
let site: http.Server;
let siteUrl: string;
let operator: TestUser;
let evaluator: TestUser;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    chain: chain.config,
    probeAllowLoopback: true,
    operatorAddresses: [chain.accounts[OPERATOR]!.address],
  });
  site = http.createServer((req, res) => {
    if (req.url === "/evidence") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(SCREENSHOT);
    } else if (req.url === "/work") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(page("<h1>50 fintech leads</h1><table><tr><td>Ada</td></tr></table>"));
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    }
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  [operator, evaluator] = await Promise.all([
    newUser(service, chain.accounts[OPERATOR]!.privateKey),
    newUser(service, chain.accounts[EVALUATOR]!.privateKey),
  ]);
});
afterAll(async () => {
  site?.close();
  await service?.stop();
  await chain?.stop();
});

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as `0x${string}`;
const balanceOf = (index: number) => erc20BalanceOf({ config: chain.config, address: chain.accounts[index]!.address });

interface Disputed {
  poster: TestUser;
  agent: TestAgent;
  job: { id: string; escrowJobId: Record<string, number> };
}

/** A funded job, delivered (REVIEW), then disputed by `by`. */
async function disputedJob(
  options: { evaluator?: string; by?: "POSTER" | "AGENT"; budget?: string } = {},
): Promise<Disputed> {
  const budget = options.budget ?? "40";
  const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
  const created = await service.http("POST", "/v1/jobs", {
    token: poster.token,
    body: jobInput({
      budget,
      inputData: { budgetType: "bid", proofHoldHours: 0 },
      ...(options.evaluator ? { evaluatorAddress: options.evaluator } : {}),
    }),
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const job = created.json.data;
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[PAYER]!.privateKey,
    escrowJobId: hexOf(job.escrowJobId),
    amount: parseUsdc(budget),
  });
  await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  const agent = await newAgent(service, { walletAddress: chain.accounts[AGENT_WALLET]!.address });
  const bid = (
    await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: budget } })
  ).data;
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
  const submitted = await service.http("POST", `/v1/jobs/${job.id}/submit`, {
    token: agent.apiKey,
    body: { outputData: { url: `${siteUrl}/work` } },
  });
  expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
  const token = options.by === "AGENT" ? agent.apiKey : poster.token;
  const disputed = await service.http("POST", `/v1/jobs/${job.id}/dispute`, {
    token,
    body: { reason: "The leads are not what was asked for." },
  });
  expect(disputed.status, JSON.stringify(disputed.json)).toBe(200);
  return { poster, agent, job };
}

const getCase = (jobId: string, token: string) => service.http("GET", `/v1/jobs/${jobId}/dispute`, { token });
const state = (jobId: string, token: string, body: unknown) =>
  service.http("POST", `/v1/jobs/${jobId}/dispute/statements`, { token, body });
const rule = (jobId: string, token: string, body: unknown) =>
  service.http("POST", `/v1/jobs/${jobId}/dispute/ruling`, { token, body });
const SPLIT_70 = { outcome: "SPLIT", agentShare: 70, reason: "Most of the leads were delivered as asked." };
const eventsOf = (jobId: string) =>
  service.db.selectFrom("domain_events").selectAll().where("job_id", "=", jobId).orderBy("seq").execute();

describe("a dispute opens a case that both sides argue with probed evidence", () => {
  it("the assigned agent's key opens it; both sides add statements whose evidence is probed and hashed; deadlines show; strangers are refused", async () => {
    const d = await disputedJob({ by: "AGENT" });
    const opened = await getCase(d.job.id, d.poster.token);
    expect(opened.status, JSON.stringify(opened.json)).toBe(200);
    const kase = opened.json.data;
    expect(kase).toMatchObject({
      status: "OPEN",
      openedBy: "AGENT",
      arbiter: "OPERATOR",
      evaluatorAddress: null,
      ruling: null,
      statements: [],
      viewer: { role: "POSTER", can: { addStatement: true, rule: false } },
    });
    const openedAt = Date.parse(kase.createdAt);
    expect(Date.parse(kase.answerDeadlineAt) - openedAt).toBe(72 * HOUR);
    expect(Date.parse(kase.rulingDeadlineAt) - openedAt).toBe(168 * HOUR);
    // The work under dispute, and its proof history, are part of the case (the submission's check).
    expect(kase.deliverable).toMatchObject({ url: expect.stringContaining(siteUrl), proofHash: expect.any(String) });
    expect(kase.proofChecks.map((c: { trigger: string; status: string }) => [c.trigger, c.status])).toEqual([
      ["SUBMISSION", "LIVE"],
    ]);
    expect(kase.timeline.map((e: { type: string }) => e.type)).toContain("job.disputed");

    const byPoster = await state(d.job.id, d.poster.token, {
      body: "Half the rows have no email.",
      evidenceUrls: [`${siteUrl}/evidence`, `${siteUrl}/gone`],
    });
    expect(byPoster.status, JSON.stringify(byPoster.json)).toBe(201);
    expect(byPoster.json.data).toMatchObject({ side: "POSTER", author: { kind: "USER", id: d.poster.id } });
    const [live, gone] = byPoster.json.data.evidence;
    expect(live).toMatchObject({
      url: `${siteUrl}/evidence`,
      status: "LIVE",
      httpStatus: 200,
      contentSha256: createHash("sha256").update(SCREENSHOT, "utf8").digest("hex"),
    });
    expect(gone).toMatchObject({ url: `${siteUrl}/gone`, status: "HTTP_ERROR", httpStatus: 404, contentSha256: null });

    const byAgent = await state(d.job.id, d.agent.apiKey, {
      body: "Every row has an email; see the sheet.",
      evidenceUrls: [`${siteUrl}/work`],
    });
    expect(byAgent.status, JSON.stringify(byAgent.json)).toBe(201);
    expect(byAgent.json.data).toMatchObject({
      side: "AGENT",
      author: { kind: "AGENT", id: d.agent.id },
      evidence: [{ status: "LIVE" }],
    });

    // The marketplace itself is never evidence: refused before anything is probed or kept.
    const own = await state(d.job.id, d.poster.token, {
      body: "See the job page.",
      evidenceUrls: [`${service.baseUrl}/jobs/${d.job.id}`],
    });
    expect(own.status).toBe(400);
    expect(own.json.code).toBe("EVIDENCE_URL_NOT_ALLOWED");

    // A stranger neither reads nor writes; the operator reads.
    const stranger = await newUser(service);
    const strangerAgent = await newAgent(service);
    expect((await getCase(d.job.id, stranger.token)).status).toBe(403);
    expect((await getCase(d.job.id, strangerAgent.apiKey)).status).toBe(403);
    expect((await state(d.job.id, stranger.token, { body: "I have an opinion." })).status).toBe(403);
    expect((await service.http("GET", `/v1/jobs/${d.job.id}/events`, { token: stranger.token })).status).toBe(403);
    const asOperator = await getCase(d.job.id, operator.token);
    expect(asOperator.status).toBe(200);
    expect(asOperator.json.data.viewer).toEqual({ role: "OPERATOR", can: { addStatement: false, rule: true } });
    expect(asOperator.json.data.statements.map((s: { side: string }) => s.side)).toEqual(["POSTER", "AGENT"]);

    // Statements show on the timeline; events told the other side.
    const timeline = await service.http("GET", `/v1/jobs/${d.job.id}/events`, { token: d.agent.apiKey });
    expect(
      timeline.json.data
        .filter((e: { type: string }) => e.type === "dispute.statement")
        .map((e: { data: { side: string } }) => e.data.side),
    ).toEqual(["POSTER", "AGENT"]);
    // Other domains announce the job's earlier steps (bids, submission); these are the dispute's own.
    const events = (await eventsOf(d.job.id)).filter((e) => e.type === "job.disputed" || e.type.startsWith("dispute."));
    expect(events.map((e) => e.type)).toEqual(["job.disputed", "dispute.statement", "dispute.statement"]);
    expect(events[1]!.recipient_ids).toEqual(expect.arrayContaining([d.poster.id, d.agent.id, operator.id]));

    // After the answer deadline the case takes no more statements.
    await service.db
      .updateTable("dispute_cases")
      .set({ answer_deadline_at: new Date(Date.now() - 1000) })
      .where("job_id", "=", d.job.id)
      .execute();
    const late = await state(d.job.id, d.agent.apiKey, { body: "One more thing." });
    expect(late.status).toBe(409);
    expect(late.json.code).toBe("DISPUTE_CLOSED");
    expect((await getCase(d.job.id, d.agent.apiKey)).json.data.viewer.can.addStatement).toBe(false);
  });

  it("a job that was never disputed has no case", async () => {
    const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    expect((await getCase(job.id, poster.token)).status).toBe(404);
  });
});

describe("rulings", () => {
  it("a named evaluator rules alone: the operator and the parties are refused; a 70/30 split pays once on chain; a second ruling is 409 and moves nothing", async () => {
    const evaluatorAddress = chain.accounts[EVALUATOR]!.address;
    const d = await disputedJob({ evaluator: evaluatorAddress });
    // Shown on the job before anyone bids (the public read).
    expect((await service.client().getPublicJob({ params: { id: d.job.id } })).data.evaluatorAddress).toBe(
      evaluatorAddress.toLowerCase(),
    );

    const asOperator = await rule(d.job.id, operator.token, SPLIT_70);
    expect(asOperator.status).toBe(403);
    expect(asOperator.json.code).toBe("NOT_ARBITER");
    expect((await rule(d.job.id, d.poster.token, SPLIT_70)).json.code).toBe("NOT_ARBITER");
    expect((await rule(d.job.id, d.agent.apiKey, SPLIT_70)).json.code).toBe("HUMAN_SESSION_REQUIRED");
    // SPLIT needs a share; the other outcomes take none.
    expect(
      (await rule(d.job.id, evaluator.token, { outcome: "SPLIT", reason: "Most of the leads were fine." })).status,
    ).toBe(400);
    expect(
      (
        await rule(d.job.id, evaluator.token, {
          outcome: "PAY_AGENT",
          agentShare: 70,
          reason: "Most of the leads were fine.",
        })
      ).status,
    ).toBe(400);

    const evaluatorView = await getCase(d.job.id, evaluator.token);
    expect(evaluatorView.json.data).toMatchObject({
      arbiter: "EVALUATOR",
      viewer: { role: "EVALUATOR", can: { rule: true } },
    });
    expect((await service.http("GET", `/v1/jobs/${d.job.id}/events`, { token: evaluator.token })).status).toBe(200);

    const [agentBefore, payerBefore, escrowBefore] = await Promise.all([
      balanceOf(AGENT_WALLET),
      balanceOf(PAYER),
      erc20BalanceOf({ config: chain.config, address: chain.config.escrowAddress }),
    ]);
    const ruled = await rule(d.job.id, evaluator.token, SPLIT_70);
    expect(ruled.status, JSON.stringify(ruled.json)).toBe(200);
    const settlement = ruled.json.data.ruling.settlement;
    // 70 % of 40 is 28; the 5 % fee comes only out of the agent's share (1.4); 12 goes back to the payer.
    expect(ruled.json.data).toMatchObject({
      status: "RULED",
      ruling: { outcome: "SPLIT", agentShare: 70, arbiter: "EVALUATOR", ruledBy: evaluatorAddress.toLowerCase() },
    });
    expect(settlement).toMatchObject({
      kind: "SPLIT",
      status: "CONFIRMED",
      agentAmountUsdc: "26.6",
      feeUsdc: "1.4",
      payerAmountUsdc: "12",
    });
    expect(settlement.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await balanceOf(AGENT_WALLET)) - agentBefore).toBe(parseUsdc("26.6"));
    expect((await balanceOf(PAYER)) - payerBefore).toBe(parseUsdc("12"));
    // The 1.4 fee stays in the escrow contract (feesAccrued) until the operator withdraws it to the treasury.
    expect(escrowBefore - (await erc20BalanceOf({ config: chain.config, address: chain.config.escrowAddress }))).toBe(
      parseUsdc("38.6"),
    );
    expect(
      (
        await getEscrow({
          config: chain.config,
          escrowJobId: hexOf(d.job.escrowJobId),
          payer: chain.accounts[PAYER]!.address,
        })
      ).state,
    ).toBe("SPLIT");
    const job = (await d.poster.client.getJob({ params: { id: d.job.id } })).data;
    expect(job).toMatchObject({ status: "COMPLETED", releaseTxHash: settlement.txHash });

    // Again, by the evaluator or anyone: 409 (or 403), and nothing moves.
    const again = await rule(d.job.id, evaluator.token, {
      outcome: "PAY_AGENT",
      reason: "On second thought, all of it.",
    });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ code: "DISPUTE_ALREADY_RULED", outcome: "SPLIT", agentShare: 70 });
    expect((await rule(d.job.id, operator.token, SPLIT_70)).status).toBe(403);
    expect((await balanceOf(AGENT_WALLET)) - agentBefore).toBe(parseUsdc("26.6"));
    expect(
      await service.db
        .selectFrom("dispute_rulings as r")
        .innerJoin("dispute_cases as c", "c.id", "r.case_id")
        .select("r.id")
        .where("c.job_id", "=", d.job.id)
        .execute(),
    ).toHaveLength(1);

    // The timeline and the announcements carry the ruling and its receipt; an evaluator's ruling is no operator action.
    const timeline = (
      await service.http("GET", `/v1/jobs/${d.job.id}/events`, { token: evaluator.token })
    ).json.data.map((e: { type: string }) => e.type);
    expect(timeline.slice(-3)).toEqual(["job.disputed", "dispute.resolved", "job.paid"]);
    const resolved = (await eventsOf(d.job.id)).filter((e) => e.type === "dispute.resolved");
    expect(resolved).toHaveLength(1);
    expect(resolved[0]!.data).toMatchObject({ outcome: "SPLIT", agentShare: 70, txHash: settlement.txHash });
    expect(resolved[0]!.recipient_ids).toEqual(expect.arrayContaining([d.poster.id, d.agent.id, evaluator.id]));
    expect(
      await service.db.selectFrom("operator_actions").select("id").where("subject_id", "=", d.job.id).execute(),
    ).toHaveLength(0);
  });

  it("an evaluator's case nobody rules on escalates by the worker; then the operator rules (audited) and the evaluator no longer can", async () => {
    const d = await disputedJob({ evaluator: chain.accounts[EVALUATOR]!.address });
    expect(await escalateDueDisputes(service.ctx, { now: new Date(Date.now() + 167 * HOUR), only: [d.job.id] })).toBe(
      0,
    );
    expect(
      (await rule(d.job.id, operator.token, { outcome: "REFUND_POSTER", reason: "The work never matched the brief." }))
        .json.code,
    ).toBe("NOT_ARBITER");

    expect(await escalateDueDisputes(service.ctx, { now: new Date(Date.now() + 169 * HOUR), only: [d.job.id] })).toBe(
      1,
    );
    expect(await escalateDueDisputes(service.ctx, { now: new Date(Date.now() + 170 * HOUR), only: [d.job.id] })).toBe(
      0,
    );
    const escalated = (await getCase(d.job.id, operator.token)).json.data;
    expect(escalated).toMatchObject({ status: "ESCALATED", arbiter: "OPERATOR", viewer: { can: { rule: true } } });
    expect(escalated.escalatedAt).not.toBeNull();
    expect(escalated.timeline.map((e: { type: string }) => e.type)).toContain("dispute.escalated");
    const escalation = (await eventsOf(d.job.id)).find((e) => e.type === "dispute.escalated");
    expect(escalation?.recipient_ids).toEqual(
      expect.arrayContaining([d.poster.id, d.agent.id, operator.id, evaluator.id]),
    );

    expect((await rule(d.job.id, evaluator.token, SPLIT_70)).json.code).toBe("NOT_ARBITER");
    const payerBefore = await balanceOf(PAYER);
    const ruled = await rule(d.job.id, operator.token, {
      outcome: "REFUND_POSTER",
      reason: "The work never matched the brief.",
    });
    expect(ruled.status, JSON.stringify(ruled.json)).toBe(200);
    expect(ruled.json.data).toMatchObject({
      ruling: {
        arbiter: "OPERATOR",
        outcome: "REFUND_POSTER",
        agentShare: 0,
        settlement: { kind: "REFUND", status: "CONFIRMED", payerAmountUsdc: "40" },
      },
    });
    expect((await balanceOf(PAYER)) - payerBefore).toBe(parseUsdc("40"));
    expect((await d.poster.client.getJob({ params: { id: d.job.id } })).data).toMatchObject({ status: "CANCELLED" });
    const audit = await service.db
      .selectFrom("operator_actions")
      .selectAll()
      .where("subject_id", "=", d.job.id)
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: "dispute.rule",
      operator_user_id: operator.id,
      reason: "The work never matched the brief.",
    });
  });

  it("without an evaluator the operator rules at once, and the operator's queue lists the case with its deadline", async () => {
    const d = await disputedJob();
    const queue = await service.http("GET", "/v1/disputes?status=OPEN&limit=100", { token: operator.token });
    expect(queue.status).toBe(200);
    expect(queue.json.data.find((c: { jobId: string }) => c.jobId === d.job.id)).toMatchObject({
      status: "OPEN",
      arbiter: "OPERATOR",
      outcome: null,
    });
    expect((await service.http("GET", "/v1/disputes", { token: d.poster.token })).json.code).toBe("NOT_OPERATOR");

    const agentBefore = await balanceOf(AGENT_WALLET);
    const ruled = await rule(d.job.id, operator.token, {
      outcome: "PAY_AGENT",
      reason: "The deliverable matches the brief.",
    });
    expect(ruled.status, JSON.stringify(ruled.json)).toBe(200);
    expect(ruled.json.data.ruling.settlement).toMatchObject({
      kind: "RELEASE",
      status: "CONFIRMED",
      agentAmountUsdc: "38",
      feeUsdc: "2",
    });
    expect((await balanceOf(AGENT_WALLET)) - agentBefore).toBe(parseUsdc("38"));
    expect((await d.poster.client.getJob({ params: { id: d.job.id } })).data.status).toBe("COMPLETED");
    const ruledQueue = await service.http("GET", "/v1/disputes?status=RULED&limit=100", { token: operator.token });
    expect(ruledQueue.json.data.find((c: { jobId: string }) => c.jobId === d.job.id)).toMatchObject({
      status: "RULED",
      outcome: "PAY_AGENT",
    });
  });

  it("a crash between sending and recording: the settlement worker finishes the ruling's split once, and dispute.resolved follows with the tx hash", async () => {
    const d = await disputedJob();
    service.crashPoints.afterSettlementSend = () => {
      throw new Error("simulated crash after the transaction was sent");
    };
    const agentBefore = await balanceOf(AGENT_WALLET);
    let ruled;
    try {
      ruled = await rule(d.job.id, operator.token, SPLIT_70);
    } finally {
      service.crashPoints.afterSettlementSend = undefined;
    }
    expect(ruled.status, JSON.stringify(ruled.json)).toBe(200);
    expect(ruled.json.data.ruling.settlement).toMatchObject({ kind: "SPLIT", status: "PENDING", txHash: null });
    expect((await eventsOf(d.job.id)).filter((e) => e.type === "dispute.resolved")).toHaveLength(0);
    // The money moved once already; a retry by anyone is refused, and the worker records the same transaction.
    expect((await rule(d.job.id, operator.token, SPLIT_70)).status).toBe(409);
    const round = await finishPendingSettlements(service.ctx, {
      now: new Date(Date.now() + SETTLEMENT_LEASE_MS + 1000),
      only: [d.job.id],
    });
    expect(round).toMatchObject({ confirmed: 1 });
    expect((await balanceOf(AGENT_WALLET)) - agentBefore).toBe(parseUsdc("26.6"));
    expect(await announceSettledRulings(service.ctx, { only: [d.job.id] })).toBe(1);
    expect(await announceSettledRulings(service.ctx, { only: [d.job.id] })).toBe(0);
    const kase = (await getCase(d.job.id, d.agent.apiKey)).json.data;
    expect(kase.ruling.settlement).toMatchObject({
      status: "CONFIRMED",
      agentAmountUsdc: "26.6",
      payerAmountUsdc: "12",
    });
    const resolved = (await eventsOf(d.job.id)).filter((e) => e.type === "dispute.resolved");
    expect(resolved).toHaveLength(1);
    expect(resolved[0]!.data).toMatchObject({ outcome: "SPLIT", txHash: kase.ruling.settlement.txHash });
  });
});

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))("rulings on PostgreSQL", () => {
  it("eight parallel rulings: one is made, one settlement, the money moves once", async () => {
    const d = await disputedJob();
    const agentBefore = await balanceOf(AGENT_WALLET);
    const payerBefore = await balanceOf(PAYER);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        rule(
          d.job.id,
          operator.token,
          i % 2 === 0 ? SPLIT_70 : { outcome: "REFUND_POSTER", reason: "A different click, at the same time." },
        ),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(7);
    expect(results.filter((r) => r.status === 409).every((r) => r.json.code === "DISPUTE_ALREADY_RULED")).toBe(true);
    const winner = results.find((r) => r.status === 200)!.json.data.ruling;
    const settlements = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", d.job.id)
      .execute();
    expect(settlements).toHaveLength(1);
    const rulings = await service.db
      .selectFrom("dispute_rulings as r")
      .innerJoin("dispute_cases as c", "c.id", "r.case_id")
      .select("r.outcome")
      .where("c.job_id", "=", d.job.id)
      .execute();
    expect(rulings).toEqual([{ outcome: winner.outcome }]);
    const agentGot = (await balanceOf(AGENT_WALLET)) - agentBefore;
    const payerGot = (await balanceOf(PAYER)) - payerBefore;
    if (winner.outcome === "SPLIT") expect([agentGot, payerGot]).toEqual([parseUsdc("26.6"), parseUsdc("12")]);
    else expect([agentGot, payerGot]).toEqual([0n, parseUsdc("40")]);
  });
});
