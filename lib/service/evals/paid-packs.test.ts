import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress, type Address, type Hex } from "viem";
import { usdcAbi } from "@/lib/chain/abi";
import { erc20BalanceOf } from "@/lib/chain/escrow";
import { parseUsdc } from "@/lib/chain/units";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import type { ServiceConfig } from "../config";
import { GENEROUS_BUDGETS, newAgent, startTestService, type TestService } from "../testing/harness";
import { PAID_PACK_ID, answersScoring, claimedAgent, letTimePass } from "./test-support";

// Paid certification packs against a real anvil with TestUSDC: a USDC transfer of exactly the
// price to the pack treasury (by default the escrow's feeRecipient) starts one attempt.

let chain: TestChain;
let service: TestService;
const extraServices: TestService[] = [];
let treasury: Address;
const PAYER = 2;
const STRANGER = 4;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config });
  treasury = getAddress(chain.deployment.feeRecipient);
});
afterAll(async () => {
  await Promise.all([service?.stop(), ...extraServices.map((s) => s.stop())]);
  await chain?.stop();
});

async function serviceWith(overrides: Partial<ServiceConfig>) {
  const s = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config, ...overrides });
  extraServices.push(s);
  return s;
}

/** A USDC transfer from anvil account `from`, mined. */
async function pay(from: number, amount: string, to: Address = treasury, options: { gas?: bigint } = {}): Promise<Hex> {
  const hash = await chain.wallet(from).writeContract({
    address: chain.config.tokenAddress,
    abi: usdcAbi,
    functionName: "transfer",
    args: [to, parseUsdc(amount)],
    ...(options.gas ? { gas: options.gas } : {}),
  });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  return hash;
}

const walletOf = (index: number) => chain.accounts[index]!.address;
const start = (s: TestService, token: string, body: Record<string, unknown> = {}) =>
  s.http("POST", `/v1/evals/packs/${PAID_PACK_ID}/attempts`, { token, body });
const attemptsOf = (agentId: string) => service.db.selectFrom("eval_attempts").select(["id", "status"]).where("agent_id", "=", agentId).execute();

describe("paid packs", () => {
  it("the detail names the treasury, token and exact amount; without txHash the start is 402 PAYMENT_REQUIRED", async () => {
    const detail = await service.http("GET", `/v1/evals/packs/${PAID_PACK_ID}`);
    expect(detail.json.data.payment).toMatchObject({
      chainId: chain.config.chainId,
      tokenSymbol: "USDC",
      tokenAddress: chain.config.tokenAddress,
      payTo: treasury,
      amountUsdc: "5",
      amountUnits: "5000000",
      confirmations: chain.config.confirmations,
    });
    const agent = await newAgent(service, { walletAddress: walletOf(PAYER) });
    const res = await start(service, agent.apiKey);
    expect(res.status).toBe(402);
    expect(res.json).toMatchObject({ statusCode: 402, error: "Payment Required", code: "PAYMENT_REQUIRED", payment: { payTo: treasury, amountUsdc: "5" } });
    expect(await attemptsOf(agent.id)).toHaveLength(0);
  });

  it("a verified payment starts one attempt; passing certifies; the hash never starts another", async () => {
    const agent = await newAgent(service, { walletAddress: walletOf(PAYER) });
    const before = await erc20BalanceOf({ config: chain.config, address: treasury });
    const txHash = await pay(PAYER, "5");
    expect((await erc20BalanceOf({ config: chain.config, address: treasury })) - before).toBe(parseUsdc("5"));

    const started = await start(service, agent.apiKey, { txHash });
    expect(started.status).toBe(201);
    expect(started.json.data).toMatchObject({
      packId: PAID_PACK_ID, agentId: agent.id, status: "IN_PROGRESS", paid: true, paymentTxHash: txHash.toLowerCase(),
      amountUsdc: "5", payerAddress: walletOf(PAYER),
    });
    const passed = await service.http("POST", `/v1/evals/attempts/${started.json.data.id}/answers`, {
      token: agent.apiKey, body: { answers: await answersScoring(service, PAID_PACK_ID, 5) },
    });
    expect(passed.json.data).toMatchObject({ status: "PASSED", score: 5 });
    const certs = (await service.http("GET", `/v1/agents/${agent.id}/certifications`)).json.data;
    expect(certs.map((c: { packId: string }) => c.packId)).toEqual([PAID_PACK_ID]);

    // The same hash for another agent with the same wallet: used once across all attempts.
    const sibling = await newAgent(service, { walletAddress: walletOf(PAYER) });
    const reused = await start(service, sibling.apiKey, { txHash });
    expect(reused.status).toBe(409);
    expect(reused.json.code).toBe("PAYMENT_ALREADY_USED");
    expect(await attemptsOf(sibling.id)).toHaveLength(0);
  });

  it("refuses unknown, reverted, wrong-amount, wrong-recipient, wrong-payer and non-transfer hashes, changing nothing", async () => {
    const agent = await newAgent(service, { walletAddress: walletOf(PAYER) });
    const refused = async (txHash: string, code: string) => {
      const res = await start(service, agent.apiKey, { txHash });
      expect(res.status, code).toBe(422);
      expect(res.json.code).toBe(code);
      expect(res.json.message).toMatch(/^the payment was not accepted: /);
    };

    await refused(`0x${"cd".repeat(32)}`, "PAYMENT_TX_NOT_FOUND");
    await refused(await pay(PAYER, "4.999999"), "PAYMENT_WRONG_AMOUNT");
    await refused(await pay(PAYER, "5.000001"), "PAYMENT_WRONG_AMOUNT");
    await refused(await pay(PAYER, "5", walletOf(3)), "PAYMENT_WRONG_RECIPIENT");
    // More than the balance: sent without estimation, it is mined and reverts.
    const reverted = await pay(PAYER, "1000000", treasury, { gas: 100_000n });
    expect((await chain.publicClient.getTransactionReceipt({ hash: reverted })).status).toBe("reverted");
    await refused(reverted, "PAYMENT_TX_REVERTED");
    // An approve moves nothing.
    const approve = await chain.wallet(PAYER).writeContract({ address: chain.config.tokenAddress, abi: usdcAbi, functionName: "approve", args: [treasury, parseUsdc("5")] });
    await chain.publicClient.waitForTransactionReceipt({ hash: approve });
    await refused(approve, "PAYMENT_NO_TRANSFER");
    // The right transfer from a wallet that is neither the agent's nor its owner's.
    const strangers = await pay(STRANGER, "5");
    await refused(strangers, "PAYMENT_WRONG_PAYER");

    expect(await attemptsOf(agent.id)).toHaveLength(0);
    // A refused hash was not consumed: the agent whose wallet sent it can still use it.
    const owner = await newAgent(service, { walletAddress: walletOf(STRANGER) });
    expect((await start(service, owner.apiKey, { txHash: strangers })).status).toBe(201);
  });

  it("an agent without a wallet is paid for by its owner's address; the owner starts it by naming agentId", async () => {
    const OWNER = 5;
    const { agent, owner } = await claimedAgent(service, { ownerKey: chain.accounts[OWNER]!.privateKey });
    const txHash = await pay(OWNER, "5");
    const res = await start(service, owner.token, { agentId: agent.id, txHash });
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({ agentId: agent.id, payerAddress: walletOf(OWNER), paid: true });

    const unclaimed = await newAgent(service);
    const noPayer = await start(service, unclaimed.apiKey, { txHash: await pay(OWNER, "5") });
    expect(noPayer.status).toBe(422);
    expect(noPayer.json.code).toBe("PAYMENT_WRONG_PAYER");
    expect(noPayer.json.message).toContain("walletAddress");
  });

  it("a failed paid attempt is retried with a new payment only", async () => {
    const agent = await newAgent(service, { walletAddress: walletOf(PAYER) });
    const first = await pay(PAYER, "5");
    const attempt = (await start(service, agent.apiKey, { txHash: first })).json.data;
    const failed = await service.http("POST", `/v1/evals/attempts/${attempt.id}/answers`, { token: agent.apiKey, body: { answers: await answersScoring(service, PAID_PACK_ID, 2) } });
    expect(failed.json.data).toMatchObject({ status: "FAILED", score: 2 });

    // Inside the cooldown a payment is not even looked at (and so not consumed).
    const early = await pay(PAYER, "5");
    expect((await start(service, agent.apiKey, { txHash: early })).json.code).toBe("PACK_COOLDOWN");
    await letTimePass(service, agent.id, PAID_PACK_ID);
    expect((await start(service, agent.apiKey)).status).toBe(402);
    expect((await start(service, agent.apiKey, { txHash: first })).json.code).toBe("PAYMENT_ALREADY_USED");
    const retry = await start(service, agent.apiKey, { txHash: await pay(PAYER, "5") });
    expect(retry.status).toBe(201);
    // While that attempt is open, another payment is not taken (nor consumed).
    const spare = await pay(PAYER, "5");
    const open = await start(service, agent.apiKey, { txHash: spare });
    expect(open.status).toBe(409);
    expect(open.json).toMatchObject({ code: "ATTEMPT_IN_PROGRESS", existingAttemptId: retry.json.data.id });
    expect(await service.db.selectFrom("eval_attempts").select("id").where("payment_tx_hash", "=", spare.toLowerCase()).execute()).toHaveLength(0);
  });

  it("parallel starts with one hash by two agents give exactly one attempt", async () => {
    const a = await newAgent(service, { walletAddress: walletOf(PAYER) });
    const b = await newAgent(service, { walletAddress: walletOf(PAYER) });
    const txHash = await pay(PAYER, "5");
    const results = await Promise.all([start(service, a.apiKey, { txHash }), start(service, b.apiKey, { txHash }), start(service, a.apiKey, { txHash }), start(service, b.apiKey, { txHash })]);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(409);
      expect(["PAYMENT_ALREADY_USED", "ATTEMPT_IN_PROGRESS"]).toContain(r.json.code);
    }
    expect(await service.db.selectFrom("eval_attempts").select("id").where("payment_tx_hash", "=", txHash.toLowerCase()).execute()).toHaveLength(1);
  });
});

describe("paid packs under other chain settings", () => {
  it("waits for the configured confirmations", async () => {
    const strict = await serviceWith({ chain: { ...chain.config, confirmations: 3 } });
    const agent = await newAgent(strict, { walletAddress: walletOf(PAYER) });
    const txHash = await pay(PAYER, "5");
    const early = await start(strict, agent.apiKey, { txHash });
    expect(early.status).toBe(422);
    expect(early.json).toMatchObject({ code: "PAYMENT_NOT_CONFIRMED", confirmations: 1, required: 3 });
    await chain.testClient.mine({ blocks: 2 });
    expect((await start(strict, agent.apiKey, { txHash })).status).toBe(201);
  });

  it("refuses a payment when the RPC serves another chain, or in another token", async () => {
    const txHash = await pay(PAYER, "5");
    const otherChain = await serviceWith({ chain: { ...chain.config, chainId: 999 } });
    const a = await newAgent(otherChain, { walletAddress: walletOf(PAYER) });
    const wrongChain = await start(otherChain, a.apiKey, { txHash });
    expect(wrongChain.status).toBe(422);
    expect(wrongChain.json.code).toBe("PAYMENT_WRONG_CHAIN");

    const otherToken = await serviceWith({ chain: { ...chain.config, tokenAddress: "0x3333333333333333333333333333333333333333" } });
    const b = await newAgent(otherToken, { walletAddress: walletOf(PAYER) });
    const wrongToken = await start(otherToken, b.apiKey, { txHash });
    expect(wrongToken.status).toBe(422);
    expect(wrongToken.json.code).toBe("PAYMENT_WRONG_TOKEN");

    // Still unused: it starts an attempt on the right settings.
    const c = await newAgent(service, { walletAddress: walletOf(PAYER) });
    expect((await start(service, c.apiKey, { txHash })).status).toBe(201);
  });

  it("a configured pack treasury replaces the escrow's fee recipient", async () => {
    const own = walletOf(6);
    const custom = await serviceWith({ packTreasuryAddress: own });
    expect((await custom.http("GET", `/v1/evals/packs/${PAID_PACK_ID}`)).json.data.payment.payTo).toBe(own);
    const agent = await newAgent(custom, { walletAddress: walletOf(PAYER) });
    const toFeeRecipient = await start(custom, agent.apiKey, { txHash: await pay(PAYER, "5") });
    expect(toFeeRecipient.json.code).toBe("PAYMENT_WRONG_RECIPIENT");
    expect((await start(custom, agent.apiKey, { txHash: await pay(PAYER, "5", own) })).status).toBe(201);
  });
});
