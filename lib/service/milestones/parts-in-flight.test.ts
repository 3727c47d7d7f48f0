// A part delivered, approved or disputed belongs to the agent who delivered it, on the HTTP surface
// against a real anvil: a bounty's claim does not lapse while such a part waits (nobody else can
// claim the job and approving the part pays its agent), a bid job is not stalled (the poster cannot
// reopen it), the poster cannot cancel the job for a refund of the part's money, a part's
// settlement pays the agent that delivered it even if the job changed hands, and a part its poster
// leaves alone is approved automatically after its proof hold and the review window.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { lapseExpiredClaims } from "../jobs/read-job";
import { autoApproveStaleMilestones } from "./milestone-actions";
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
import { claim, expireClaim } from "../testing/job-modes-support";

const PAYER = 1;
const FIRST_WALLET = 6;
const SECOND_WALLET = 7;
const MARKER = "job-marker-in-flight-4c1a";
const MARKER_OF_PART_2 = "part-two-marker-51e0";

let chain: TestChain;
let service: TestService;
let site: http.Server;
let siteUrl: string;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config, probeAllowLoopback: true });
  site = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<html><head><title>Work</title></head><body><h1>Delivered work</h1><p>${MARKER}</p><p>${MARKER_OF_PART_2}</p></body></html>`,
    );
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
const USDC = (v: string) => parseUsdc(v);
const fee = (units: bigint) => (units * BigInt(chain.config.feeBps)) / 10_000n;
const PLAN = [
  { title: "Part one: research", amountUsdc: "15", acceptanceCriteria: "A list of 20 sources" },
  {
    title: "Part two: the text",
    amountUsdc: "15",
    acceptanceCriteria: "A text of 2000 words",
    proofContentMarker: MARKER_OF_PART_2,
  },
];

interface Setup {
  poster: TestUser;
  agent: TestAgent;
  jobId: string;
}

/** A funded 30 USDC job in two parts, assigned to a fresh agent paid to FIRST_WALLET (claimed, or by its accepted bid). */
async function assignedJob(mode: "BOUNTY" | "BID", inputData: Record<string, unknown> = {}): Promise<Setup> {
  const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
  const created = await service.http("POST", "/v1/jobs", {
    token: poster.token,
    body: jobInput({
      budget: "30",
      participationMode: mode,
      ...(mode === "BOUNTY" ? { claimWindowMinutes: 5 } : {}),
      inputData: { budgetType: "bid", proofHoldHours: 0, proofContentMarker: MARKER, ...inputData },
      milestones: PLAN,
    }),
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const job = created.json.data;
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[PAYER]!.privateKey,
    escrowJobId: hexOf(job.escrowJobId),
    amount: USDC("30"),
  });
  await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  const agent = await newAgent(service, { walletAddress: chain.accounts[FIRST_WALLET]!.address });
  if (mode === "BOUNTY") {
    const claimed = await claim(service, agent, job.id);
    expect(claimed.status, JSON.stringify(claimed.json)).toBe(200);
  } else {
    const bid = (
      await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "30" } })
    ).data;
    await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
  }
  return { poster, agent, jobId: job.id };
}

const part = (s: Setup, n: number, verb: string, token: string, body?: unknown) =>
  service.http("POST", `/v1/jobs/${s.jobId}/milestones/${n}/${verb}`, { token, ...(body ? { body } : {}) });
const deliver = async (s: Setup, n: number) => {
  const res = await part(s, n, "submit", s.agent.apiKey, { outputData: { url: `${siteUrl}/part-${n}` } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
};
const readJob = async (s: Setup) =>
  (await service.http("GET", `/v1/jobs/${s.jobId}`, { token: s.poster.token })).json.data;

describe("a bounty with a delivered part", () => {
  it("keeps its claim past the window: nobody else claims it, the worker does not lapse it, and approving pays its agent", async () => {
    const s = await assignedJob("BOUNTY");
    await deliver(s, 1);
    await expireClaim(service, s.jobId, 60_000);

    expect(await readJob(s)).toMatchObject({ status: "IN_PROGRESS", agentId: s.agent.id });
    const newcomer = await newAgent(service, { walletAddress: chain.accounts[SECOND_WALLET]!.address });
    const taken = await claim(service, newcomer, s.jobId);
    expect(taken.status).toBe(409);
    expect(taken.json.code).toBe("ALREADY_CLAIMED");
    expect(await lapseExpiredClaims(service.ctx, { jobId: s.jobId })).toEqual([]);
    // The newcomer never reads the delivered work.
    const seen = await service.http("GET", `/v1/jobs/${s.jobId}/milestones`, { token: newcomer.apiKey });
    expect(seen.json.data[0].deliverableUrl).toBeNull();
    // The claimant cannot give it back either while the part waits.
    const given = await service.http("POST", `/v1/jobs/${s.jobId}/release-claim`, { token: s.agent.apiKey });
    expect(given.status).toBe(409);
    expect(given.json.code).toBe("NOT_CLAIMED");

    const [first0, second0] = [await balance(FIRST_WALLET), await balance(SECOND_WALLET)];
    const approved = await part(s, 1, "approve", s.poster.token);
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect(approved.json.data).toMatchObject({
      status: "RELEASED",
      settlement: { kind: "RELEASE", status: "CONFIRMED", to: chain.accounts[FIRST_WALLET]!.address },
    });
    expect((await balance(FIRST_WALLET)) - first0).toBe(USDC("15") - fee(USDC("15")));
    expect(await balance(SECOND_WALLET)).toBe(second0);
  }, 120_000);

  it("cannot be cancelled for a refund of the part's money once its claim window has passed", async () => {
    const s = await assignedJob("BOUNTY");
    await deliver(s, 1);
    await expireClaim(service, s.jobId, 60_000);
    // A read past the window (which lapses an ordinary claim) leaves it assigned.
    expect(await readJob(s)).toMatchObject({ status: "IN_PROGRESS", viewer: { can: { cancel: false } } });
    const payer0 = await balance(PAYER);
    const cancelled = await service.http("POST", `/v1/jobs/${s.jobId}/cancel`, { token: s.poster.token });
    expect(cancelled.status).toBe(409);
    expect(cancelled.json.code).toBe("INVALID_STATE");
    expect(await balance(PAYER)).toBe(payer0);
    expect(await readJob(s)).toMatchObject({ status: "IN_PROGRESS", agentId: s.agent.id });
  }, 120_000);
});

describe("a bid job with a delivered part", () => {
  it("is not stalled while the part waits on its poster; once it is paid the stall clock counts again", async () => {
    const s = await assignedJob("BID", { stallAfterHours: 1 });
    await deliver(s, 1);
    const silentFor = async (hours: number) =>
      service.db
        .updateTable("jobs")
        .set({ claimed_at: new Date(Date.now() - hours * 3_600_000), last_heartbeat_at: null })
        .where("id", "=", s.jobId)
        .execute();
    await silentFor(2);
    expect(await readJob(s)).toMatchObject({
      status: "IN_PROGRESS",
      stalled: false,
      viewer: { can: { reopen: false } },
    });
    const reopened = await service.http("POST", `/v1/jobs/${s.jobId}/reopen`, { token: s.poster.token });
    expect(reopened.status).toBe(409);
    expect(reopened.json.code).toBe("JOB_NOT_STALLED");
    expect(reopened.json.message).toContain("a part its agent delivered");

    expect((await part(s, 1, "approve", s.poster.token)).json.data.status).toBe("RELEASED");
    await silentFor(2);
    expect(await readJob(s)).toMatchObject({ stalled: true });
    const now = await service.http("POST", `/v1/jobs/${s.jobId}/reopen`, { token: s.poster.token });
    expect(now.status, JSON.stringify(now.json)).toBe(200);
  }, 120_000);

  it("a part's settlement pays the agent that delivered it, not whoever holds the job later", async () => {
    const s = await assignedJob("BID");
    await deliver(s, 1);
    // The job changes hands under the part (no route allows it while a part waits; the settlement must not trust it).
    const other = await newAgent(service, { walletAddress: chain.accounts[SECOND_WALLET]!.address });
    await service.db.updateTable("jobs").set({ agent_id: other.id }).where("id", "=", s.jobId).execute();
    // The new agent reads its own parts' private fields, never the deliverable another agent delivered.
    const seen = (await service.http("GET", `/v1/jobs/${s.jobId}/milestones`, { token: other.apiKey })).json.data;
    expect(seen.map((p: { deliverableUrl: string | null }) => p.deliverableUrl)).toEqual([null, null]);
    expect(seen[1].proofContentMarker).toBe(MARKER_OF_PART_2);
    const [first0, second0] = [await balance(FIRST_WALLET), await balance(SECOND_WALLET)];
    const approved = await part(s, 1, "approve", s.poster.token);
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect(approved.json.data.status).toBe("RELEASED");
    expect((await balance(FIRST_WALLET)) - first0).toBe(USDC("15") - fee(USDC("15")));
    expect(await balance(SECOND_WALLET)).toBe(second0);
    const paid = await service.db
      .selectFrom("domain_events")
      .select("data")
      .where("job_id", "=", s.jobId)
      .where("type", "=", "milestone.paid")
      .executeTakeFirstOrThrow();
    expect(paid.data).toMatchObject({ agentId: s.agent.id });
  }, 120_000);
});

describe("a delivered part its poster leaves alone", () => {
  it("is approved automatically after its proof hold and the review window, like a whole job, and paid to its agent", async () => {
    const s = await assignedJob("BID", { proofHoldHours: 2 });
    await deliver(s, 1);
    await deliver(s, 2);
    const window = service.ctx.config.reviewWindowHours;
    const submittedAgo = (position: number, hours: number) =>
      service.db
        .updateTable("job_milestones")
        .set({ submitted_at: new Date(Date.now() - hours * 3_600_000) })
        .where("job_id", "=", s.jobId)
        .where("position", "=", position)
        .execute();
    // Part 1 has waited through the hold and the window; part 2 is an hour short of it.
    await submittedAgo(1, 2 + window + 0.1);
    await submittedAgo(2, 2 + window - 1);
    const agent0 = await balance(FIRST_WALLET);
    // The release worker's round for parts (milestones/worker.ts), for this job only: other suites share the database.
    await autoApproveStaleMilestones(service.ctx, { only: [s.jobId] });

    const parts = (await service.http("GET", `/v1/jobs/${s.jobId}/milestones`, { token: s.poster.token })).json.data;
    expect(parts.map((p: { status: string }) => p.status)).toEqual(["RELEASED", "SUBMITTED"]);
    expect((await balance(FIRST_WALLET)) - agent0).toBe(USDC("15") - fee(USDC("15")));
    const approved = await service.db
      .selectFrom("domain_events")
      .select(["data", "actor_id"])
      .where("job_id", "=", s.jobId)
      .where("type", "=", "milestone.approved")
      .executeTakeFirstOrThrow();
    expect(approved).toMatchObject({ actor_id: null, data: { position: 1, automatic: true, agentId: s.agent.id } });
  }, 120_000);
});
