import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { abi as usdcAbi } from "@/contracts/artifacts/test-usdc";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { getEscrow } from "@/lib/chain/escrow/reads";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import type { FundingAuthorizationTypedData } from "@/lib/api/schemas/jobs";
import { GENEROUS_BUDGETS, jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";

// Funding without ETH: a poster whose wallet holds USDC and no ETH at all funds a
// job in EscrowV2 with one gasless signature (USDC's EIP-3009 ReceiveWithAuthorization, its nonce
// bound to the job and the expiry); the service relays depositWithAuthorization and pays the gas.

let chain: TestChain;
let service: TestService;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config });
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

const usdcOf = (who: Hex) =>
  chain.publicClient.readContract({
    address: chain.config.tokenAddress,
    abi: usdcAbi,
    functionName: "balanceOf",
    args: [who],
  });

/** A fresh wallet holding `usdc` units and no ETH, signed in as a person, with an OPEN job of 7 USDC. */
async function posterWithoutEth(usdc = 20_000_000n) {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  const mint = await chain.wallet(0).writeContract({
    address: chain.config.tokenAddress,
    abi: usdcAbi,
    functionName: "mint",
    args: [address, usdc],
  });
  await chain.publicClient.waitForTransactionReceipt({ hash: mint });
  expect(await chain.publicClient.getBalance({ address })).toBe(0n);
  const poster = await newUser(service, key);
  const job = (await poster.client.createJob({ body: jobInput({ budget: "7" }) })).data;
  return { key, address, poster, job };
}

const fund = (jobId: string, token: string, body: Record<string, unknown> = {}) =>
  service.http("POST", `/v1/jobs/${jobId}/escrow/authorization`, { token, body });

/** Signs the `authorization` an answer carries, with `key` (viem's signTypedData, as a wallet does). */
function sign(key: Hex, authorization: FundingAuthorizationTypedData) {
  const m = authorization.message;
  return privateKeyToAccount(key).signTypedData({
    domain: authorization.domain as never,
    types: authorization.types,
    primaryType: "ReceiveWithAuthorization",
    message: {
      ...m,
      value: BigInt(m.value as string),
      validAfter: BigInt(m.validAfter as number),
      validBefore: BigInt(m.validBefore as number),
    } as never,
  });
}

describe("POST /v1/jobs/:id/escrow/authorization", () => {
  it("funds the job in EscrowV2 from a wallet with no ETH: one signature, the service pays the gas", async () => {
    const { key, address, poster, job } = await posterWithoutEth();
    const asked = await fund(job.id, poster.token);
    expect(asked.status).toBe(409);
    expect(asked.json.code).toBe("FUNDING_SIGNATURE_REQUIRED");
    const { authorization, expiresAt } = asked.json;
    expect(authorization).toMatchObject({
      primaryType: "ReceiveWithAuthorization",
      domain: { chainId: chain.config.chainId, verifyingContract: chain.config.tokenAddress },
      message: { from: address, to: chain.config.escrowV2Address, value: "7000000", validAfter: 0 },
    });
    const usdcBefore = await usdcOf(address);

    const funded = await fund(job.id, poster.token, { signature: await sign(key, authorization) });
    expect(funded.status).toBe(200);
    expect(funded.json.data).toMatchObject({
      funded: true,
      escrowVersion: 2,
      escrowAddress: chain.config.escrowV2Address,
      escrowExpiresAt: expiresAt,
    });
    expect(usdcBefore - (await usdcOf(address))).toBe(7_000_000n);
    // Not a wei of the poster's: there was none, and there is none.
    expect(await chain.publicClient.getBalance({ address })).toBe(0n);
    expect(
      await getEscrow({
        config: chain.config,
        escrowJobId: escrowJobIdFromWire(job.escrowJobId),
        payer: address,
        version: 2,
      }),
    ).toMatchObject({
      amount: 7_000_000n,
    });

    // Again, with the same signature: nothing is sent twice.
    const again = await fund(job.id, poster.token, { signature: await sign(key, authorization) });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("ALREADY_FUNDED");
  });

  it("refuses another wallet's signature before anything is sent, and leaves the job unfunded", async () => {
    const { poster, job } = await posterWithoutEth();
    const { authorization } = (await fund(job.id, poster.token)).json;
    const operator = chain.accounts[0]!.address;
    const nonceBefore = await chain.publicClient.getTransactionCount({ address: operator });

    const forged = await fund(job.id, poster.token, { signature: await sign(generatePrivateKey(), authorization) });
    expect(forged.status).toBe(400);
    expect(forged.json.code).toBe("FUNDING_SIGNATURE_INVALID");
    expect(forged.json.reason).toMatch(/invalid signature/);
    expect(await chain.publicClient.getTransactionCount({ address: operator })).toBe(nonceBefore);
    const detail = (await poster.client.getJob({ params: { id: job.id } })).data;
    expect(detail.funded).toBe(false);
  });

  it("refuses a wallet short of the budget before anything is sent", async () => {
    const { key, poster, job } = await posterWithoutEth(1_000_000n);
    const { authorization } = (await fund(job.id, poster.token)).json;
    const short = await fund(job.id, poster.token, { signature: await sign(key, authorization) });
    expect(short.status).toBe(400);
    expect(short.json.code).toBe("FUNDING_SIGNATURE_INVALID");
  });

  it("is the poster's, signed in as a person: a stranger 403, an agent key 403 HUMAN_SESSION_REQUIRED", async () => {
    const { job } = await posterWithoutEth();
    const stranger = await newUser(service);
    expect((await fund(job.id, stranger.token)).json.code).toBe("FORBIDDEN");
    const agent = await newAgent(service);
    const byAgent = await fund(job.id, agent.apiKey);
    expect(byAgent.status).toBe(403);
    expect(byAgent.json.code).toBe("HUMAN_SESSION_REQUIRED");
  });
});
