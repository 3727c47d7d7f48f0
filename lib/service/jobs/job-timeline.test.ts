import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
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

const PAGE =
  "<html><head><title>Leads</title></head><body><h1>50 fintech leads</h1><table><tr><td>Ada</td></tr></table></body></html>";
const operatorKey = generatePrivateKey();

let chain: TestChain;
let service: TestService;
let site: http.Server;
let siteUrl: string;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    chain: chain.config,
    probeAllowLoopback: true,
    operatorAddresses: [privateKeyToAccount(operatorKey).address],
  });
  site = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(PAGE);
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  site?.close();
  await service?.stop();
  await chain?.stop();
});

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as `0x${string}`;
const PAYER = 1;
const events = (jobId: string, token: string | undefined, query = "") =>
  service.http("GET", `/v1/jobs/${jobId}/events${query}`, { token });

interface Completed {
  poster: TestUser;
  agent: TestAgent;
  loser: TestAgent;
  jobId: string;
  depositTx: string;
  releaseTx: string;
}

/** A job taken through its whole life: posted, funded, two bids, one accepted, delivered, approved, released. */
async function completedJob(): Promise<Completed> {
  const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
  const job = (
    await poster.client.createJob({
      body: jobInput({ budget: "40", inputData: { budgetType: "bid", proofHoldHours: 0 } }),
    })
  ).data;
  const { txHash: depositTx } = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[PAYER]!.privateKey,
    escrowJobId: hexOf(job.escrowJobId),
    amount: parseUsdc("40"),
  });
  await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash: depositTx } });
  const agent = await newAgent(service, { walletAddress: chain.accounts[6]!.address });
  const loser = await newAgent(service);
  const bid = (await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } }))
    .data;
  await loser.client.placeBid({ params: { id: job.id }, body: { agentId: loser.id, proposedUsdc: "40" } });
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
  const submitted = await service.http("POST", `/v1/jobs/${job.id}/submit`, {
    token: agent.apiKey,
    body: { outputData: { url: `${siteUrl}/leads` } },
  });
  expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
  const done = (await poster.client.approveJob({ params: { id: job.id } })).data;
  expect(done.status).toBe("COMPLETED");
  return { poster, agent, loser, jobId: job.id, depositTx, releaseTx: done.releaseTxHash! };
}

let completed: Completed;
beforeAll(async () => {
  completed = await completedJob();
});

describe("GET /v1/jobs/:id/events", () => {
  it("lists a completed job's whole life in order, ending with the release and its tx hash", async () => {
    const { poster, agent, loser, jobId, depositTx, releaseTx } = completed;
    const res = await events(jobId, poster.token);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const list = res.json.data as Array<{
      id: string;
      type: string;
      at: string;
      actor: { kind: string; id: string | null } | null;
      data: Record<string, unknown>;
    }>;
    expect(list.map((e) => e.type)).toEqual([
      "job.created",
      "escrow.funded",
      "bid.created",
      "bid.created",
      "bid.accepted",
      "bid.rejected",
      "proof.checked",
      "job.submitted",
      "proof.checked",
      "job.approved",
      "proof.checked",
      "job.paid",
    ]);
    const at = list.map((e) => Date.parse(e.at));
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(new Set(list.map((e) => e.id)).size).toBe(list.length);

    expect(list[0]).toMatchObject({ id: `job.created:${jobId}`, actor: { kind: "USER", id: poster.id } });
    expect(list[1]!.data).toMatchObject({ txHash: depositTx, payer: chain.accounts[PAYER]!.address });
    expect(list.filter((e) => e.type === "bid.created").map((e) => e.actor?.id)).toEqual([agent.id, loser.id]);
    expect(list[4]!.data).toMatchObject({ agentId: agent.id });
    expect(list[5]!.data).toMatchObject({ agentId: loser.id });
    expect(list[6]!.data).toMatchObject({ trigger: "SUBMISSION", status: "LIVE" });
    expect(list[7]).toMatchObject({ actor: { kind: "AGENT", id: agent.id }, data: { url: `${siteUrl}/leads` } });
    expect(list[8]!.data).toMatchObject({ trigger: "APPROVAL" });
    expect(list[9]).toMatchObject({ actor: { kind: "USER", id: poster.id }, data: { autoApproved: false } });

    const settlement = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", jobId)
      .executeTakeFirstOrThrow();
    expect(settlement.tx_hash).toBe(releaseTx);
    expect(list[10]!.data).toMatchObject({ trigger: "RELEASE", status: "LIVE" });
    expect(list[11]).toMatchObject({
      id: `job.paid:${settlement.id}`,
      actor: { kind: "SYSTEM", id: null },
      data: { txHash: releaseTx, toAddress: chain.accounts[6]!.address, amountUsdc: "38", feeUsdc: "2" },
    });

    // The assigned agent reads the same timeline.
    const byAgent = await events(jobId, agent.apiKey);
    expect(byAgent.status).toBe(200);
    expect(byAgent.json.data).toEqual(list);
  });

  it("pages by cursor: two pages together are the whole timeline, in order", async () => {
    const { poster, jobId } = completed;
    const whole = (await events(jobId, poster.token)).json.data as Array<{ id: string }>;
    const first = await events(jobId, poster.token, "?limit=6");
    expect(first.json.meta).toMatchObject({ hasMore: true, limit: 6 });
    const second = await events(jobId, poster.token, `?limit=6&cursor=${first.json.meta.nextCursor}`);
    expect(second.json.meta).toMatchObject({ hasMore: false, nextCursor: null });
    expect([...first.json.data, ...second.json.data].map((e: { id: string }) => e.id)).toEqual(whole.map((e) => e.id));
    expect(second.json.data).toHaveLength(whole.length - 6);

    // The page boundary inside a run of the same millisecond: every limit gives the same sequence.
    for (const limit of [1, 2, 3]) {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await events(jobId, poster.token, `?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
        ids.push(...page.json.data.map((e: { id: string }) => e.id));
        cursor = page.json.meta.nextCursor;
      } while (cursor);
      expect(ids).toEqual(whole.map((e) => e.id));
    }

    expect((await events(jobId, poster.token, "?cursor=not-a-cursor")).status).toBe(400);
    expect((await events(jobId, poster.token, "?limit=501")).status).toBe(400);
  });

  it("is refused to a stranger, another agent and an anonymous caller; the operator reads it", async () => {
    const { jobId, loser } = completed;
    const stranger = await newUser(service);
    expect((await events(jobId, stranger.token)).status).toBe(403);
    expect((await events(jobId, loser.apiKey)).status).toBe(403);
    expect((await events(jobId, (await newAgent(service)).apiKey)).status).toBe(403);
    expect((await events(jobId, undefined)).status).toBe(401);
    expect((await events("00000000-0000-4000-8000-000000000000", stranger.token)).status).toBe(404);

    const operator = await newUser(service, operatorKey);
    const read = await events(jobId, operator.token);
    expect(read.status).toBe(200);
    // GET /v1/jobs/:id's viewer says the same, so the job page knows whether to show the timeline.
    const canRead = async (token: string) =>
      (await service.http("GET", `/v1/jobs/${jobId}`, { token })).json.data.viewer.can.readEvents;
    expect(await canRead(operator.token)).toBe(true);
    expect(await canRead(completed.poster.token)).toBe(true);
    expect(await canRead(completed.agent.apiKey)).toBe(true);
    expect(await canRead(stranger.token)).toBe(false);
    expect(await canRead(loser.apiKey)).toBe(false);
    expect(read.json.data.at(-1)).toMatchObject({ type: "job.paid", data: { txHash: completed.releaseTx } });
  });
});
