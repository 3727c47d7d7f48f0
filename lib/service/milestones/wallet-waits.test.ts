// Approving work of an agent without a payout wallet (the slot fixed no agent address), on the HTTP
// surface against a real anvil: the approval of a part or of a whole job is accepted, the money
// waits in escrow and says so, the agent's owner is told at once (inbox and mail), the poster's
// "ask the owner" works on a job paid in parts, and the release goes out when the owner sets the
// wallet, once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { fanOutNotifications } from "../notifications/fan-out";
import {
  GENEROUS_BUDGETS,
  claimLinkFor,
  jobInput,
  mailTextFor,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";
import {
  assignedPartsJob,
  hexOfWire,
  JOB_MARKER,
  partAction,
  startPartsSite,
  submitPart,
} from "../testing/parts-support";

const PAYER = 2;
const WALLET = 7;

let chain: TestChain;
let service: TestService;
let site: Awaited<ReturnType<typeof startPartsSite>>;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config, probeAllowLoopback: true });
  site = await startPartsSite();
}, 60_000);

afterAll(async () => {
  site?.close();
  await service?.stop();
  await chain?.stop();
});

let counter = 0;
const ownerEmailOf = () => `wallet-waits-${process.pid}-${Date.now()}-${(counter += 1)}@example.test`;
const wallet = () => chain.accounts[WALLET]!.address;
const balance = () => erc20BalanceOf({ config: chain.config, address: wallet() });
const fee = (units: bigint) => (units * BigInt(chain.config.feeBps)) / 10_000n;
const mailsTo = (to: string) =>
  service.db.selectFrom("mail_outbox").select(["subject"]).where("to_address", "=", to).orderBy("created_at").execute();

/** The human who owns the agent, signed in, having claimed it from the link mailed to `email`. */
async function claimedBy(email: string, agentId: string): Promise<TestUser> {
  const owner = await newUser(service);
  await owner.client.claimAgent({ params: { token: await claimLinkFor(service, email) } });
  const mine = await owner.client.listMyAgents({});
  expect(mine.data.map((a: { id: string }) => a.id)).toContain(agentId);
  return owner;
}

async function inboxOf(owner: TestUser) {
  while ((await fanOutNotifications(service.ctx)) > 0) {
    /* next batch */
  }
  return (await service.http("GET", "/v1/notifications", { token: owner.token })).json.data as Array<{
    type: string;
    text: string;
  }>;
}

/** Polls (the release runs after the wallet's answer) until `check` holds; generous for a loaded machine. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > until) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("approving a part for an agent without a payout wallet", () => {
  it("is accepted, the part waits in escrow, the owner is told at once, and setting the wallet pays it once", async () => {
    const email = ownerEmailOf();
    const job = await assignedPartsJob(service, chain, {
      payer: PAYER,
      amounts: ["10", "10"],
      agentWallet: null,
      agentOwnerEmail: email,
    });
    const owner = await claimedBy(email, job.agent.id);
    const mailsBefore = (await mailsTo(email)).length;
    await submitPart(service, job, 1, site.url);

    const approved = await partAction(service, job, 1, "approve", job.poster.token);
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect(approved.json.data).toMatchObject({ status: "APPROVED", settlement: null });
    expect(approved.json.data.releaseHeldReason).toMatch(/waits in escrow until the agent has a payout wallet/);

    // Told at once: a mail to the owner, and the approval in their inbox saying the money waits.
    const mails = await mailsTo(email);
    expect(mails.length - mailsBefore).toBeGreaterThanOrEqual(1);
    expect(mails.at(-1)).toMatchObject({ subject: expect.stringContaining("payout wallet") });
    expect(await mailTextFor(service, email)).toContain("approved part 1 of");
    const inbox = await inboxOf(owner);
    expect(inbox.find((n) => n.type === "milestone.approved")?.text).toMatch(/waits in escrow/);
    // The owner was told today already: the poster's "ask the owner" waits a day, as on a whole job.
    const asked = await service.http("POST", `/v1/jobs/${job.jobId}/wallet-reminder`, { token: job.poster.token });
    expect([asked.status, asked.json.code]).toEqual([409, "REMINDER_ALREADY_SENT"]);

    // The owner sets the wallet: the part is released to it, once.
    const before = await balance();
    const set = await service.http("PATCH", `/v1/agents/${job.agent.id}`, {
      token: owner.token,
      body: { walletAddress: wallet() },
    });
    expect(set.status, JSON.stringify(set.json)).toBe(200);
    const parts = await eventually(
      async () =>
        (await service.http("GET", `/v1/jobs/${job.jobId}/milestones`, { token: job.poster.token })).json.data,
      (list: Array<{ status: string }>) => list[0]!.status === "RELEASED",
    );
    expect(parts[0]).toMatchObject({ status: "RELEASED", releaseHeldReason: null });
    expect((await balance()) - before).toBe(parseUsdc("10") - fee(parseUsdc("10")));
    // Approving it again moves nothing.
    expect((await partAction(service, job, 1, "approve", job.poster.token)).json.data.status).toBe("RELEASED");
    expect((await balance()) - before).toBe(parseUsdc("10") - fee(parseUsdc("10")));
  }, 180_000);

  it("the poster may ask the owner of a job paid in parts, once a day", async () => {
    const email = ownerEmailOf();
    const job = await assignedPartsJob(service, chain, {
      payer: PAYER,
      amounts: ["5", "5"],
      agentWallet: null,
      agentOwnerEmail: email,
      proofHoldHours: 48,
    });
    await submitPart(service, job, 1, site.url);
    const before = (await mailsTo(email)).length;
    const asked = await service.http("POST", `/v1/jobs/${job.jobId}/wallet-reminder`, { token: job.poster.token });
    expect(asked.status, JSON.stringify(asked.json)).toBe(200);
    expect((await mailsTo(email)).length - before).toBe(1);
  }, 120_000);
});

describe("approving a whole job for an agent without a payout wallet", () => {
  it("is accepted, the escrow waits, and setting the wallet releases it", async () => {
    const email = ownerEmailOf();
    const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
    const created = await service.http("POST", "/v1/jobs", {
      token: poster.token,
      body: jobInput({
        budget: "20",
        inputData: { budgetType: "bid", proofHoldHours: 0, proofContentMarker: JOB_MARKER },
      }),
    });
    const jobId = created.json.data.id as string;
    const { txHash } = await depositToEscrow({
      config: chain.config,
      privateKey: chain.accounts[PAYER]!.privateKey,
      escrowJobId: hexOfWire(created.json.data.escrowJobId),
      amount: parseUsdc("20"),
    });
    await poster.client.registerEscrow({ params: { id: jobId }, body: { txHash } });
    const agent = await newAgent(service, { ownerEmail: email });
    const bid = await agent.client.placeBid({ params: { id: jobId }, body: { agentId: agent.id, proposedUsdc: "20" } });
    await poster.client.acceptBid({ params: { jobId, bidId: bid.data.id } });
    const submitted = await service.http("POST", `/v1/jobs/${jobId}/submit`, {
      token: agent.apiKey,
      body: { outputData: { url: `${site.url}/work` } },
    });
    expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
    const mailsBefore = (await mailsTo(email)).length;

    const approved = await service.http("POST", `/v1/jobs/${jobId}/approve`, { token: poster.token });
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect(approved.json.data.status).toBe("REVIEW");
    expect(approved.json.data.releaseHeldReason).toMatch(/waits in escrow until the agent has a payout wallet/);
    expect((await mailsTo(email)).length - mailsBefore).toBe(1);

    // An unclaimed agent sets its own wallet with its key.
    const before = await balance();
    const set = await service.http("PATCH", `/v1/agents/${agent.id}`, {
      token: agent.apiKey,
      body: { walletAddress: wallet() },
    });
    expect(set.status, JSON.stringify(set.json)).toBe(200);
    const done = await eventually(
      async () => (await poster.client.getJob({ params: { id: jobId } })).data,
      (j) => j.status === "COMPLETED",
    );
    expect(done.status).toBe("COMPLETED");
    expect((await balance()) - before).toBe(parseUsdc("20") - fee(parseUsdc("20")));
  }, 180_000);
});
