import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress, keccak256, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { wrapFetchWithPayment, x402Client, decodePaymentResponseHeader } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import type { ExactEIP3009Payload } from "@x402/evm";
import { getWalletClient } from "@/lib/chain/clients";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { parseUsdc } from "@/lib/chain/units";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { GENEROUS_BUDGETS, newAgent, newClientIp, startTestService, type TestService } from "../testing/harness";
import { PAID_PACK_ID } from "../testing/evals-support";
import { finishSentPayments, transferWithAuthorizationData } from "./x402";

// x402 v2 on a paid certification pack, against a real anvil with the test USDC (EIP-3009 as
// USDC has it): the client is the x402 project's own (@x402/fetch's wrapper with @x402/evm's exact
// scheme over a viem account), not ours; this service verifies, settles and answers.

let chain: TestChain;
let service: TestService;
let treasury: Address;
const PRICE = parseUsdc("5");
const PAYER = 5;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config });
  treasury = getAddress(chain.deployment.treasury!);
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

const path = `/v1/evals/packs/${PAID_PACK_ID}/attempts`;
const balance = (address: Address) => erc20BalanceOf({ config: chain.config, address });

/** The x402 project's client paying from `privateKey`; `sent` records every request it makes. */
function x402Fetch(privateKey: `0x${string}`) {
  // The client pays only tokens it knows (USDC on public chains) unless told: the local test USDC is listed, capped at the price.
  const client = new x402Client().setSpendControls({
    allowedAssets: [
      {
        network: `eip155:${chain.config.chainId}`,
        asset: getAddress(chain.config.tokenAddress),
        maxAmountPerPayment: PRICE.toString(),
      },
    ],
  });
  registerExactEvmScheme(client, { signer: privateKeyToAccount(privateKey) });
  const sent: Request[] = [];
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    sent.push(request.clone());
    return fetch(request);
  };
  return { fetch: wrapFetchWithPayment(recording, client), client, sent };
}

function startRequest(apiKey: string) {
  return {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      "content-type": "application/json",
      "x-forwarded-for": newClientIp(),
    },
    body: "{}",
  };
}

/** A payment payload made by the x402 client for this pack's 402, without sending it. */
async function payloadFor(privateKey: `0x${string}`, apiKey: string): Promise<PaymentPayload> {
  const unpaid = await fetch(`${service.baseUrl}${path}`, startRequest(apiKey));
  expect(unpaid.status).toBe(402);
  const { client } = x402Fetch(privateKey);
  return client.createPaymentPayload(decodePaymentRequiredHeader(unpaid.headers.get("PAYMENT-REQUIRED")!));
}

/** The row a submission of this authorization by `agentId` claims (x402.ts claimAuthorization), as a test leaves it. */
const claimRow = (
  a: ExactEIP3009Payload["authorization"],
  agentId: string,
  state: { sent_raw_tx?: Hex; sent_tx_hash?: Hex } = {},
) =>
  service.db
    .insertInto("x402_payments")
    .values({
      network: `eip155:${chain.config.chainId}`,
      token_address: chain.config.tokenAddress.toLowerCase(),
      payer_address: a.from.toLowerCase(),
      nonce: a.nonce.toLowerCase(),
      pay_to: a.to.toLowerCase(),
      amount_units: a.value,
      valid_before: new Date(Number(a.validBefore) * 1000),
      pack_id: PAID_PACK_ID,
      agent_id: agentId,
      ...state,
    })
    .execute();

/**
 * What a request leaves when its process dies right after recording: the row, owed (PENDING), with
 * the operator's signed transferWithAuthorization and its hash kept, never broadcast.
 */
async function keptNeverBroadcast(
  a: ExactEIP3009Payload["authorization"],
  signature: ExactEIP3009Payload["signature"],
  agentId: string,
) {
  const wallet = getWalletClient(chain.config, chain.config.operatorPrivateKey);
  const request = await wallet.prepareTransactionRequest({
    to: chain.config.tokenAddress,
    data: transferWithAuthorizationData({ authorization: a, signature }),
  });
  const raw = (await wallet.signTransaction(request)) as Hex;
  const hash = keccak256(raw);
  await claimRow(a, agentId, { sent_raw_tx: raw, sent_tx_hash: hash });
  return hash;
}

const attemptsOf = (agentId: string) =>
  service.db
    .selectFrom("eval_attempts")
    .select(["id", "payment_tx_hash", "payer_address"])
    .where("agent_id", "=", agentId)
    .execute();

describe("x402 v2 on paid packs", () => {
  it("an unpaid start is 402 with PAYMENT-REQUIRED: exact USDC to the treasury on eip155:<chainId>, USDC's EIP-712 domain, bazaar discovery", async () => {
    const agent = await newAgent(service);
    const res = await fetch(`${service.baseUrl}${path}`, startRequest(agent.apiKey));
    expect(res.status).toBe(402);
    const body = await res.json();
    expect(body.code).toBe("PAYMENT_REQUIRED");
    const required = decodePaymentRequiredHeader(res.headers.get("PAYMENT-REQUIRED")!);
    expect(required).toMatchObject({
      x402Version: 2,
      resource: { url: `${service.ctx.config.siteUrl ?? service.baseUrl}${path}`, mimeType: "application/json" },
      accepts: [
        {
          scheme: "exact",
          network: `eip155:${chain.config.chainId}`,
          asset: getAddress(chain.config.tokenAddress),
          amount: PRICE.toString(),
          payTo: treasury,
          extra: { name: "USD Coin", version: "2" },
        },
      ],
    });
    const bazaar = (required.extensions as Record<string, { info: { input: Record<string, unknown> }; schema: object }>)
      .bazaar!;
    expect(bazaar.info.input).toMatchObject({ type: "http", method: "POST", bodyType: "json" });
    expect(bazaar.schema).toMatchObject({ type: "object" });
    expect(await attemptsOf(agent.id)).toHaveLength(0);
  });

  it("the x402 client buys an attempt in one retry: payer down by the price, treasury up, PAYMENT-RESPONSE names the settlement; a replay is refused", async () => {
    const agent = await newAgent(service);
    const payer = chain.accounts[PAYER]!;
    const [payerBefore, treasuryBefore] = await Promise.all([balance(payer.address), balance(treasury)]);
    const { fetch: pay, sent } = x402Fetch(payer.privateKey);

    const res = await pay(`${service.baseUrl}${path}`, startRequest(agent.apiKey));
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(sent).toHaveLength(2); // the unpaid request, then one retry carrying PAYMENT-SIGNATURE
    expect(sent[0]!.headers.get("PAYMENT-SIGNATURE")).toBeNull();
    expect(sent[1]!.headers.get("PAYMENT-SIGNATURE")).toBeTruthy();

    const settlement = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE")!);
    expect(settlement).toMatchObject({
      success: true,
      network: `eip155:${chain.config.chainId}`,
      payer: payer.address,
    });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: settlement.transaction as `0x${string}` });
    expect(receipt.status).toBe("success");
    expect(body.data).toMatchObject({
      packId: PAID_PACK_ID,
      agentId: agent.id,
      status: "IN_PROGRESS",
      paid: true,
      paymentTxHash: settlement.transaction.toLowerCase(),
      payerAddress: payer.address,
    });

    expect(await balance(payer.address)).toBe(payerBefore - PRICE);
    expect(await balance(treasury)).toBe(treasuryBefore + PRICE);

    // The same PAYMENT-SIGNATURE again, by another agent: refused, nothing moves (the payer's agent has its attempt open).
    const replayed = sent[1]!.headers.get("PAYMENT-SIGNATURE")!;
    const other = await newAgent(service);
    const again = await service.http("POST", path, {
      token: other.apiKey,
      body: {},
      headers: { "PAYMENT-SIGNATURE": replayed },
    });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("PAYMENT_ALREADY_USED");
    const sameAgent = await service.http("POST", path, {
      token: agent.apiKey,
      body: {},
      headers: { "PAYMENT-SIGNATURE": replayed },
    });
    expect(sameAgent.status).toBe(409);
    expect(sameAgent.json.code).toBe("ATTEMPT_IN_PROGRESS");
    expect(await balance(payer.address)).toBe(payerBefore - PRICE);
    expect(await balance(treasury)).toBe(treasuryBefore + PRICE);
    expect(await attemptsOf(agent.id)).toHaveLength(1);
    expect(await attemptsOf(other.id)).toHaveLength(0);
  });

  it("an authorization the payer cannot fund is refused with 402 insufficient_funds and PAYMENT-REQUIRED; nothing is recorded or sent", async () => {
    const agent = await newAgent(service);
    const broke = generatePrivateKey();
    const brokeAddress = privateKeyToAccount(broke).address;
    const treasuryBefore = await balance(treasury);
    const { fetch: pay } = x402Fetch(broke);
    const res = await pay(`${service.baseUrl}${path}`, startRequest(agent.apiKey));
    expect(res.status).toBe(402);
    const body = await res.json();
    expect(body).toMatchObject({ code: "PAYMENT_AUTHORIZATION_REFUSED", reason: "insufficient_funds" });
    expect(decodePaymentRequiredHeader(res.headers.get("PAYMENT-REQUIRED")!).error).toBe("insufficient_funds");
    expect(await balance(treasury)).toBe(treasuryBefore);
    expect(await attemptsOf(agent.id)).toHaveLength(0);
    const rows = await service.db
      .selectFrom("x402_payments")
      .select("id")
      .where("payer_address", "=", brokeAddress.toLowerCase())
      .execute();
    expect(rows).toHaveLength(0);
  });

  it("a payload not for this pack's requirement (another amount, or not base64 JSON) is 400 PAYMENT_SIGNATURE_INVALID", async () => {
    const agent = await newAgent(service);
    const payload = await payloadFor(chain.accounts[PAYER]!.privateKey, agent.apiKey);
    const cheaper = { ...payload, accepted: { ...payload.accepted, amount: "1" } };
    for (const header of [encodePaymentSignatureHeader(cheaper), "not-base64-json"]) {
      const res = await service.http("POST", path, {
        token: agent.apiKey,
        body: {},
        headers: { "PAYMENT-SIGNATURE": header },
      });
      expect(res.status).toBe(400);
      expect(res.json.code).toBe("PAYMENT_SIGNATURE_INVALID");
    }
    // Both ways at once are refused too.
    const both = await service.http("POST", path, {
      token: agent.apiKey,
      body: { txHash: `0x${"1".repeat(64)}`, signature: "0x00" },
      headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) },
    });
    expect(both.status).toBe(400);
    expect(await attemptsOf(agent.id)).toHaveLength(0);
  });

  it("parallel submissions of one authorization settle once and start one attempt", async () => {
    const agents = await Promise.all(Array.from({ length: 4 }, () => newAgent(service)));
    const payer = chain.accounts[PAYER + 1]!;
    const [payerBefore, treasuryBefore] = await Promise.all([balance(payer.address), balance(treasury)]);
    const header = encodePaymentSignatureHeader(await payloadFor(payer.privateKey, agents[0]!.apiKey));
    // The same agent three times and three other agents, all at once.
    const senders = [agents[0]!, agents[0]!, agents[0]!, ...agents.slice(1)];
    const answers = await Promise.all(
      senders.map((a) =>
        service.http("POST", path, { token: a.apiKey, body: {}, headers: { "PAYMENT-SIGNATURE": header } }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status !== 201).every((a) => a.status === 409)).toBe(true);
    expect(await balance(payer.address)).toBe(payerBefore - PRICE);
    expect(await balance(treasury)).toBe(treasuryBefore + PRICE);
    const attempts = (await Promise.all(agents.map((a) => attemptsOf(a.id)))).flat();
    expect(attempts).toHaveLength(1);
    const rows = await service.db
      .selectFrom("x402_payments")
      .select(["status", "attempt_id", "sent_tx_hash as tx_hash"])
      .where("payer_address", "=", payer.address.toLowerCase())
      .execute();
    expect(rows).toEqual([{ status: "SETTLED", attempt_id: attempts[0]!.id, tx_hash: attempts[0]!.payment_tx_hash }]);
  });

  it("a submission whose authorization a parallel one claims while it is checked on chain is 409 PAYMENT_ALREADY_USED, whatever the chain says by then", async () => {
    const [agent, other] = await Promise.all([newAgent(service), newAgent(service)]);
    // A payer with nothing: on its own, this check on chain fails (402 insufficient_funds).
    const payload = await payloadFor(generatePrivateKey(), agent.apiKey);
    const a = (payload.payload as unknown as ExactEIP3009Payload).authorization;
    service.crashPoints.beforePaymentVerify = async () => {
      service.crashPoints.beforePaymentVerify = undefined;
      // The parallel submission (another agent's) claims the same authorization meanwhile.
      await claimRow(a, other.id);
    };
    try {
      const res = await service.http("POST", path, {
        token: agent.apiKey,
        body: {},
        headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) },
      });
      expect(res.status, JSON.stringify(res.json)).toBe(409);
      expect(res.json.code).toBe("PAYMENT_ALREADY_USED");
      expect(await attemptsOf(agent.id)).toHaveLength(0);
    } finally {
      service.crashPoints.beforePaymentVerify = undefined;
    }
  });

  it("a settlement sent by a request that died before its outcome was recorded is taken up by the same PAYMENT-SIGNATURE: the stored transaction, never a second", async () => {
    const agent = await newAgent(service);
    const payer = chain.accounts[PAYER + 2]!;
    const [payerBefore, treasuryBefore] = await Promise.all([balance(payer.address), balance(treasury)]);
    const payload = await payloadFor(payer.privateKey, agent.apiKey);
    const { authorization: a, signature } = payload.payload as unknown as ExactEIP3009Payload;
    const hash = await keptNeverBroadcast(a, signature, agent.id);

    const res = await service.http("POST", path, {
      token: agent.apiKey,
      body: {},
      headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE")!).transaction.toLowerCase()).toBe(
      hash.toLowerCase(),
    );
    expect(res.json.data.paymentTxHash).toBe(hash.toLowerCase());
    expect(await balance(payer.address)).toBe(payerBefore - PRICE);
    expect(await balance(treasury)).toBe(treasuryBefore + PRICE);
  });
  it("a kept settlement whose nonce went to another transaction of the operator is cleared by the worker (it never signs), and the same PAYMENT-SIGNATURE then pays once", async () => {
    // The engine's way for x402: the worker asks about a kept transaction and never signs without the authorization.
    const agent = await newAgent(service);
    const payer = chain.accounts[PAYER + 3]!;
    const [payerBefore, treasuryBefore] = await Promise.all([balance(payer.address), balance(treasury)]);
    const payload = await payloadFor(payer.privateKey, agent.apiKey);
    const { authorization: a, signature } = payload.payload as unknown as ExactEIP3009Payload;
    const dead = await keptNeverBroadcast(a, signature, agent.id);
    // Another transaction of the operator takes that nonce: the kept one can never be mined.
    const wallet = getWalletClient(chain.config, chain.config.operatorPrivateKey);
    await chain.publicClient.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to: wallet.account.address, value: 0n }),
    });
    const row = await service.db
      .selectFrom("x402_payments")
      .select("id")
      .where("agent_id", "=", agent.id)
      .executeTakeFirstOrThrow();

    expect(await finishSentPayments(service.ctx, { only: [row.id] })).toBe(0);
    const cleared = await service.db
      .selectFrom("x402_payments")
      .selectAll()
      .where("id", "=", row.id)
      .executeTakeFirstOrThrow();
    expect(cleared).toMatchObject({ status: "PENDING", sent_raw_tx: null, sent_tx_hash: null, attempts: 1 });
    expect(cleared.last_error).toMatch(/signs anew/);
    expect(await balance(payer.address)).toBe(payerBefore);

    // Within its backoff the payer is asked to wait (503 with Retry-After), not told it was used.
    const early = await service.http("POST", path, {
      token: agent.apiKey,
      body: {},
      headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) },
    });
    expect(early.status, JSON.stringify(early.json)).toBe(503);
    expect(Number(early.headers.get("retry-after"))).toBeGreaterThan(0);
    // Its backoff over (the stored time moved, not slept), the payer's same signature signs anew, once.
    await service.db.updateTable("x402_payments").set({ lease_until: null }).where("id", "=", row.id).execute();
    const res = await service.http("POST", path, {
      token: agent.apiKey,
      body: {},
      headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.data.paymentTxHash).not.toBe(dead);
    expect(await balance(payer.address)).toBe(payerBefore - PRICE);
    expect(await balance(treasury)).toBe(treasuryBefore + PRICE);
  });
});
