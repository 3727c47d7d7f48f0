// x402 answers the truth when the chain or the database fails around the payment. A payment that
// moved is a success (PAYMENT-RESPONSE success:true and the attempt); one whose outcome is not known
// is a 503 with Retry-After, and the same PAYMENT-SIGNATURE completes it; a payment whose request
// went away is finished by the worker from the chain. Never "failed" while the USDC moved, so a
// client never signs again and pays twice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { abi as testUsdcAbi } from "@/contracts/artifacts/test-usdc";
import { x402Client } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { PAID_PACK_ID } from "../testing/evals-support";
import { GENEROUS_BUDGETS, newAgent, newClientIp, startTestService, type TestService } from "../testing/harness";
import { startRpcFaultProxy, type RpcFaultProxy } from "../testing/rpc-fault-proxy";
import { finishSentPayments, watchSettledPayments } from "./x402";
import { reconcileTransfers } from "../admin/reconcile-transfers";

let chain: TestChain;
let proxy: RpcFaultProxy;
let service: TestService;
let treasury: Address;
const PRICE = parseUsdc("5");
const path = `/v1/evals/packs/${PAID_PACK_ID}/attempts`;

beforeAll(async () => {
  chain = await startTestChain({ chainId: 31373 });
  proxy = await startRpcFaultProxy(chain.rpcUrl);
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: { ...chain.config, rpcUrl: proxy.url } });
  treasury = getAddress(chain.deployment.treasury!);
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await proxy?.stop();
  await chain?.stop();
});

const balance = (address: Address) => erc20BalanceOf({ config: chain.config, address });

function start(apiKey: string, payment?: PaymentPayload) {
  return fetch(`${service.baseUrl}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      "content-type": "application/json",
      "x-forwarded-for": newClientIp(),
      ...(payment ? { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payment) } : {}),
    },
    body: "{}",
  });
}

/**
 * A payer of its own (a fresh key holding the price in test USDC and no ETH, as an x402 client
 * needs): suites on one database never see each other's payments by payer.
 */
async function newPayer(): Promise<{ key: Hex; address: Address }> {
  // The test USDC lets anyone mint; not the operator key (the service sends with it).
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  const hash = await chain.wallet(9).writeContract({
    address: chain.config.tokenAddress,
    abi: testUsdcAbi,
    functionName: "mint",
    args: [address, PRICE * 2n],
  });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  return { key, address };
}

/** The x402 project's client signs a payment for this pack's 402 (not sent). */
async function signedPayment(payerKey: Hex, apiKey: string): Promise<PaymentPayload> {
  const unpaid = await start(apiKey);
  expect(unpaid.status).toBe(402);
  const client = new x402Client().setSpendControls({
    allowedAssets: [
      {
        network: `eip155:${chain.config.chainId}`,
        asset: getAddress(chain.config.tokenAddress),
        maxAmountPerPayment: PRICE.toString(),
      },
    ],
  });
  registerExactEvmScheme(client, { signer: privateKeyToAccount(payerKey) });
  return client.createPaymentPayload(decodePaymentRequiredHeader(unpaid.headers.get("PAYMENT-REQUIRED")!));
}

/** An agent, a payer of its own, its signed payment (not sent yet) and the payer's balance before. */
async function newBuyer() {
  const agent = await newAgent(service);
  const { key, address: payer } = await newPayer();
  const payment = await signedPayment(key, agent.apiKey);
  return { agent, payer, payment, payerBefore: await balance(payer) };
}

/** Pays, the process dying between the receipt and its record (kill -9: no answer, nothing retried). */
async function payAndDie(apiKey: string, payment: PaymentPayload) {
  service.crashPoints.afterPaymentSettled = () => {
    throw new Error("killed");
  };
  try {
    expect((await start(apiKey, payment)).status).toBe(500);
  } finally {
    service.crashPoints.afterPaymentSettled = undefined;
  }
}

const attemptsOf = (agentId: string) =>
  service.db.selectFrom("eval_attempts").select("id").where("agent_id", "=", agentId).execute();

const paymentOf = (agentId: string) =>
  service.db.selectFrom("x402_payments").selectAll().where("agent_id", "=", agentId).executeTakeFirstOrThrow();

/** The reconciliation, an hour on (past its grace for payments in flight), finds nothing wrong with this payment. */
async function expectReconciled(paymentId: string) {
  const later = { ...service.ctx, now: () => new Date(Date.now() + 3_600_000) };
  const { differences } = await reconcileTransfers(later, chain.config);
  expect(differences.filter((d) => d.rowId === paymentId)).toEqual([]);
}

/** Settled once by the transaction its row kept: one attempt, the payer down by the price exactly once. */
async function expectPaidOnce(agentId: string, payer: Address, payerBefore: bigint) {
  const row = await paymentOf(agentId);
  expect(row.status, row.last_error ?? "").toBe("SETTLED");
  expect(payerBefore - (await balance(payer))).toBe(PRICE);
  const attempts = await service.db
    .selectFrom("eval_attempts")
    .select("payment_tx_hash")
    .where("agent_id", "=", agentId)
    .execute();
  expect(attempts).toEqual([{ payment_tx_hash: row.sent_tx_hash }]);
  await expectReconciled(row.id);
}

describe("x402 when the gateway errs after the node took the settlement", () => {
  it("answers success with the attempt, and the payer pays once", async () => {
    const agent = await newAgent(service);
    const { key, address: payer } = await newPayer();
    const payment = await signedPayment(key, agent.apiKey);
    const [payerBefore, treasuryBefore] = [await balance(payer), await balance(treasury)];

    proxy.failAfterForwarding(["eth_sendRawTransaction"], { code: -32603, message: "upstream connect error" });
    const paid = await start(agent.apiKey, payment);
    proxy.heal();

    expect(paid.status, await paid.clone().text()).toBe(201);
    expect(decodePaymentResponseHeader(paid.headers.get("PAYMENT-RESPONSE")!)).toMatchObject({ success: true });
    expect(await attemptsOf(agent.id)).toHaveLength(1);
    expect(payerBefore - (await balance(payer))).toBe(PRICE);
    expect((await balance(treasury)) - treasuryBefore).toBe(PRICE);
    await expectPaidOnce(agent.id, payer, payerBefore);
  });
});

describe("x402 when the database goes away after the settlement moved the money", () => {
  it("answers 503 with Retry-After, never 'failed'; the same signature then gets the attempt without paying again", async () => {
    const { agent, payer, payment, payerBefore } = await newBuyer();

    service.crashPoints.afterPaymentSettled = () => {
      throw Object.assign(new Error("Connection terminated unexpectedly"), { code: "ECONNRESET" });
    };
    const lost = await start(agent.apiKey, payment);
    service.crashPoints.afterPaymentSettled = undefined;

    expect(lost.status, await lost.clone().text()).toBe(503);
    expect(Number(lost.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(lost.headers.get("PAYMENT-RESPONSE")).toBeNull();
    expect(payerBefore - (await balance(payer))).toBe(PRICE);

    const again = await start(agent.apiKey, payment);
    expect(again.status, await again.clone().text()).toBe(201);
    expect(decodePaymentResponseHeader(again.headers.get("PAYMENT-RESPONSE")!)).toMatchObject({ success: true });
    expect(await attemptsOf(agent.id)).toHaveLength(1);
    expect(payerBefore - (await balance(payer))).toBe(PRICE);
  });

  it("a payment left owed by a request whose process died after sending is finished by the worker from the chain", async () => {
    const { agent, payer, payment, payerBefore } = await newBuyer();
    await payAndDie(agent.apiKey, payment);
    const row = await service.db
      .selectFrom("x402_payments")
      .select(["id", "status", "sent_tx_hash"])
      .where("agent_id", "=", agent.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("PENDING");
    expect(row.sent_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // The reconciliation sees it: moved on chain, unsettled in the books.
    const later = { ...service.ctx, now: () => new Date(Date.now() + 3_600_000) };
    const before = await reconcileTransfers(later, chain.config);
    expect(before.differences.filter((d) => d.rowId === row.id)).toMatchObject([
      { kind: "TRANSFER_UNRECORDED", table: "x402_payments" },
    ]);

    await finishSentPayments(service.ctx, { only: [row.id], now: new Date(Date.now() + 3_600_000) });
    const finished = await service.db
      .selectFrom("x402_payments")
      .select("status")
      .where("id", "=", row.id)
      .executeTakeFirstOrThrow();
    expect(finished.status).toBe("SETTLED");
    expect(payerBefore - (await balance(payer))).toBe(PRICE);
    const after = await reconcileTransfers(later, chain.config);
    expect(after.differences.filter((d) => d.rowId === row.id)).toEqual([]);

    // A settled payment the chain does not have (books written wrong) is named too.
    await service.db
      .updateTable("x402_payments")
      .set({ sent_tx_hash: `0x${"ab".repeat(32)}` })
      .where("id", "=", row.id)
      .execute();
    const wrong = await reconcileTransfers(later, chain.config);
    expect(wrong.differences.filter((d) => d.rowId === row.id)).toMatchObject([
      { kind: "TRANSFER_MISSING", table: "x402_payments" },
    ]);
  });
});

describe("an x402 settlement a chain reorganisation removed", () => {
  it("is sent again exactly once, the treasury paid once", async () => {
    const agent = await newAgent(service);
    const { key, address: payer } = await newPayer();
    const payment = await signedPayment(key, agent.apiKey);
    const [payerBefore, treasuryBefore] = [await balance(payer), await balance(treasury)];
    const snapshot = await chain.testClient.snapshot();
    const paid = await start(agent.apiKey, payment);
    expect(paid.status, await paid.clone().text()).toBe(201);
    const row = await service.db
      .selectFrom("x402_payments")
      .select(["id", "sent_tx_hash as tx_hash"])
      .where("agent_id", "=", agent.id)
      .executeTakeFirstOrThrow();

    await chain.testClient.revert({ id: snapshot });
    await chain.testClient.mine({ blocks: 4 });
    expect(await balance(payer)).toBe(payerBefore);

    expect(await watchSettledPayments(service.ctx, { only: [row.id] })).toEqual([row.id]);
    // One round broadcasts the kept transaction again, the next finds it mined.
    await finishSentPayments(service.ctx, { only: [row.id], now: new Date(Date.now() + 3_600_000) });
    await finishSentPayments(service.ctx, { only: [row.id], now: new Date(Date.now() + 3_600_000) });
    const settled = await service.db
      .selectFrom("x402_payments")
      .select(["status", "sent_tx_hash as tx_hash"])
      .where("id", "=", row.id)
      .executeTakeFirstOrThrow();
    expect(settled).toEqual({ status: "SETTLED", tx_hash: row.tx_hash });
    expect(payerBefore - (await balance(payer))).toBe(PRICE);
    expect((await balance(treasury)) - treasuryBefore).toBe(PRICE);
    expect(await watchSettledPayments(service.ctx, { only: [row.id] })).toEqual([]);
    await expectReconciled(row.id);
  });
});

describe("x402 settlements through the settlement engine, under the faults every transfer is tried with", () => {
  it("a broadcast whose reply is lost (and the node cannot be asked): 503 with Retry-After, the transaction kept; the same signature then settles it without a second", async () => {
    // Proves the engine path: the engine backs off (attempts, last_error, lease_until) with the transaction kept.
    const { agent, payer, payment, payerBefore } = await newBuyer();
    proxy.drop(["eth_sendRawTransaction", "eth_getTransactionByHash"]);
    const lost = await start(agent.apiKey, payment);
    proxy.heal();
    expect(lost.status, await lost.clone().text()).toBe(503);
    expect(Number(lost.headers.get("retry-after"))).toBeGreaterThan(0);
    const kept = await paymentOf(agent.id);
    expect(kept).toMatchObject({ status: "PENDING", attempts: 1 });
    expect(kept.sent_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(kept.last_error).toBeTruthy();
    expect(kept.lease_until!.getTime()).toBeGreaterThan(Date.now());

    const again = await start(agent.apiKey, payment);
    expect(again.status, await again.clone().text()).toBe(201);
    expect(decodePaymentResponseHeader(again.headers.get("PAYMENT-RESPONSE")!).transaction).toBe(kept.sent_tx_hash);
    await expectPaidOnce(agent.id, payer, payerBefore);
  });

  it("a gateway that sends the broadcast twice: 201, one transfer, recorded once", async () => {
    const { agent, payer, payment, payerBefore } = await newBuyer();
    proxy.duplicate(["eth_sendRawTransaction"]);
    const paid = await start(agent.apiKey, payment);
    proxy.heal();
    expect(paid.status, await paid.clone().text()).toBe(201);
    await expectPaidOnce(agent.id, payer, payerBefore);
  });

  it("the node down while the worker finishes a payment its request left: the worker backs off, and settles it once the node is up", async () => {
    // Fails on the old code: its worker kept no attempts, lease or reason for a payment it could not finish.
    const { agent, payer, payment, payerBefore } = await newBuyer();
    await payAndDie(agent.apiKey, payment);
    const left = await paymentOf(agent.id);

    const later = new Date(Date.now() + 3_600_000);
    proxy.down();
    try {
      expect(await finishSentPayments(service.ctx, { only: [left.id], now: later })).toBe(0);
    } finally {
      proxy.heal();
    }
    const backingOff = await paymentOf(agent.id);
    expect(backingOff).toMatchObject({ status: "PENDING", attempts: 2, sent_tx_hash: left.sent_tx_hash });
    expect(backingOff.last_error).toBeTruthy();
    expect(backingOff.lease_until!.getTime()).toBe(later.getTime() + 20_000);

    expect(await finishSentPayments(service.ctx, { only: [left.id], now: new Date(later.getTime() + 60_000) })).toBe(1);
    // The payer's next submission of the same signature starts the attempt it paid for.
    const again = await start(agent.apiKey, payment);
    expect(again.status, await again.clone().text()).toBe(201);
    await expectPaidOnce(agent.id, payer, payerBefore);
  });

  it("a receipt the database could not take is recorded by the sender itself as soon as it answers: no worker, no second submission", async () => {
    // Fails on the old code: the payment stayed SENT until the worker's round, five minutes later.
    const { agent, payer, payment, payerBefore } = await newBuyer();
    let outages = 0;
    service.crashPoints.afterPaymentSettled = () => {
      // Away for the request's own record and its first retry.
      if (outages++ < 2) throw Object.assign(new Error("Connection terminated unexpectedly"), { code: "ECONNRESET" });
    };
    try {
      const lost = await start(agent.apiKey, payment);
      expect(lost.status, await lost.clone().text()).toBe(503);
      const deadline = Date.now() + 15_000;
      while ((await paymentOf(agent.id)).status !== "SETTLED" && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 250));
    } finally {
      service.crashPoints.afterPaymentSettled = undefined;
    }
    expect(outages).toBe(3);
    const row = await paymentOf(agent.id);
    expect(row).toMatchObject({ status: "SETTLED", attempts: 1 });
    expect(payerBefore - (await balance(payer))).toBe(PRICE);
    await expectReconciled(row.id);
    // The same signature then starts the attempt it paid for.
    const again = await start(agent.apiKey, payment);
    expect(again.status, await again.clone().text()).toBe(201);
    await expectPaidOnce(agent.id, payer, payerBefore);
  });
});

describe("two instances buying packs through a slow node, both sending from the operator key", () => {
  // Each instance keeps its own sender lock (a lock per process), so both read the operator's next
  // nonce as the same number; the second broadcast is refused ("nonce too low"). Its transaction can
  // never be mined, so it is signed again at the next nonce: every purchase succeeds, each paid once.
  it("every purchase succeeds and each payer pays once", { timeout: 120_000 }, async () => {
    // A second proxy to the same node: another RPC URL, so another process's sender lock.
    const second = await startRpcFaultProxy(chain.rpcUrl);
    const other = await startTestService(
      { rateBudgets: GENEROUS_BUDGETS, chain: { ...chain.config, rpcUrl: second.url } },
      { ownPool: true },
    );
    try {
      // One after another: the mints share the faucet account's nonces.
      const buyers = [];
      for (const instance of [service, other, service, other]) {
        const agent = await newAgent(instance);
        const payer = await newPayer();
        buyers.push({ instance, agent, payer, payment: await signedPayment(payer.key, agent.apiKey) });
      }
      const before = await Promise.all(buyers.map((b) => balance(b.payer.address)));
      proxy.slow(["eth_sendRawTransaction"], 1_500);
      second.slow(["eth_sendRawTransaction"], 1_500);
      const answers = await Promise.all(
        buyers.map((b) =>
          fetch(`${b.instance.baseUrl}${path}`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${b.agent.apiKey}`,
              "content-type": "application/json",
              "x-forwarded-for": newClientIp(),
              "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(b.payment),
            },
            body: "{}",
          }),
        ),
      );
      proxy.heal();
      second.heal();
      for (const answer of answers) expect(answer.status, await answer.clone().text()).toBe(201);
      for (const [i, b] of buyers.entries()) {
        expect(before[i]! - (await balance(b.payer.address))).toBe(PRICE);
        expect(await attemptsOf(b.agent.id)).toHaveLength(1);
      }
    } finally {
      proxy.heal();
      await other.stop();
      await second.stop();
    }
  });
});
