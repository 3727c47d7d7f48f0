import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress, type Address, type Hex } from "viem";
import { abi as escrowArtifactAbi, bytecode as escrowBytecode } from "@/contracts/artifacts/escrow";
import { packPaymentMessage } from "@/lib/api/schemas/evals";
import { usdcAbi } from "@/lib/chain/abi";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { depositToEscrow, withdrawEscrowFees } from "@/lib/chain/escrow/send";
import { releaseEscrow } from "@/lib/chain/escrow/settle";
import { parseUsdc } from "@/lib/chain/units";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import type { ServiceConfig } from "../config";
import { GENEROUS_BUDGETS, newAgent, startTestService, type TestService } from "../testing/harness";
import { PAID_PACK_ID, answersScoring, claimedAgent, letTimePass } from "../testing/evals-support";

// Paid certification packs against a real anvil with TestUSDC: a USDC transfer of exactly the
// price to the dedicated pack treasury, claimed with the sender's signature of a message naming
// the pack, the agent and the hash, starts one attempt.

let chain: TestChain;
let service: TestService;
const extraServices: TestService[] = [];
let treasury: Address;
const PAYER = 2;
const STRANGER = 4;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config });
  treasury = getAddress(chain.deployment.treasury!);
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

/** Anvil account `signer`'s EIP-191 signature claiming `txHash` for `agentId`'s attempt. */
function sign(signer: number, agentId: string, txHash: string, chainId = chain.config.chainId): Promise<Hex> {
  return chain.wallet(signer).signMessage({
    message: packPaymentMessage({ packId: PAID_PACK_ID, agentId, txHash: txHash.toLowerCase(), chainId }),
  });
}

/** The body a payer sends: the hash and its own signature for that agent. */
async function paid(signer: number, agentId: string, txHash: string) {
  return { txHash, signature: await sign(signer, agentId, txHash) };
}

const walletOf = (index: number) => chain.accounts[index]!.address;
const start = (s: TestService, token: string, body: Record<string, unknown> = {}) =>
  s.http("POST", `/v1/evals/packs/${PAID_PACK_ID}/attempts`, { token, body });
const attemptsOf = (agentId: string) =>
  service.db.selectFrom("eval_attempts").select(["id", "status"]).where("agent_id", "=", agentId).execute();

describe("paid packs", () => {
  it("the detail names the dedicated treasury, token, exact amount and message to sign; without txHash the start is 402 PAYMENT_REQUIRED", async () => {
    // The treasury is an address of its own: not the escrow, not its fee recipient, not a user's account.
    expect(treasury).not.toBe(chain.config.escrowAddress);
    expect(treasury).not.toBe(getAddress(chain.deployment.feeRecipient));
    expect(chain.accounts.map((a) => a.address)).not.toContain(treasury);
    const detail = await service.http("GET", `/v1/evals/packs/${PAID_PACK_ID}`);
    expect(detail.json.data.payment).toMatchObject({
      chainId: chain.config.chainId,
      tokenSymbol: "USDC",
      tokenAddress: chain.config.tokenAddress,
      payTo: treasury,
      amountUsdc: "5",
      amountUnits: "5000000",
      confirmations: chain.config.confirmations,
      messageTemplate: `Agent Work Marketplace: pay for a certification pack attempt\nPack: ${PAID_PACK_ID}\nAgent: {agentId}\nPayment: {txHash}\nChain: ${chain.config.chainId}`,
    });
    const agent = await newAgent(service, { walletAddress: walletOf(PAYER) });
    const res = await start(service, agent.apiKey);
    expect(res.status).toBe(402);
    expect(res.json).toMatchObject({
      statusCode: 402,
      error: "Payment Required",
      code: "PAYMENT_REQUIRED",
      payment: { payTo: treasury, amountUsdc: "5" },
    });
    expect(await attemptsOf(agent.id)).toHaveLength(0);
  });

  it("a signed payment starts one attempt and the treasury receives it; passing certifies; the hash never starts another", async () => {
    const agent = await newAgent(service);
    const before = await erc20BalanceOf({ config: chain.config, address: treasury });
    const txHash = await pay(PAYER, "5");
    expect((await erc20BalanceOf({ config: chain.config, address: treasury })) - before).toBe(parseUsdc("5"));

    const started = await start(service, agent.apiKey, await paid(PAYER, agent.id, txHash));
    expect(started.status, JSON.stringify(started.json)).toBe(201);
    expect(started.json.data).toMatchObject({
      packId: PAID_PACK_ID,
      agentId: agent.id,
      status: "IN_PROGRESS",
      paid: true,
      paymentTxHash: txHash.toLowerCase(),
      amountUsdc: "5",
      payerAddress: walletOf(PAYER),
    });
    const passed = await service.http("POST", `/v1/evals/attempts/${started.json.data.id}/answers`, {
      token: agent.apiKey,
      body: { answers: await answersScoring(service, PAID_PACK_ID, 5) },
    });
    expect(passed.json.data).toMatchObject({ status: "PASSED", score: 5 });
    const certs = (await service.http("GET", `/v1/agents/${agent.id}/certifications`)).json.data;
    expect(certs.map((c: { packId: string }) => c.packId)).toEqual([PAID_PACK_ID]);

    // The same hash for another agent, even with the payer's signature for it: used once.
    const sibling = await newAgent(service);
    const reused = await start(service, sibling.apiKey, await paid(PAYER, sibling.id, txHash));
    expect(reused.status).toBe(409);
    expect(reused.json.code).toBe("PAYMENT_ALREADY_USED");
    expect(await attemptsOf(sibling.id)).toHaveLength(0);
  });

  it("a payment from an address merely typed into walletAddress or a payout setting is refused without its key's signature", async () => {
    const VICTIM = 3;
    // Someone pays the treasury for their own attempt; an attacker sets that address as its agent's wallet.
    const txHash = await pay(VICTIM, "5");
    const attacker = await newAgent(service, { walletAddress: walletOf(VICTIM) });
    const { agent: ownedByAttacker, owner } = await claimedAgent(service, {
      ownerKey: chain.accounts[STRANGER]!.privateKey,
    });
    // ...and another sets it as its payout address.
    expect(
      (await service.http("PUT", "/v1/forum/me/payout", { token: owner.token, body: { address: walletOf(VICTIM) } }))
        .status,
    ).toBe(200);

    const noSignature = await start(service, attacker.apiKey, { txHash });
    expect(noSignature.status).toBe(400);
    expect(noSignature.json.messages.join(" ")).toMatch(/signature is required/);
    // Signed by the attacker's own key (its owner's address), for its own agent: not the sender.
    const ownKey = await start(service, owner.token, {
      agentId: ownedByAttacker.id,
      ...(await paid(STRANGER, ownedByAttacker.id, txHash)),
    });
    expect(ownKey.status).toBe(422);
    expect(ownKey.json.code).toBe("PAYMENT_WRONG_PAYER");
    // The victim's real signature, made for the victim's agent, does not carry over to another agent.
    const victimAgent = await newAgent(service);
    const victimSignature = await sign(VICTIM, victimAgent.id, txHash);
    const lifted = await start(service, attacker.apiKey, { txHash, signature: victimSignature });
    expect(lifted.status).toBe(422);
    expect(lifted.json.code).toBe("PAYMENT_WRONG_PAYER");
    // Nor does one over another chain's message.
    const otherChain = await start(service, attacker.apiKey, {
      txHash,
      signature: await sign(VICTIM, attacker.id, txHash, 1),
    });
    expect(otherChain.json.code).toBe("PAYMENT_WRONG_PAYER");
    expect(await attemptsOf(attacker.id)).toHaveLength(0);
    expect(await attemptsOf(ownedByAttacker.id)).toHaveLength(0);

    // Unconsumed: the victim's own agent starts with it.
    const own = await start(service, victimAgent.apiKey, { txHash, signature: victimSignature });
    expect(own.status).toBe(201);
    expect(own.json.data.payerAddress).toBe(walletOf(VICTIM));
  });

  it("a transfer sent by the escrow contract (its fee, when the fee recipient is the treasury) never pays: a contract cannot sign", async () => {
    // An escrow whose fee recipient is the treasury (a misconfiguration the dedicated treasury
    // avoids): each fee withdrawal sends the fees from the contract to the treasury, on chain for all to see.
    const deployHash = await chain.wallet(0).deployContract({
      abi: escrowArtifactAbi,
      bytecode: escrowBytecode,
      args: [chain.config.tokenAddress, walletOf(0), treasury, 500],
    });
    const escrow = getAddress(
      (await chain.publicClient.waitForTransactionReceipt({ hash: deployHash })).contractAddress!,
    );
    const config = { ...chain.config, escrowAddress: escrow };
    const jobId = `0x${"5e".repeat(32)}` as const;
    await depositToEscrow({
      config,
      privateKey: chain.accounts[1]!.privateKey,
      escrowJobId: jobId,
      amount: parseUsdc("100"),
    });
    const release = await releaseEscrow({ config, escrowJobId: jobId, payer: walletOf(1), to: walletOf(7) });
    expect(release.fee).toBe(parseUsdc("5")); // exactly the pack's price, accrued in the escrow
    const withdrawal = (await withdrawEscrowFees(config))!;
    expect(withdrawal).toMatchObject({ amount: parseUsdc("5"), to: treasury }); // from the escrow to the treasury

    const attacker = await newAgent(service, { walletAddress: escrow });
    expect((await start(service, attacker.apiKey, { txHash: withdrawal.txHash })).status).toBe(400);
    const signed = await start(service, attacker.apiKey, await paid(STRANGER, attacker.id, withdrawal.txHash));
    expect(signed.status).toBe(422);
    expect(signed.json.code).toBe("PAYMENT_WRONG_PAYER");
    expect(await attemptsOf(attacker.id)).toHaveLength(0);
  });

  it("refuses unknown, reverted, wrong-amount, wrong-recipient, wrong-payer and non-transfer hashes, and malformed bodies, changing nothing", async () => {
    const agent = await newAgent(service, { walletAddress: walletOf(PAYER) });
    const refused = async (txHash: Hex, code: string, signer = PAYER) => {
      const res = await start(service, agent.apiKey, await paid(signer, agent.id, txHash));
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
    const approve = await chain.wallet(PAYER).writeContract({
      address: chain.config.tokenAddress,
      abi: usdcAbi,
      functionName: "approve",
      args: [treasury, parseUsdc("5")],
    });
    await chain.publicClient.waitForTransactionReceipt({ hash: approve });
    await refused(approve, "PAYMENT_NO_TRANSFER");
    // The right transfer, signed by someone other than its sender (the agent's own wallet).
    const strangers = await pay(STRANGER, "5");
    await refused(strangers, "PAYMENT_WRONG_PAYER", PAYER);
    // A signature that is no signature at all.
    const garbage = await start(service, agent.apiKey, { txHash: strangers, signature: `0x${"00".repeat(65)}` });
    expect(garbage.json.code).toBe("PAYMENT_WRONG_PAYER");
    // Malformed: a short signature, or one for a free pack.
    expect((await start(service, agent.apiKey, { txHash: strangers, signature: "0x1234" })).status).toBe(400);
    const free = await service.http("POST", "/v1/evals/packs/marketplace-basics/attempts", {
      token: agent.apiKey,
      body: { signature: await sign(PAYER, agent.id, strangers) },
    });
    expect(free.status).toBe(400);

    expect(await attemptsOf(agent.id)).toHaveLength(0);
    // A refused hash was not consumed: its sender's signature starts an attempt with it.
    const other = await newAgent(service);
    expect((await start(service, other.apiKey, await paid(STRANGER, other.id, strangers))).status).toBe(201);
  });

  it("an owner pays for its agent from its own address and starts it by naming agentId", async () => {
    const OWNER = 5;
    const { agent, owner } = await claimedAgent(service, { ownerKey: chain.accounts[OWNER]!.privateKey });
    const txHash = await pay(OWNER, "5");
    const res = await start(service, owner.token, { agentId: agent.id, ...(await paid(OWNER, agent.id, txHash)) });
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({ agentId: agent.id, payerAddress: walletOf(OWNER), paid: true });
  });

  it("a failed paid attempt is retried with a new payment only", async () => {
    const agent = await newAgent(service, { walletAddress: walletOf(PAYER) });
    const first = await pay(PAYER, "5");
    const attempt = (await start(service, agent.apiKey, await paid(PAYER, agent.id, first))).json.data;
    const failed = await service.http("POST", `/v1/evals/attempts/${attempt.id}/answers`, {
      token: agent.apiKey,
      body: { answers: await answersScoring(service, PAID_PACK_ID, 2) },
    });
    expect(failed.json.data).toMatchObject({ status: "FAILED", score: null });

    // Inside the cooldown a payment is not even looked at (and so not consumed).
    const early = await pay(PAYER, "5");
    expect((await start(service, agent.apiKey, { txHash: early })).json.code).toBe("PACK_COOLDOWN");
    await letTimePass(service, agent.id, PAID_PACK_ID);
    expect((await start(service, agent.apiKey)).status).toBe(402);
    expect((await start(service, agent.apiKey, await paid(PAYER, agent.id, first))).json.code).toBe(
      "PAYMENT_ALREADY_USED",
    );
    const retry = await start(service, agent.apiKey, await paid(PAYER, agent.id, await pay(PAYER, "5")));
    expect(retry.status).toBe(201);
    // While that attempt is open, another payment is not taken (nor consumed).
    const spare = await pay(PAYER, "5");
    const open = await start(service, agent.apiKey, await paid(PAYER, agent.id, spare));
    expect(open.status).toBe(409);
    expect(open.json).toMatchObject({ code: "ATTEMPT_IN_PROGRESS", existingAttemptId: retry.json.data.id });
    expect(
      await service.db
        .selectFrom("eval_attempts")
        .select("id")
        .where("payment_tx_hash", "=", spare.toLowerCase())
        .execute(),
    ).toHaveLength(0);
  });

  it("parallel starts with one hash by two agents give exactly one attempt", async () => {
    const a = await newAgent(service);
    const b = await newAgent(service);
    const txHash = await pay(PAYER, "5");
    const [forA, forB] = await Promise.all([paid(PAYER, a.id, txHash), paid(PAYER, b.id, txHash)]);
    const results = await Promise.all([
      start(service, a.apiKey, forA),
      start(service, b.apiKey, forB),
      start(service, a.apiKey, forA),
      start(service, b.apiKey, forB),
    ]);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(409);
      expect(["PAYMENT_ALREADY_USED", "ATTEMPT_IN_PROGRESS"]).toContain(r.json.code);
    }
    expect(
      await service.db
        .selectFrom("eval_attempts")
        .select("id")
        .where("payment_tx_hash", "=", txHash.toLowerCase())
        .execute(),
    ).toHaveLength(1);
  });
});

describe("paid packs under other chain settings", () => {
  it("waits for the configured confirmations", async () => {
    const strict = await serviceWith({ chain: { ...chain.config, confirmations: 3 } });
    const agent = await newAgent(strict);
    const body = await paid(PAYER, agent.id, await pay(PAYER, "5"));
    const early = await start(strict, agent.apiKey, body);
    expect(early.status).toBe(422);
    expect(early.json).toMatchObject({ code: "PAYMENT_NOT_CONFIRMED", confirmations: 1, required: 3 });
    await chain.testClient.mine({ blocks: 2 });
    expect((await start(strict, agent.apiKey, body)).status).toBe(201);
  });

  it("refuses a payment when the RPC serves another chain, or in another token", async () => {
    const txHash = await pay(PAYER, "5");
    const otherChain = await serviceWith({ chain: { ...chain.config, chainId: 999 } });
    const a = await newAgent(otherChain);
    const wrongChain = await start(otherChain, a.apiKey, await paid(PAYER, a.id, txHash));
    expect(wrongChain.status).toBe(422);
    expect(wrongChain.json.code).toBe("PAYMENT_WRONG_CHAIN");

    const otherToken = await serviceWith({
      chain: { ...chain.config, tokenAddress: "0x3333333333333333333333333333333333333333" },
    });
    const b = await newAgent(otherToken);
    const wrongToken = await start(otherToken, b.apiKey, await paid(PAYER, b.id, txHash));
    expect(wrongToken.status).toBe(422);
    expect(wrongToken.json.code).toBe("PAYMENT_WRONG_TOKEN");

    // Still unused: it starts an attempt on the right settings.
    const c = await newAgent(service);
    expect((await start(service, c.apiKey, await paid(PAYER, c.id, txHash))).status).toBe(201);
  });

  it("the configured treasury is where payments go; without one, paid packs cannot be bought", async () => {
    const own = walletOf(6);
    const custom = await serviceWith({ chain: { ...chain.config, treasuryAddress: own } });
    expect((await custom.http("GET", `/v1/evals/packs/${PAID_PACK_ID}`)).json.data.payment.payTo).toBe(own);
    const agent = await newAgent(custom);
    const toOtherTreasury = await start(custom, agent.apiKey, await paid(PAYER, agent.id, await pay(PAYER, "5")));
    expect(toOtherTreasury.json.code).toBe("PAYMENT_WRONG_RECIPIENT");
    expect((await start(custom, agent.apiKey, await paid(PAYER, agent.id, await pay(PAYER, "5", own)))).status).toBe(
      201,
    );

    const none = await serviceWith({ chain: { ...chain.config, treasuryAddress: null } });
    expect((await none.http("GET", `/v1/evals/packs/${PAID_PACK_ID}`)).json.data.payment).toBeNull();
    const b = await newAgent(none);
    const refused = await start(none, b.apiKey, await paid(PAYER, b.id, await pay(PAYER, "5")));
    expect(refused.status).toBe(503);
    expect(refused.json.code).toBe("TREASURY_NOT_CONFIGURED");
  });
});
