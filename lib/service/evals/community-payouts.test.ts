import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { packPaymentMessage } from "@/lib/api/schemas/evals";
import { usdcAbi } from "@/lib/chain/abi";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { parseUsdc, splitFee } from "@/lib/chain/units";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { demoAnswer, demoPackInput } from "@/lib/testing/demo-pack";
import { GENEROUS_BUDGETS, jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import { payPendingPackPayouts } from "./pack-payouts";

// A paid community pack end to end against anvil: published, refused until approved, approved,
// required by a job, paid for by an agent (the publisher's USDC balance grows by the price less the
// fee, once), passed; the bid is then accepted.

let chain: TestChain;
let service: TestService;
const operatorKey = generatePrivateKey();
const PAYER = 3;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    chain: chain.config,
    operatorAddresses: [privateKeyToAccount(operatorKey).address],
  });
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

describe("a paid community pack", () => {
  it("published, refused until approved, approved, required, paid (publisher paid price less fee on chain, once), passed, bid accepted", async () => {
    const operator = await newUser(service, operatorKey);
    const publisher = await newUser(service);
    const poster = await newUser(service);
    const published = await service.http("POST", "/v1/evals/packs", {
      token: publisher.token,
      body: demoPackInput({ priceUsdc: "4", title: "Paid demo pack" }),
    });
    expect(published.status).toBe(201);
    const packId: string = published.json.data.id;
    expect(published.json.data).toMatchObject({ isFree: false, priceUsdc: "4", reviewStatus: "PENDING" });

    // Refused for listing and requiring until approved.
    expect(
      (await service.http("GET", "/v1/evals/packs?limit=100")).json.data.map((p: { id: string }) => p.id),
    ).not.toContain(packId);
    expect(
      (await service.http("POST", "/v1/jobs", { token: poster.token, body: jobInput({ requiredPackId: packId }) })).json
        .code,
    ).toBe("PACK_NOT_APPROVED");
    expect(
      (
        await service.http("POST", `/v1/admin/packs/${packId}/approve`, {
          token: operator.token,
          body: { reason: "good pack" },
        })
      ).status,
    ).toBe(200);
    expect(
      (await service.http("GET", "/v1/evals/packs?limit=100&isFree=false")).json.data.map((p: { id: string }) => p.id),
    ).toContain(packId);

    const job = (await poster.client.createJob({ body: jobInput({ requiredPackId: packId }) })).data;
    const agent = await newAgent(service);
    const bid = () =>
      service.http("POST", `/v1/jobs/${job.id}/bids`, {
        token: agent.apiKey,
        body: { agentId: agent.id, proposedUsdc: "40" },
      });
    expect((await bid()).json.code).toBe("PACK_REQUIRED");

    // Pay: exactly the price to the pack treasury, then the payer's signature naming pack, agent and hash.
    const detail = (await service.http("GET", `/v1/evals/packs/${packId}`)).json.data;
    expect(detail.payment).toMatchObject({ amountUsdc: "4" });
    const transfer = await chain.wallet(PAYER).writeContract({
      address: chain.config.tokenAddress,
      abi: usdcAbi,
      functionName: "transfer",
      args: [detail.payment.payTo as Address, parseUsdc("4")],
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
    expect(started.json.data).toMatchObject({ paid: true, amountUsdc: "4", mode: "CLOSED_BOOK" });

    // The publisher is paid the price less the fee, once, whatever the number of worker rounds.
    const publisherAddress = getAddress(publisher.address);
    const before = await erc20BalanceOf({ config: chain.config, address: publisherAddress });
    // Two worker rounds at once (two instances): the lease lets one send it.
    const rounds = await Promise.all([payPendingPackPayouts(service.ctx), payPendingPackPayouts(service.ctx)]);
    expect(rounds[0] + rounds[1]).toBe(1);
    expect(await payPendingPackPayouts(service.ctx)).toBe(0);
    const after = await erc20BalanceOf({ config: chain.config, address: publisherAddress });
    const { net } = splitFee(parseUsdc("4"), chain.config.feeBps);
    expect(net).toBeLessThan(parseUsdc("4"));
    expect(after - before).toBe(net);
    const payouts = await service.db
      .selectFrom("eval_pack_payouts")
      .selectAll()
      .where("pack_id", "=", packId)
      .execute();
    expect(payouts).toHaveLength(1);
    expect(payouts[0]).toMatchObject({
      status: "CONFIRMED",
      amount_units: net.toString(),
      to_address: publisherAddress.toLowerCase(),
    });

    // Pass, then bid: accepted.
    for (;;) {
      const item = (
        await service.http("POST", `/v1/evals/attempts/${started.json.data.id}/next`, { token: agent.apiKey })
      ).json.data.item;
      if (!item) break;
      await service.http("POST", `/v1/evals/attempts/${started.json.data.id}/answer`, {
        token: agent.apiKey,
        body: { position: item.position, answer: demoAnswer(item) },
      });
    }
    const report = (
      await service.http("POST", `/v1/evals/attempts/${started.json.data.id}/finalize`, { token: agent.apiKey })
    ).json.data;
    expect(report.passed).toBe(true);
    const placed = await bid();
    expect(placed.status).toBe(201);
    const accepted = await service.http("POST", `/v1/jobs/${job.id}/bids/${placed.json.data.id}/accept`, {
      token: poster.token,
    });
    expect(accepted.status, JSON.stringify(accepted.json)).toBe(200);
    expect(await erc20BalanceOf({ config: chain.config, address: publisherAddress })).toBe(after);
  });
});
