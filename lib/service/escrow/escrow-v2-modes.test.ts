import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zeroAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { getEscrowV2 } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import {
  claimLinkFor,
  GENEROUS_BUDGETS,
  jobInput,
  mailTextFor,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { fanOutNotifications } from "../notifications/fan-out";
import { tellMissedWalletSets } from "../bids/worker";
import { bountyInput, claim } from "../testing/job-modes-support";

// Every job mode fixes the agent of an EscrowV2 slot with its payer's consent, at the step where
// the poster chooses (docs/escrow-v2.md, step 3), on anvil through the HTTP surface. Subcontracting
// and hiring from the forum have no acceptance of their own: a child job and a job linked to a
// hiring thread are jobs like any other, and their agent is chosen by accepting a bid (or approving
// a bounty's claim), which asks for the payer's Assign. These tests hold them to it: the chosen
// agent is not IN_PROGRESS on a funded slot that pays nobody.

let chain: TestChain;
let service: TestService;
let site: http.Server;
let siteUrl: string;
const POSTER = 2;
/** The wallet the subcontracting agent's side funds its child job from. */
const SUB_PAYER = 5;
const AGENT_WALLET = 7;
const OPERATOR = 6;
const DAY = 24n * 60n * 60n;
const EXPIRES_IN = 60n * DAY;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    chain: chain.config,
    operatorAddresses: [chain.accounts[OPERATOR]!.address],
    probeAllowLoopback: true,
  });
  // The delivered work a bounty's claimant points at.
  site = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<html><head><title>Leads</title></head><body><h1>50 fintech leads</h1></body></html>");
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
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as Hex;
const address = (index: number) => chain.accounts[index]!.address;
const chainNow = async () => (await chain.publicClient.getBlock()).timestamp;

/** Deposits the job's budget into EscrowV2 from account `payer` and registers it with `token`. */
async function fundV2(
  job: { id: string; escrowJobId: Record<string, number> },
  budget: string,
  payer: number,
  token: string,
) {
  const escrowJobId = hexOf(job.escrowJobId);
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[payer]!.privateKey,
    escrowJobId,
    amount: parseUsdc(budget),
    expiresAt: (await chainNow()) + EXPIRES_IN,
  });
  const res = await service.http("PATCH", `/v1/jobs/${job.id}/escrow`, { token, body: { txHash } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  expect(res.json.data).toMatchObject({ escrowVersion: 2 });
  return escrowJobId;
}

async function signAssignment(assignment: any, index: number): Promise<Hex> {
  return privateKeyToAccount(chain.accounts[index]!.privateKey).signTypedData({
    domain: assignment.domain,
    types: assignment.types,
    primaryType: "Assign",
    message: { ...assignment.message, deadline: BigInt(assignment.message.deadline) },
  });
}

/**
 * A bid of a fresh agent (paid at AGENT_WALLET) on the funded job, accepted by `token`: first
 * refused with the Assign its payer must sign (the job stays OPEN, the slot pays nobody), then
 * accepted with that payer's signature; the slot then pays the agent.
 */
async function acceptOnlyWithPayersAssign(jobId: string, escrowJobId: Hex, token: string, payer: number) {
  const agent = await newAgent(service, { walletAddress: address(AGENT_WALLET) });
  const bid = await service.http("POST", `/v1/jobs/${jobId}/bids`, {
    token: agent.apiKey,
    body: { agentId: agent.id, proposedUsdc: "20" },
  });
  expect(bid.status, JSON.stringify(bid.json)).toBe(201);
  const accept = (body?: Record<string, unknown>) =>
    service.http("POST", `/v1/jobs/${jobId}/bids/${bid.json.data.id}/accept`, { token, ...(body ? { body } : {}) });
  const slot = () => getEscrowV2({ config: chain.config, escrowJobId, payer: address(payer) });

  const asked = await accept();
  expect(asked.status, JSON.stringify(asked.json)).toBe(409);
  expect(asked.json.code).toBe("ASSIGNMENT_SIGNATURE_REQUIRED");
  expect(asked.json.assignment.message).toMatchObject({
    jobId: escrowJobId,
    payer: address(payer),
    agent: address(AGENT_WALLET),
  });
  expect((await service.http("GET", `/v1/jobs/${jobId}`, { token })).json.data).toMatchObject({
    status: "OPEN",
    agentId: null,
  });
  expect((await slot()).agent).toBe(zeroAddress);

  const res = await accept({ assignmentSignature: await signAssignment(asked.json.assignment, payer) });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  expect(res.json.data.job).toMatchObject({ status: "IN_PROGRESS", agentId: agent.id });
  expect((await slot()).agent).toBe(address(AGENT_WALLET));
}

describe("every job mode fixes the agent of an EscrowV2 slot with its payer's consent", () => {
  it("subcontracting: the child job an agent posts and funds in EscrowV2 accepts its bid only with its payer's Assign", async () => {
    const poster = await newUser(service);
    const parent = await service.http("POST", "/v1/jobs", {
      token: poster.token,
      body: bountyInput({ allowSubcontracting: true, title: "Subcontractable research job" }),
    });
    expect(parent.status, JSON.stringify(parent.json)).toBe(201);
    const contractor = await newAgent(service);
    expect((await claim(service, contractor, parent.json.data.id)).status).toBe(200);
    const child = await service.http("POST", "/v1/jobs", {
      token: contractor.apiKey,
      body: jobInput({ parentJobId: parent.json.data.id, budget: "20", title: "Child: verify the emails" }),
    });
    expect(child.status, JSON.stringify(child.json)).toBe(201);
    // The contractor's side funds the child from a wallet of its own: that wallet is the payer who consents.
    const escrowJobId = await fundV2(child.json.data, "20", SUB_PAYER, contractor.apiKey);
    await acceptOnlyWithPayersAssign(child.json.data.id, escrowJobId, contractor.apiKey, SUB_PAYER);
  });

  it("hiring from the forum: a job linked to a hiring thread and funded in EscrowV2 accepts its bid only with its payer's Assign", async () => {
    const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
    const job = (await poster.client.createJob({ body: jobInput({ budget: "20", title: "Hiring: a scraper" }) })).data;
    const thread = (
      await poster.client.createThread({
        body: {
          title: `Hiring an agent to scrape leads ${Date.now()}`,
          body: "We pay through the linked job; bid there.",
          category: "agent-lounge",
        },
      })
    ).data;
    const linked = await service.http("PUT", `/v1/forum/threads/${thread.id}/job`, {
      token: poster.token,
      body: { jobId: job.id },
    });
    expect(linked.status, JSON.stringify(linked.json)).toBe(200);
    expect(linked.json.data).toMatchObject({ linkedJobId: job.id, jobContextKind: "HIRING" });
    const escrowJobId = await fundV2(job, "20", POSTER, poster.token);
    await acceptOnlyWithPayersAssign(job.id, escrowJobId, poster.token, POSTER);
  });
});

async function inboxOf(user: TestUser) {
  while ((await fanOutNotifications(service.ctx)) > 0) {
    /* next batch */
  }
  return (await user.client.listNotifications({ query: {} })).data;
}

describe("a bounty disputed before its approval assigned the claimant on chain", () => {
  it("a ruling that pays the agent is refused with nothing recorded or sent; a refund to the payer is ruled and sent", async () => {
    const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
    const job = (
      await poster.client.createJob({
        body: jobInput({
          budget: "20",
          participationMode: "BOUNTY",
          inputData: { budgetType: "fixed", proofHoldHours: 0 },
        }),
      })
    ).data;
    const escrowJobId = await fundV2(job, "20", POSTER, poster.token);
    const agent = await newAgent(service, { walletAddress: address(AGENT_WALLET) });
    expect((await claim(service, agent, job.id)).status).toBe(200);
    const submitted = await service.http("POST", `/v1/jobs/${job.id}/submit`, {
      token: agent.apiKey,
      body: { outputData: { url: `${siteUrl}/${job.id}` } },
    });
    expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
    const disputed = await service.http("POST", `/v1/jobs/${job.id}/dispute`, {
      token: poster.token,
      body: { reason: "The work is not what was asked for." },
    });
    expect(disputed.status, JSON.stringify(disputed.json)).toBe(200);
    const operator = await newUser(service, chain.accounts[OPERATOR]!.privateKey);
    const rule = (body: unknown) =>
      service.http("POST", `/v1/jobs/${job.id}/dispute/ruling`, { token: operator.token, body });
    const slot = () => getEscrowV2({ config: chain.config, escrowJobId, payer: address(POSTER) });
    expect((await slot()).agent).toBe(zeroAddress);

    for (const body of [
      { outcome: "PAY_AGENT", reason: "The work was delivered as asked." },
      { outcome: "SPLIT", agentShare: 50, reason: "Half of the work was delivered as asked." },
    ]) {
      const refused = await rule(body);
      expect(refused.status, JSON.stringify(refused.json)).toBe(409);
      expect(refused.json).toMatchObject({ code: "AGENT_NOT_ASSIGNED", agentId: agent.id });
    }
    const settlements = await service.db
      .selectFrom("escrow_settlements")
      .select("id")
      .where("job_id", "=", job.id)
      .execute();
    expect(settlements).toEqual([]);
    expect((await slot()).state).toBe("FUNDED");

    const refunded = await rule({ outcome: "REFUND_POSTER", reason: "Nothing the slot can pay was assigned." });
    expect(refunded.status, JSON.stringify(refunded.json)).toBe(200);
    await expect.poll(async () => (await slot()).state, { timeout: 20_000 }).toBe("REFUNDED");
  });
});

describe("ask the owner: a bid whose agent has no payout wallet, on a job funded in EscrowV2", () => {
  it("the refusal names where to ask; the owner is asked (event and mail), once a day; when the wallet is set the poster is told and accepts", async () => {
    const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
    const job = (await poster.client.createJob({ body: jobInput({ budget: "20", title: "Ask the owner" }) })).data;
    const escrowJobId = await fundV2(job, "20", POSTER, poster.token);
    const ownerEmail = `wallet-owner-${Date.now()}@example.test`;
    const agent = await newAgent(service, { ownerEmail });
    const claimToken = await claimLinkFor(service, ownerEmail);
    const bid = (
      await service.http("POST", `/v1/jobs/${job.id}/bids`, {
        token: agent.apiKey,
        body: { agentId: agent.id, proposedUsdc: "20" },
      })
    ).json.data;
    const accept = (body?: Record<string, unknown>) =>
      service.http("POST", `/v1/jobs/${job.id}/bids/${bid.id}/accept`, {
        token: poster.token,
        ...(body ? { body } : {}),
      });
    const askPath = `/v1/jobs/${job.id}/bids/${bid.id}/ask-wallet`;

    const refused = await accept();
    expect(refused.status, JSON.stringify(refused.json)).toBe(409);
    expect(refused.json).toMatchObject({
      code: "AGENT_WALLET_MISSING",
      agentId: agent.id,
      askOwnerPath: askPath,
      walletAskedAt: null,
    });

    // Only the poster asks; a stranger is refused and nothing is recorded.
    const stranger = await newUser(service);
    expect((await service.http("POST", askPath, { token: stranger.token })).status).toBe(403);

    const asked = await service.http("POST", askPath, { token: poster.token });
    expect(asked.status, JSON.stringify(asked.json)).toBe(200);
    expect(asked.json.data).toMatchObject({ id: bid.id, status: "PENDING", agent: { hasWallet: false } });
    expect(Date.parse(asked.json.data.walletAskedAt)).toBeGreaterThan(Date.now() - 60_000);
    // The agent hears it in its feed; its owner (not claimed yet: no inbox) gets the mail with the agent's page.
    const feed = await service.http("GET", `/v1/agents/${agent.id}/events`, { token: agent.apiKey });
    expect(feed.json.data.map((e: { type: string }) => e.type)).toContain("bid.wallet_requested");
    expect(await mailTextFor(service, ownerEmail)).toMatch(
      new RegExp(`wants to accept your agent .*/agents/${agent.id}`, "s"),
    );
    // Once a day per bid.
    const again = await service.http("POST", askPath, { token: poster.token });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("REMINDER_ALREADY_SENT");
    // The refusal now says when the poster asked.
    expect((await accept()).json).toMatchObject({
      code: "AGENT_WALLET_MISSING",
      walletAskedAt: asked.json.data.walletAskedAt,
    });
    expect(await inboxOf(poster)).not.toContainEqual(expect.objectContaining({ type: "bid.wallet_set" }));

    // The owner claims the agent and sets its wallet: the poster is told, once, and the bid shows the wallet.
    const owner = await newUser(service);
    const claimed = await service.http("POST", `/v1/agent-claims/${claimToken}`, { token: owner.token });
    expect(claimed.status, JSON.stringify(claimed.json)).toBe(200);
    const set = await service.http("PATCH", `/v1/agents/${agent.id}`, {
      token: owner.token,
      body: { walletAddress: address(AGENT_WALLET) },
    });
    expect(set.status, JSON.stringify(set.json)).toBe(200);
    let told: Array<{ type: string }> = [];
    for (let i = 0; i < 50 && !told.length; i++) {
      told = (await inboxOf(poster)).filter((n: { type: string }) => n.type === "bid.wallet_set");
      if (!told.length) await new Promise((r) => setTimeout(r, 100));
    }
    expect(told).toHaveLength(1);
    const bids = await poster.client.listJobBids({ params: { jobId: job.id } });
    expect(bids.data.find((b) => b.id === bid.id)).toMatchObject({ agent: { hasWallet: true } });

    // Accept now: the payer's Assign, relayed; the slot pays the wallet the owner set.
    const sign = await accept();
    expect(sign.json.code).toBe("ASSIGNMENT_SIGNATURE_REQUIRED");
    const res = await accept({ assignmentSignature: await signAssignment(sign.json.assignment, POSTER) });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect((await getEscrowV2({ config: chain.config, escrowJobId, payer: address(POSTER) })).agent).toBe(
      address(AGENT_WALLET),
    );
    // Asking for an agent that has a wallet (or a bid no longer pending) is refused.
    expect((await service.http("POST", askPath, { token: poster.token })).json.code).toBe("BID_NOT_PENDING");
  });

  it("a wallet set while the at-once notice was missed (the process ended after the answer): the worker's round tells the poster, once", async () => {
    const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
    const job = (await poster.client.createJob({ body: jobInput({ budget: "20", title: "Missed notice" }) })).data;
    await fundV2(job, "20", POSTER, poster.token);
    const agent = await newAgent(service);
    const bid = (
      await service.http("POST", `/v1/jobs/${job.id}/bids`, {
        token: agent.apiKey,
        body: { agentId: agent.id, proposedUsdc: "20" },
      })
    ).json.data;
    const asked = await service.http("POST", `/v1/jobs/${job.id}/bids/${bid.id}/ask-wallet`, { token: poster.token });
    expect(asked.status, JSON.stringify(asked.json)).toBe(200);
    // The wallet lands without the hook that tells the poster at once (as if the process died after the answer).
    await service.db
      .updateTable("agents")
      .set({ wallet_address: address(AGENT_WALLET) })
      .where("id", "=", agent.id)
      .execute();
    const toldOf = async () =>
      (await inboxOf(poster)).filter(
        (n: { type: string; jobId?: string | null }) => n.type === "bid.wallet_set" && n.jobId === job.id,
      );
    expect(await toldOf()).toHaveLength(0);
    expect(await tellMissedWalletSets(service.ctx)).toBeGreaterThanOrEqual(1);
    expect(await toldOf()).toHaveLength(1);
    await tellMissedWalletSets(service.ctx);
    expect(await toldOf()).toHaveLength(1);
  });
});
