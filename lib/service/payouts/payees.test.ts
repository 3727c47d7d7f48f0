import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zeroAddress, type Address } from "viem";
import { testUsdcAbi, testUsdcBytecode } from "@/lib/chain/abi";
import { erc20BalanceOf, getEscrow } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { finishPendingSettlements } from "../escrow/settle-job";
import { fanOutNotifications } from "../notifications/fan-out";
import { randomAddress } from "../testing/rewards-support";
import {
  claimLinkFor,
  GENEROUS_BUDGETS,
  jobInput,
  mailTextFor,
  newAgent,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
  type TestUser,
} from "../testing/harness";

// Money cannot be stranded by an address, and where a claimed agent is paid belongs to its owner.
// On anvil: addresses are checked against the real escrow, token and blacklist; a split whose
// recipient the contract refuses becomes FAILED with the reason and is settled again once.

const PAYER = 1;
const AGENT_WALLET = 6;
const EVALUATOR = 8;
const OPERATOR = 9;

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
  site = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<html><head><title>Work</title></head><body><h1>50 fintech leads</h1></body></html>");
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  operator = await newUser(service, chain.accounts[OPERATOR]!.privateKey);
});
afterAll(async () => {
  site?.close();
  await service?.stop();
  await chain?.stop();
});

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as `0x${string}`;
const balanceOf = (address: Address) => erc20BalanceOf({ config: chain.config, address });
const patchAgent = (agentId: string, token: string, body: unknown) =>
  service.http("PATCH", `/v1/agents/${agentId}`, { token, body });

async function blacklist(address: Address) {
  // The local stack's deployer (accounts[0]) owns the test USDC and its blacklist.
  const hash = await chain.wallet(0).writeContract({
    address: chain.config.tokenAddress,
    abi: testUsdcAbi,
    functionName: "setBlacklisted",
    args: [address, true],
  });
  await chain.publicClient.waitForTransactionReceipt({ hash });
}

let emailCounter = 0;
async function ownedAgent(): Promise<{ owner: TestUser; agent: TestAgent; email: string }> {
  const owner = await newUser(service);
  const email = `payees-${process.pid}-${Date.now()}-${(emailCounter += 1)}@example.test`;
  const agent = await newAgent(service, { ownerEmail: email, walletAddress: randomAddress() });
  await owner.client.claimAgent({ params: { token: await claimLinkFor(service, email) } });
  return { owner, agent, email };
}

describe("every address money is sent to is checked before it is stored", () => {
  it("an agent's walletAddress: the escrow, the token, zero, the fee recipient, a service wallet and a blacklisted address are refused with the reason; an EOA and a contract the token pays are accepted", async () => {
    const agent = await newAgent(service);
    const blacklisted = randomAddress();
    await blacklist(blacklisted);
    const cases: Array<[string, string]> = [
      [chain.config.escrowAddress, "ESCROW_CONTRACT"],
      [chain.config.tokenAddress, "TOKEN_CONTRACT"],
      [zeroAddress, "ZERO_ADDRESS"],
      [chain.deployment.feeRecipient, "FEE_RECIPIENT"],
      [chain.deployment.rewards.address, "SERVICE_WALLET"],
      [blacklisted, "TOKEN_REFUSES"],
    ];
    for (const [address, reason] of cases) {
      const res = await patchAgent(agent.id, agent.apiKey, { walletAddress: address });
      expect(res.status, `${reason}: ${JSON.stringify(res.json)}`).toBe(400);
      expect(res.json).toMatchObject({ code: "ADDRESS_NOT_PAYABLE", reason, field: "walletAddress" });
      expect(res.json.address.toLowerCase()).toBe(address.toLowerCase());
    }
    expect((await agent.client.getMyAgent({})).data.walletAddress).toBeNull();

    // At signup too: nothing is created.
    const signup = await service.http("POST", "/v1/agent-signups", {
      body: { ownerEmail: "escrow-wallet@example.test", walletAddress: chain.config.escrowAddress },
    });
    expect(signup.status).toBe(400);
    expect(signup.json).toMatchObject({ code: "ADDRESS_NOT_PAYABLE", reason: "ESCROW_CONTRACT" });

    const eoa = randomAddress();
    expect((await patchAgent(agent.id, agent.apiKey, { walletAddress: eoa })).json.data.walletAddress).toBe(eoa);
    // A contract the token pays (a smart-contract wallet would be one): another token contract here.
    const hash = await chain.wallet(2).deployContract({ abi: testUsdcAbi, bytecode: testUsdcBytecode });
    const contract = (await chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
    const accepted = await patchAgent(agent.id, agent.apiKey, { walletAddress: contract });
    expect(accepted.status, JSON.stringify(accepted.json)).toBe(200);
  });

  it("a forum payout address and a withdrawal's destination of the escrow are refused", async () => {
    const owner = await newUser(service);
    const payout = await service.http("PUT", "/v1/forum/me/payout", {
      token: owner.token,
      body: { address: chain.config.escrowAddress },
    });
    expect(payout.status, JSON.stringify(payout.json)).toBe(400);
    expect(payout.json).toMatchObject({ code: "ADDRESS_NOT_PAYABLE", reason: "ESCROW_CONTRACT", field: "address" });
    expect((await owner.client.getPayout({})).data.address).toBeNull();

    const withdrawal = await service.http("POST", "/v1/wallet/withdrawals", {
      token: owner.token,
      body: { toAddress: chain.config.tokenAddress, amountUsdc: "1" },
    });
    expect(withdrawal.status, JSON.stringify(withdrawal.json)).toBe(400);
    expect(withdrawal.json).toMatchObject({
      code: "ADDRESS_NOT_PAYABLE",
      reason: "TOKEN_CONTRACT",
      field: "toAddress",
    });
  });
});

describe("where a claimed agent is paid belongs to its owner", () => {
  it("a short-lived jobs:read+jobs:write key of a claimed agent cannot change the wallet (403 MISSING_SCOPE, unchanged); nor can the default key", async () => {
    const { owner, agent } = await ownedAgent();
    const before = (await owner.client.getAgent({ params: { id: agent.id } })).data.walletAddress;
    const minted = await owner.client.createAgentKey({
      params: { id: agent.id },
      body: { name: "ten minutes", scopes: ["jobs:read", "jobs:write"], expiresInSeconds: 600 },
    });
    const attacker = randomAddress();
    for (const key of [minted.data.secret, agent.apiKey]) {
      const res = await patchAgent(agent.id, key, { walletAddress: attacker });
      expect(res.status, JSON.stringify(res.json)).toBe(403);
      expect(res.json.code).toBe("MISSING_SCOPE");
      expect(res.json.message).toMatch(/wallet:payout/);
    }
    // Other fields still change with jobs:write.
    expect((await patchAgent(agent.id, minted.data.secret, { maxActiveJobs: 2 })).status).toBe(200);
    expect((await owner.client.getAgent({ params: { id: agent.id } })).data.walletAddress).toBe(before);
    expect(
      await service.db.selectFrom("agent_wallet_changes").selectAll().where("agent_id", "=", agent.id).execute(),
    ).toEqual([]);
  });

  it("wallet:payout is never a default scope: a mint naming no scopes lacks it, a key without it cannot mint it; the owner mints it on purpose and that key changes the wallet, audited and told to the owner by inbox and mail", async () => {
    const { owner, agent, email } = await ownedAgent();
    const plain = await owner.client.createAgentKey({ params: { id: agent.id }, body: { name: "defaults" } });
    expect(plain.data.key.scopes).not.toContain("wallet:payout");
    const escalate = await service.http("POST", `/v1/agents/${agent.id}/keys`, {
      token: agent.apiKey,
      body: { name: "up", scopes: ["wallet:payout"] },
    });
    expect(escalate.status).toBe(403);
    expect(escalate.json.code).toBe("SCOPE_NOT_GRANTABLE");

    const payoutKey = await owner.client.createAgentKey({
      params: { id: agent.id },
      body: { name: "payouts", scopes: ["jobs:write", "wallet:payout"] },
    });
    expect(payoutKey.data.key.scopes).toEqual(["jobs:write", "wallet:payout"]);
    const next = randomAddress();
    const changed = await patchAgent(agent.id, payoutKey.data.secret, { walletAddress: next });
    expect(changed.status, JSON.stringify(changed.json)).toBe(200);
    expect(changed.json.data.walletAddress).toBe(next);

    const audit = await service.db
      .selectFrom("agent_wallet_changes")
      .selectAll()
      .where("agent_id", "=", agent.id)
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      new_address: next,
      changed_by_kind: "AGENT_KEY",
      changed_by_key_id: payoutKey.data.key.id,
    });

    while ((await fanOutNotifications(service.ctx)) > 0) {
      /* next batch */
    }
    const inbox = (await owner.client.listNotifications({})).data.filter((n) => n.type === "agent.wallet_changed");
    expect(inbox).toHaveLength(1);
    expect(inbox[0]!.text).toContain(next);
    expect(await mailTextFor(service, email)).toContain(next);

    // The owner's own session changes it too, and that is kept as well.
    const mine = randomAddress();
    expect((await patchAgent(agent.id, owner.token, { walletAddress: mine })).status).toBe(200);
    const kinds = (
      await service.db
        .selectFrom("agent_wallet_changes")
        .select("changed_by_kind")
        .where("agent_id", "=", agent.id)
        .orderBy("created_at")
        .execute()
    ).map((r) => r.changed_by_kind);
    expect(kinds).toEqual(["AGENT_KEY", "OWNER"]);
  });

  it("a claimed agent without a wallet sets its first one with its own key (the owner is told); then the key cannot change or clear it, and two keys racing for the first wallet set one", async () => {
    const owner = await newUser(service);
    const email = `payees-first-${process.pid}-${Date.now()}-${(emailCounter += 1)}@example.test`;
    const agent = await newAgent(service, { ownerEmail: email });
    expect(
      (await service.http("POST", `/v1/agent-claims/${await claimLinkFor(service, email)}`, { token: owner.token }))
        .status,
    ).toBe(200);
    const other = await owner.client.createAgentKey({
      params: { id: agent.id },
      body: { name: "second", scopes: ["jobs:read", "jobs:write"] },
    });

    // Clearing a wallet that is not there is no first wallet: refused.
    expect((await patchAgent(agent.id, agent.apiKey, { walletAddress: null })).json.code).toBe("MISSING_SCOPE");
    // Both keys try to set the first wallet at once: exactly one wins, the other is refused.
    const [a, b] = [randomAddress(), randomAddress()];
    const raced = await Promise.all([
      patchAgent(agent.id, agent.apiKey, { walletAddress: a }),
      patchAgent(agent.id, other.data.secret, { walletAddress: b }),
    ]);
    expect(raced.map((r) => r.status).sort()).toEqual([200, 403]);
    const winner = raced[0]!.status === 200 ? a : b;
    expect((await owner.client.getAgent({ params: { id: agent.id } })).data.walletAddress).toBe(winner);

    // A stolen key cannot redirect the payouts now: neither change nor clear.
    for (const body of [{ walletAddress: randomAddress() }, { walletAddress: null }]) {
      const res = await patchAgent(agent.id, agent.apiKey, body);
      expect(res.status, JSON.stringify(res.json)).toBe(403);
      expect(res.json.code).toBe("MISSING_SCOPE");
      expect(res.json.message).toMatch(/only while none is set/);
    }
    expect((await owner.client.getAgent({ params: { id: agent.id } })).data.walletAddress).toBe(winner);

    // Kept and told to the owner, as any change.
    const audit = await service.db
      .selectFrom("agent_wallet_changes")
      .selectAll()
      .where("agent_id", "=", agent.id)
      .execute();
    expect(audit).toEqual([
      expect.objectContaining({ old_address: null, new_address: winner, changed_by_kind: "AGENT_KEY" }),
    ]);
    while ((await fanOutNotifications(service.ctx)) > 0) {
      /* next batch */
    }
    expect(await mailTextFor(service, email)).toContain(winner);
    // The owner may still change it.
    expect((await patchAgent(agent.id, owner.token, { walletAddress: randomAddress() })).status).toBe(200);
  });

  it("an unclaimed agent keeps setting its own wallet with its key", async () => {
    const agent = await newAgent(service);
    const wallet = randomAddress();
    const res = await patchAgent(agent.id, agent.apiKey, { walletAddress: wallet });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data.walletAddress).toBe(wallet);
  });
});

interface Disputed {
  poster: TestUser;
  agent: TestAgent;
  job: { id: string; escrowJobId: Record<string, number> };
}

/** A funded job, delivered, disputed by the poster; its agent's wallet is the escrow, as stored before the payable-address rule. */
async function disputedJobPayingTheEscrow(budget = "40", evaluator?: Address): Promise<Disputed> {
  const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
  const created = await service.http("POST", "/v1/jobs", {
    token: poster.token,
    body: jobInput({
      budget,
      inputData: { budgetType: "bid", proofHoldHours: 0 },
      ...(evaluator ? { evaluatorAddress: evaluator } : {}),
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
  const agent = await newAgent(service, { walletAddress: randomAddress() });
  const bid = (
    await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: budget } })
  ).data;
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
  const submitted = await service.http("POST", `/v1/jobs/${job.id}/submit`, {
    token: agent.apiKey,
    body: { outputData: { url: `${siteUrl}/work` } },
  });
  expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
  const disputed = await service.http("POST", `/v1/jobs/${job.id}/dispute`, {
    token: poster.token,
    body: { reason: "The leads are not what was asked for." },
  });
  expect(disputed.status, JSON.stringify(disputed.json)).toBe(200);
  // A wallet stored before the rule existed (the API refuses it now): the escrow contract itself.
  await service.db
    .updateTable("agents")
    .set({ wallet_address: chain.config.escrowAddress })
    .where("id", "=", agent.id)
    .execute();
  return { poster, agent, job };
}

const SPLIT_70 = { outcome: "SPLIT", agentShare: 70, reason: "Most of the leads were delivered as asked." };
const settlementOf = (jobId: string) =>
  service.db.selectFrom("escrow_settlements").selectAll().where("job_id", "=", jobId).executeTakeFirstOrThrow();
const resettle = (id: string, body: Record<string, unknown> = {}) =>
  service.http("POST", `/v1/admin/settlements/${id}/resettle`, {
    token: operator.token,
    body: { reason: "the agent set a wallet that can be paid", ...body },
  });

describe("a settlement the chain refuses is FAILED with its reason and settled again once", () => {
  it("a SPLIT ruling whose agent wallet the contract refuses: FAILED (InvalidRecipient), not retried; the console's retry says why; re-settled to the agent's new wallet, both sides get exactly their shares; a second re-settle is refused", async () => {
    const d = await disputedJobPayingTheEscrow("40");
    const payerBefore = await balanceOf(chain.accounts[PAYER]!.address);
    const ruled = await service.http("POST", `/v1/jobs/${d.job.id}/dispute/ruling`, {
      token: operator.token,
      body: SPLIT_70,
    });
    expect(ruled.status, JSON.stringify(ruled.json)).toBe(200);

    const failed = await settlementOf(d.job.id);
    expect(failed).toMatchObject({
      kind: "SPLIT",
      status: "FAILED",
      attempts: 1,
      to_address: chain.config.escrowAddress,
    });
    expect(failed.failed_reason).toMatch(/InvalidRecipient/);
    // Not retried: a worker round leaves it alone.
    await finishPendingSettlements(service.ctx, { only: [d.job.id], now: new Date(Date.now() + 3600_000) });
    expect((await settlementOf(d.job.id)).attempts).toBe(1);
    // The slot on chain is still funded: nothing moved.
    expect(
      (
        await getEscrow({
          config: chain.config,
          escrowJobId: hexOf(d.job.escrowJobId),
          payer: chain.accounts[PAYER]!.address,
        })
      ).state,
    ).toBe("FUNDED");

    // The console shows the reason; its retry refuses with it instead of a 200 that changes nothing.
    const overview = await service.http("GET", "/v1/admin/overview", { token: operator.token });
    expect(overview.json.data.settlements.find((s: { id: string }) => s.id === failed.id)).toMatchObject({
      status: "FAILED",
      failedToAddress: chain.config.escrowAddress,
      failedReason: expect.stringMatching(/InvalidRecipient/),
    });
    const retried = await service.http("POST", `/v1/admin/settlements/${failed.id}/retry`, {
      token: operator.token,
      body: { reason: "try again" },
    });
    expect(retried.status).toBe(409);
    expect(retried.json).toMatchObject({
      code: "SETTLEMENT_FAILED",
      lastError: expect.stringMatching(/InvalidRecipient/),
    });

    // Settling again to the agent's wallet as it stands (still the escrow) is refused by the rule.
    const stillBad = await resettle(failed.id);
    expect(stillBad.status, JSON.stringify(stillBad.json)).toBe(400);
    expect(stillBad.json).toMatchObject({ code: "ADDRESS_NOT_PAYABLE", reason: "ESCROW_CONTRACT" });

    // The agent (unclaimed: it sets its own) names a wallet that can be paid; the operator re-runs.
    const wallet = chain.accounts[AGENT_WALLET]!.address;
    expect((await patchAgent(d.agent.id, d.agent.apiKey, { walletAddress: wallet })).status).toBe(200);
    const agentBefore = await balanceOf(wallet);
    const done = await resettle(failed.id);
    expect(done.status, JSON.stringify(done.json)).toBe(200);
    expect(done.json.data).toMatchObject({
      status: "CONFIRMED",
      toAddress: wallet,
      resettleCount: 1,
      failedToAddress: chain.config.escrowAddress,
    });

    // 70 % of 40 = 28 to the agent less the 5 % fee (1.4): 26.6; the payer gets the other 12 back.
    expect((await balanceOf(wallet)) - agentBefore).toBe(parseUsdc("26.6"));
    expect((await balanceOf(chain.accounts[PAYER]!.address)) - payerBefore).toBe(parseUsdc("12"));
    expect(
      (
        await getEscrow({
          config: chain.config,
          escrowJobId: hexOf(d.job.escrowJobId),
          payer: chain.accounts[PAYER]!.address,
        })
      ).state,
    ).toBe("SPLIT");
    expect((await d.poster.client.getJob({ params: { id: d.job.id } })).data.status).toBe("COMPLETED");

    const again = await resettle(failed.id, { toAddress: randomAddress() });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ code: "SETTLEMENT_NOT_FAILED", settlementStatus: "CONFIRMED" });
    const audit = await service.http("GET", "/v1/admin/audit", { token: operator.token });
    expect(
      audit.json.data.filter(
        (e: { subjectId: string; action: string }) => e.subjectId === failed.id && e.action === "settlement.resettle",
      ),
    ).toHaveLength(1);
  });

  it("a re-settle to the very address that failed is refused with the reason", async () => {
    const d = await disputedJobPayingTheEscrow("10");
    await service.http("POST", `/v1/jobs/${d.job.id}/dispute/ruling`, { token: operator.token, body: SPLIT_70 });
    const failed = await settlementOf(d.job.id);
    // The rule refuses the escrow before the "same address" check could; a payable address that failed is the other case.
    await service.db
      .updateTable("escrow_settlements")
      .set({ failed_to_address: chain.accounts[AGENT_WALLET]!.address })
      .where("id", "=", failed.id)
      .execute();
    const same = await resettle(failed.id, { toAddress: chain.accounts[AGENT_WALLET]!.address });
    expect(same.status).toBe(409);
    expect(same.json.code).toBe("SETTLEMENT_FAILED");
    expect((await settlementOf(d.job.id)).status).toBe("FAILED");
  });
});

describe("the dispute's arbiter settles its ruling again", () => {
  it("an evaluator's SPLIT that the chain refused is settled again by the evaluator to a named address; a party cannot, nor an agent key; once only", async () => {
    const evaluator = await newUser(service, chain.accounts[EVALUATOR]!.privateKey);
    const d = await disputedJobPayingTheEscrow("10", evaluator.address);
    const ruled = await service.http("POST", `/v1/jobs/${d.job.id}/dispute/ruling`, {
      token: evaluator.token,
      body: SPLIT_70,
    });
    expect(ruled.status, JSON.stringify(ruled.json)).toBe(200);
    expect((await settlementOf(d.job.id)).status).toBe("FAILED");

    const path = `/v1/jobs/${d.job.id}/dispute/resettle`;
    const to = randomAddress();
    const byPoster = await service.http("POST", path, {
      token: d.poster.token,
      body: { reason: "pay me instead", toAddress: to },
    });
    expect(byPoster.status).toBe(403);
    expect(byPoster.json.code).toBe("NOT_ARBITER");
    const byAgent = await service.http("POST", path, {
      token: d.agent.apiKey,
      body: { reason: "pay me", toAddress: to },
    });
    expect(byAgent.status).toBe(403);
    const escrowAgain = await service.http("POST", path, {
      token: evaluator.token,
      body: { reason: "the agent's wallet" },
    });
    expect(escrowAgain.json).toMatchObject({ code: "ADDRESS_NOT_PAYABLE", reason: "ESCROW_CONTRACT" });

    const payerBefore = await balanceOf(chain.accounts[PAYER]!.address);
    const done = await service.http("POST", path, {
      token: evaluator.token,
      body: { reason: "the agent named a new wallet in its statement", toAddress: to },
    });
    expect(done.status, JSON.stringify(done.json)).toBe(200);
    // 70 % of 10 = 7 less the 5 % fee: 6.65 to the agent; 3 back to the payer.
    expect(await balanceOf(to)).toBe(parseUsdc("6.65"));
    expect((await balanceOf(chain.accounts[PAYER]!.address)) - payerBefore).toBe(parseUsdc("3"));
    const again = await service.http("POST", path, {
      token: evaluator.token,
      body: { reason: "once more", toAddress: randomAddress() },
    });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("SETTLEMENT_NOT_FAILED");
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)("re-settling on PostgreSQL", () => {
  it("parallel re-settles of one FAILED split pay once", async () => {
    const d = await disputedJobPayingTheEscrow("20");
    await service.http("POST", `/v1/jobs/${d.job.id}/dispute/ruling`, { token: operator.token, body: SPLIT_70 });
    const failed = await settlementOf(d.job.id);
    expect(failed.status).toBe("FAILED");
    const wallet = randomAddress();
    const answers = await Promise.all(Array.from({ length: 6 }, () => resettle(failed.id, { toAddress: wallet })));
    const statuses = answers.map((a) => a.status).sort();
    expect(
      statuses.filter((s) => s === 200),
      JSON.stringify(answers.map((a) => a.json)),
    ).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.json.code).toBe("SETTLEMENT_NOT_FAILED");
    // 70 % of 20 = 14 less the 5 % fee: 13.3, once.
    expect(await balanceOf(wallet)).toBe(parseUsdc("13.3"));
    expect(await settlementOf(d.job.id)).toMatchObject({ status: "CONFIRMED", resettle_count: 1 });
  });
});
