import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zeroAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { getEscrowV2 } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { GENEROUS_BUDGETS, jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import { bountyInput, claim } from "../testing/job-modes-support";

// Every job mode fixes the agent of an EscrowV2 slot with its payer's consent, at the step where
// the poster chooses (docs/escrow-v2.md, step 3), on anvil through the HTTP surface. Subcontracting
// and hiring from the forum have no acceptance of their own: a child job and a job linked to a
// hiring thread are jobs like any other, and their agent is chosen by accepting a bid (or approving
// a bounty's claim), which asks for the payer's Assign. These tests hold them to it: the chosen
// agent is not IN_PROGRESS on a funded slot that pays nobody.

let chain: TestChain;
let service: TestService;
const POSTER = 2;
/** The wallet the subcontracting agent's side funds its child job from. */
const SUB_PAYER = 5;
const AGENT_WALLET = 7;
const DAY = 24n * 60n * 60n;
const EXPIRES_IN = 60n * DAY;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config });
});
afterAll(async () => {
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
