import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, getAddress, http, parseTransaction, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { localChain } from "@/lib/chain/chains";
import { packPaymentMessage } from "@/lib/api/schemas/evals";
import { usdcAbi } from "@/lib/chain/abi";
import { parseUsdc, splitFee } from "@/lib/chain/units";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { demoPackInput } from "@/lib/testing/demo-pack";
import {
  GENEROUS_BUDGETS,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { startRpcFaultProxy, type RpcFaultProxy } from "../testing/rpc-fault-proxy";
import { payPendingPackPayouts } from "../evals/pack-payouts";
import { balanceOf, randomAddress } from "../testing/rewards-support";
import { finishPendingWithdrawals } from "./wallet";

// Outgoing transfers against a chain whose RPC loses replies: the service talks to anvil through a
// proxy (loopback, a free port) that forwards every request but can cut the connection before the
// answer. A transfer whose receipt the RPC did not deliver must be asked about again, never signed
// anew: exactly one transfer each, whatever the retries and lease expiries.

let chain: TestChain;
let proxy: RpcFaultProxy;
let service: TestService;
const operatorKey = generatePrivateKey();
const PAYER = 4;
const LATER = (minutes: number) => new Date(Date.now() + minutes * 60_000);

beforeAll(async () => {
  chain = await startTestChain({ chainId: 31357 });
  proxy = await startRpcFaultProxy(chain.rpcUrl);
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    chain: { ...chain.config, rpcUrl: proxy.url },
    operatorAddresses: [privateKeyToAccount(operatorKey).address],
  });
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await proxy?.stop();
  await chain?.stop();
});

/** A user whose managed-wallet balance is `usdc` (the rewards wallet holds test USDC on chain to back it). */
async function ownerWithBalance(usdc: string): Promise<TestUser> {
  const owner = await newUser(service);
  await service.db
    .insertInto("wallet_ledger")
    .values({
      owner_user_id: owner.id,
      agent_id: null,
      kind: "REWARD_CREDIT",
      direction: "CREDIT",
      amount_usdc: usdc,
      reward_id: null,
      withdrawal_id: null,
      bid_id: null,
      job_id: null,
      memo: "test credit",
    })
    .execute();
  return owner;
}

const nonceOf = (address: Address) => chain.publicClient.getTransactionCount({ address, blockTag: "latest" });

describe("outgoing transfers when the RPC loses receipts", () => {
  it("a managed-wallet withdrawal whose receipts are lost across lease expiries is sent once, then confirmed with its first hash; the ledger matches the chain", async () => {
    const owner = await ownerWithBalance("3");
    const rewardsWallet = getAddress(chain.deployment.rewards.address);
    const to = randomAddress();
    proxy.drop(["eth_getTransactionReceipt"]);
    const created = await service.http("POST", "/v1/wallet/withdrawals", {
      token: owner.token,
      body: { toAddress: to, amountUsdc: "1.5" },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.data).toMatchObject({ status: "PENDING", amountUsdc: "1.5" });
    const firstHash: Hex = created.json.data.txHash;
    expect(firstHash).toMatch(/^0x[0-9a-f]{64}$/);
    // anvil mined it; only the answer was lost.
    expect(await balanceOf(chain.config, to)).toBe(parseUsdc("1.5"));
    const nonceAfterSend = await nonceOf(rewardsWallet);

    // The lease runs out twice while receipts are still lost: nothing is signed again.
    for (const minutes of [6, 12]) {
      await finishPendingWithdrawals(service.ctx, { only: [created.json.data.id], now: LATER(minutes) });
      const row = (await service.http("GET", `/v1/wallet/withdrawals/${created.json.data.id}`, { token: owner.token }))
        .json.data;
      expect(row).toMatchObject({ status: "PENDING", txHash: firstHash });
      expect(await nonceOf(rewardsWallet)).toBe(nonceAfterSend);
      expect(await balanceOf(chain.config, to)).toBe(parseUsdc("1.5"));
    }
    expect(proxy.dropped.eth_getTransactionReceipt).toBeGreaterThan(0);

    // The RPC answers again: the same transfer is found and confirmed.
    proxy.heal();
    await finishPendingWithdrawals(service.ctx, { only: [created.json.data.id], now: LATER(18) });
    const done = (await service.http("GET", `/v1/wallet/withdrawals/${created.json.data.id}`, { token: owner.token }))
      .json.data;
    expect(done).toMatchObject({ status: "CONFIRMED", txHash: firstHash });
    expect(await balanceOf(chain.config, to)).toBe(parseUsdc("1.5"));
    expect(await nonceOf(rewardsWallet)).toBe(nonceAfterSend);
    const ledger = (await service.http("GET", "/v1/wallet/ledger", { token: owner.token })).json.data;
    expect(ledger.filter((e: { kind: string }) => e.kind === "WITHDRAWAL")).toEqual([
      expect.objectContaining({ direction: "DEBIT", amountUsdc: "1.5", withdrawalId: created.json.data.id }),
    ]);
    expect((await service.http("GET", "/v1/wallet", { token: owner.token })).json.data).toMatchObject({
      balanceUsdc: "1.5",
      pendingWithdrawalUsdc: "0",
    });
  });

  it("a withdrawal whose signed transfer never left and whose nonce went to another transfer is signed anew, once", async () => {
    const owner = await ownerWithBalance("4");
    const rewardsWallet = getAddress(chain.deployment.rewards.address);
    service.crashPoints.beforeWithdrawalBroadcast = () => {
      service.crashPoints.beforeWithdrawalBroadcast = undefined;
      throw new Error("simulated crash before broadcasting the withdrawal");
    };
    const to = randomAddress();
    const crashed = await service.http("POST", "/v1/wallet/withdrawals", {
      token: owner.token,
      body: { toAddress: to, amountUsdc: "1" },
    });
    expect(crashed.json.data.status).toBe("PENDING");
    const stored = await service.db
      .selectFrom("wallet_withdrawals")
      .select(["sent_raw_tx", "sent_tx_hash"])
      .where("id", "=", crashed.json.data.id)
      .executeTakeFirstOrThrow();
    const deadNonce = parseTransaction(stored.sent_raw_tx as Hex).nonce;
    // Another withdrawal takes that nonce.
    const other = await service.http("POST", "/v1/wallet/withdrawals", {
      token: owner.token,
      body: { toAddress: randomAddress(), amountUsdc: "1" },
    });
    expect(other.json.data.status).toBe("CONFIRMED");
    expect(await nonceOf(rewardsWallet)).toBe(deadNonce! + 1);

    await finishPendingWithdrawals(service.ctx, { only: [crashed.json.data.id], now: LATER(6) });
    const done = (await service.http("GET", `/v1/wallet/withdrawals/${crashed.json.data.id}`, { token: owner.token }))
      .json.data;
    expect(done.status).toBe("CONFIRMED");
    expect(done.txHash).not.toBe(stored.sent_tx_hash);
    expect(await balanceOf(chain.config, to)).toBe(parseUsdc("1"));
    await finishPendingWithdrawals(service.ctx, { only: [crashed.json.data.id], now: LATER(12) });
    expect(await balanceOf(chain.config, to)).toBe(parseUsdc("1"));
    expect((await service.http("GET", "/v1/wallet", { token: owner.token })).json.data.balanceUsdc).toBe("2");
  });

  it("a pack payout whose receipts are lost across lease expiries pays the publisher once", async () => {
    const operator = await newUser(service, operatorKey);
    const publisher = await newUser(service);
    const published = await service.http("POST", "/v1/evals/packs", {
      token: publisher.token,
      body: demoPackInput({ priceUsdc: "3", title: "Pack paid through a lossy RPC" }),
    });
    expect(published.status, JSON.stringify(published.json)).toBe(201);
    const packId: string = published.json.data.id;
    expect(
      (
        await service.http("POST", `/v1/admin/packs/${packId}/approve`, {
          token: operator.token,
          body: { reason: "good pack" },
        })
      ).status,
    ).toBe(200);
    const agent = await newAgent(service);
    const detail = (await service.http("GET", `/v1/evals/packs/${packId}`)).json.data;
    const transfer = await chain.wallet(PAYER).writeContract({
      address: chain.config.tokenAddress,
      abi: usdcAbi,
      functionName: "transfer",
      args: [detail.payment.payTo as Address, parseUsdc("3")],
    });
    await chain.publicClient.waitForTransactionReceipt({ hash: transfer });
    const signature: Hex = await chain.wallet(PAYER).signMessage({
      message: packPaymentMessage({
        packId,
        agentId: agent.id,
        txHash: transfer.toLowerCase(),
        chainId: chain.config.chainId,
      }),
    });
    const started = await service.http("POST", `/v1/evals/packs/${packId}/attempts`, {
      token: agent.apiKey,
      body: { mode: "CLOSED_BOOK", txHash: transfer, signature },
    });
    expect(started.status, JSON.stringify(started.json)).toBe(201);
    const payout = await service.db
      .selectFrom("eval_pack_payouts")
      .selectAll()
      .where("pack_id", "=", packId)
      .executeTakeFirstOrThrow();
    const publisherAddress = getAddress(publisher.address);
    const before = await balanceOf(chain.config, publisherAddress);
    const { net } = splitFee(parseUsdc("3"), chain.config.feeBps);
    const operatorWallet = getAddress(chain.accounts[0]!.address);

    proxy.drop(["eth_getTransactionReceipt"]);
    expect(await payPendingPackPayouts(service.ctx, new Date(), { only: [payout.id] })).toBe(0);
    const sent = await service.db
      .selectFrom("eval_pack_payouts")
      .selectAll()
      .where("id", "=", payout.id)
      .executeTakeFirstOrThrow();
    // Sent: PENDING with its transfer kept, which the operator's console shows as SENT.
    expect(sent).toMatchObject({ status: "PENDING", sent_tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await balanceOf(chain.config, publisherAddress)).toBe(before + net);
    const nonceAfterSend = await nonceOf(operatorWallet);
    for (const minutes of [6, 12]) {
      expect(await payPendingPackPayouts(service.ctx, LATER(minutes), { only: [payout.id] })).toBe(0);
      expect(
        await service.db
          .selectFrom("eval_pack_payouts")
          .selectAll()
          .where("id", "=", payout.id)
          .executeTakeFirstOrThrow(),
      ).toMatchObject({ status: "PENDING", sent_tx_hash: sent.sent_tx_hash });
      expect(await nonceOf(operatorWallet)).toBe(nonceAfterSend);
      expect(await balanceOf(chain.config, publisherAddress)).toBe(before + net);
    }
    proxy.heal();
    expect(await payPendingPackPayouts(service.ctx, LATER(18), { only: [payout.id] })).toBe(1);
    expect(
      await service.db
        .selectFrom("eval_pack_payouts")
        .selectAll()
        .where("id", "=", payout.id)
        .executeTakeFirstOrThrow(),
    ).toMatchObject({ status: "CONFIRMED", sent_tx_hash: sent.sent_tx_hash });
    expect(await balanceOf(chain.config, publisherAddress)).toBe(before + net);
    expect(await nonceOf(operatorWallet)).toBe(nonceAfterSend);
  });

  it("reconciliation names a second payment of a withdrawal (table, row, user), and health turns degraded with the count", async () => {
    const operator = await newUser(service, operatorKey);
    const clean = await service.http("GET", "/v1/admin/reconciliation", { token: operator.token });
    expect(clean.status, JSON.stringify(clean.json)).toBe(200);
    expect(clean.json.data.transfersScanned).toBe(true);
    expect(clean.json.data.differences.filter((d: { kind: string }) => d.kind.startsWith("TRANSFER_"))).toEqual([]);

    const owner = await ownerWithBalance("2");
    const to = randomAddress();
    const done = await service.http("POST", "/v1/wallet/withdrawals", {
      token: owner.token,
      body: { toAddress: to, amountUsdc: "1.25" },
    });
    expect(done.json.data.status).toBe("CONFIRMED");
    // The same amount to the same address again from the managed wallet, outside the service: a double payment.
    const rewards = createWalletClient({
      account: privateKeyToAccount(chain.deployment.rewards.privateKey),
      chain: localChain(chain.config.chainId, chain.rpcUrl),
      transport: http(chain.rpcUrl),
    });
    const extra = await rewards.writeContract({
      address: chain.config.tokenAddress,
      abi: usdcAbi,
      functionName: "transfer",
      args: [to, parseUsdc("1.25")],
    });
    await chain.publicClient.waitForTransactionReceipt({ hash: extra });

    const found = await service.http("GET", "/v1/admin/reconciliation", { token: operator.token });
    expect(found.status).toBe(200);
    const unrecorded = found.json.data.differences.filter((d: { kind: string }) => d.kind === "TRANSFER_UNRECORDED");
    expect(unrecorded).toEqual([
      expect.objectContaining({
        table: "wallet_withdrawals",
        rowId: done.json.data.id,
        userId: owner.id,
        txHash: extra.toLowerCase(),
        chainUsdc: "1.25",
      }),
    ]);
    expect(unrecorded[0].detail).toContain(`withdrawal ${done.json.data.id}`);
    const health = await service.http("GET", "/v1/health");
    expect(health.json.data.money).toMatchObject({
      ok: false,
      reconciliationDifferences: found.json.data.differences.length,
    });
    expect(health.json.data.status).not.toBe("ok");

    // The console lists every kind of outgoing transfer with its status and transaction.
    const overview = await service.http("GET", "/v1/admin/overview", { token: operator.token });
    expect(overview.status, JSON.stringify(overview.json)).toBe(200);
    const transfers: Array<{ kind: string; id: string; status: string; txHash: string | null }> =
      overview.json.data.transfers;
    expect(transfers).toContainEqual(
      expect.objectContaining({
        kind: "WITHDRAWAL",
        id: done.json.data.id,
        status: "CONFIRMED",
        txHash: done.json.data.txHash,
        userId: owner.id,
      }),
    );
    expect(transfers.some((t) => t.kind === "PACK_PAYOUT" && t.status === "CONFIRMED" && t.txHash)).toBe(true);
  });
});
