// The release worker for parts leases what it takes and backs off a held part with its reason, so
// held parts never starve a due one: with 21 parts held (their deliverables went dead after
// approval) and one part that falls due, the due part is paid in the next round, on a real anvil.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { releaseDueMilestones } from "./milestone-actions";
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
const MARKER = "job-marker-picker-7b3e";

let chain: TestChain;
let service: TestService;
let site: http.Server;
let siteUrl: string;
/** Paths whose deliverable is gone (404). */
const dead = new Set<string>();

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config, probeAllowLoopback: true });
  site = http.createServer((req, res) => {
    if (dead.has(req.url ?? "")) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("gone");
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<html><head><title>Work</title></head><body><h1>Delivered work</h1><p>${MARKER}</p></body></html>`);
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  site?.close();
  await service?.stop();
  await chain?.stop();
});

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as `0x${string}`;
const balance = (i: number) => erc20BalanceOf({ config: chain.config, address: chain.accounts[i]!.address });
const fee = (units: bigint) => (units * BigInt(chain.config.feeBps)) / 10_000n;

/** A funded job of `parts` parts of 1 USDC each, assigned to `agent`, every part delivered at /<name>-<n> and approved (hold 1 h). */
async function approvedJob(poster: TestUser, agent: TestAgent, name: string, parts: number) {
  const plan = Array.from({ length: parts }, (_, i) => ({
    title: `Part ${i + 1} of ${name}`,
    amountUsdc: "1",
    acceptanceCriteria: `Deliverable ${i + 1}`,
  }));
  const created = await service.http("POST", "/v1/jobs", {
    token: poster.token,
    body: jobInput({
      budget: String(parts),
      inputData: { budgetType: "bid", proofHoldHours: 1, proofContentMarker: MARKER },
      milestones: plan,
    }),
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const job = created.json.data;
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[PAYER]!.privateKey,
    escrowJobId: hexOf(job.escrowJobId),
    amount: parseUsdc(String(parts)),
  });
  await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  const bid = (
    await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: String(parts) } })
  ).data;
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
  for (let n = 1; n <= parts; n++) {
    const path = `/v1/jobs/${job.id}/milestones/${n}`;
    const sub = await service.http("POST", `${path}/submit`, {
      token: agent.apiKey,
      body: { outputData: { url: `${siteUrl}/${name}-${n}` } },
    });
    expect(sub.status, JSON.stringify(sub.json)).toBe(200);
    const ap = await service.http("POST", `${path}/approve`, { token: poster.token });
    expect(ap.json.data.status).toBe("APPROVED");
  }
  return job.id as string;
}

const dueAt = (jobId: string, positions: number[], at: Date) =>
  service.db
    .updateTable("job_milestones")
    .set({ release_at: at })
    .where("job_id", "=", jobId)
    .where("position", "in", positions)
    .execute();

describe("the release worker for parts", () => {
  it("21 held parts and one due part: the due part is paid in the next round, the held ones wait with their reason", async () => {
    const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
    const agent = await newAgent(service, { walletAddress: chain.accounts[WALLET]!.address });
    const big = await approvedJob(poster, agent, "big", 20);
    const small = await approvedJob(poster, agent, "small", 2);
    // 21 deliverables go dead after approval, and their parts fall due two hours ago.
    for (let n = 1; n <= 20; n++) dead.add(`/big-${n}`);
    dead.add("/small-1");
    const longAgo = new Date(Date.now() - 2 * 3_600_000);
    await dueAt(
      big,
      [...Array(20).keys()].map((i) => i + 1),
      longAgo,
    );
    await dueAt(small, [1], longAgo);

    // Rounds pass: each held part is tried, held with its reason and put back.
    await releaseDueMilestones(service.ctx, { only: [big, small] });
    await releaseDueMilestones(service.ctx, { only: [big, small] });
    const listed = async (jobId: string) =>
      (await service.http("GET", `/v1/jobs/${jobId}/milestones`, { token: poster.token })).json.data as Array<{
        status: string;
        releaseHeldReason: string | null;
      }>;
    const held = [...(await listed(big)), (await listed(small))[0]!];
    expect(held.map((p) => p.status)).toEqual(Array(21).fill("APPROVED"));
    for (const p of held) expect(p.releaseHeldReason).toContain("the check at release failed");

    // The last part falls due now, after all of them: the next round pays it.
    await dueAt(small, [2], new Date(Date.now() - 60_000));
    const agent0 = await balance(WALLET);
    await releaseDueMilestones(service.ctx, { only: [big, small] });
    const [, due] = await listed(small);
    expect(due!.status).toBe("RELEASED");
    expect((await balance(WALLET)) - agent0).toBe(parseUsdc("1") - fee(parseUsdc("1")));
  }, 240_000);
});
