// A node's error never decides a settlement. An RPC gateway may answer an error (-32603 "upstream
// connect error", -32000) after the node took the transaction, or lose its reply; viem reports the
// first as a contract revert. Here the service talks to anvil through a proxy that forwards the
// broadcast and answers such an error, with blocks mined every second, so the transaction is still
// pending when the error arrives. Every settlement (a whole job's release and refund, a part's
// release) must stay PENDING until the chain tells, then be recorded with the transaction that
// moved the money: one transaction each, the money on chain exactly once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address, Hex } from "viem";
import { escrowAbi } from "@/lib/chain/abi";
import { erc20BalanceOf, getEscrow } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import type { TestChain } from "@/lib/chain/testing";
import { parseUsdc, splitFee } from "@/lib/chain/units";
import { jobInput, newUser, type TestService } from "../testing/harness";
import type { RpcFaultProxy } from "../testing/rpc-fault-proxy";
import { startFaultyGateway, type FaultyGateway } from "../testing/faulty-gateway";
import { finishPendingSettlements, settleJob } from "./settle-job";
import { completePartSettlement, finishPendingPartSettlements, recordPartSettlement } from "./settle-part";

const POSTER = 3;
const AGENT_WALLET = 7;
const GATEWAY_ERROR = {
  code: -32603,
  message: "upstream connect error or disconnect/reset before headers. reset reason: connection termination",
};
const LATER = (minutes: number) => new Date(Date.now() + minutes * 60_000);

let gateway: FaultyGateway | undefined;
let chain: TestChain;
let proxy: RpcFaultProxy;
/** The service as the parties meet it (straight to anvil). */
let service: TestService;
/** The same database, sending through the faulty gateway. */
let faulty: TestService;

beforeAll(async () => {
  gateway = await startFaultyGateway(31371);
  ({ chain, proxy, service, faulty } = gateway);
}, 120_000);
afterAll(() => gateway?.stop());

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as Hex;
const agentWallet = () => chain.accounts[AGENT_WALLET]!.address as Address;
const posterAddress = () => chain.accounts[POSTER]!.address as Address;
const balanceOf = (address: Address) => erc20BalanceOf({ config: chain.config, address });

/** A job funded on chain and registered: its id, its escrow id and its budget in units. */
async function fundedJob(overrides: Record<string, unknown> = {}) {
  const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
  const job = (await poster.client.createJob({ body: jobInput({ budget: "20", ...overrides }) })).data;
  const escrowJobId = hexOf(job.escrowJobId);
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[POSTER]!.privateKey,
    escrowJobId,
    amount: parseUsdc("20"),
  });
  const registered = await service.http("PATCH", `/v1/jobs/${job.id}/escrow`, {
    token: poster.token,
    body: { txHash },
  });
  expect(registered.status, JSON.stringify(registered.json)).toBe(200);
  return { jobId: job.id, escrowJobId, units: parseUsdc("20") };
}

async function settlementOf(jobId: string) {
  return service.db.selectFrom("escrow_settlements").selectAll().where("job_id", "=", jobId).executeTakeFirstOrThrow();
}

/** The escrow's settlement events for one slot, from the chain itself. */
async function settlementTransactions(escrowJobId: Hex): Promise<string[]> {
  const hashes = new Set<string>();
  for (const eventName of ["Released", "Refunded", "SplitSettled", "PartReleased"] as const) {
    const logs = await chain.publicClient.getContractEvents({
      address: chain.config.escrowAddress,
      abi: escrowAbi,
      eventName,
      args: { jobId: escrowJobId },
      fromBlock: 0n,
    });
    for (const log of logs) hashes.add(log.transactionHash!);
  }
  return [...hashes];
}

describe("an error the gateway answers after the node took the settlement", () => {
  for (const kind of ["RELEASE", "REFUND"] as const) {
    it(`a ${kind.toLowerCase()} stays PENDING, is recorded with the transaction that moved the money, and moves once`, async () => {
      const { jobId, escrowJobId, units } = await fundedJob();
      const recipient = kind === "RELEASE" ? agentWallet() : posterAddress();
      const before = await balanceOf(recipient);

      proxy.failAfterForwarding(["eth_sendRawTransaction"], GATEWAY_ERROR);
      const first = await settleJob(faulty.ctx, jobId, kind, kind === "RELEASE" ? agentWallet() : undefined);
      proxy.heal();

      // The node took it: the chain, not the gateway's error, says what happened.
      expect(first.status, first.last_error ?? "").not.toBe("FAILED");
      const row = await settlementOf(jobId);
      expect(row.sent_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
      // The worker finishes whatever is left; a second round changes nothing.
      await finishPendingSettlements(faulty.ctx, { only: [jobId], now: LATER(30) });
      await finishPendingSettlements(faulty.ctx, { only: [jobId], now: LATER(60) });

      const settled = await settlementOf(jobId);
      expect(settled.status).toBe("CONFIRMED");
      expect(settled.tx_hash).toBe(row.sent_tx_hash);
      expect(await settlementTransactions(escrowJobId)).toEqual([settled.tx_hash]);
      const slot = await getEscrow({ config: chain.config, escrowJobId, payer: posterAddress() });
      expect(slot.state).toBe(kind === "RELEASE" ? "RELEASED" : "REFUNDED");
      const expected = kind === "RELEASE" ? splitFee(units, chain.config.feeBps).net : units;
      expect((await balanceOf(recipient)) - before).toBe(expected);
    });
  }

  it("a part's release stays PENDING and is recorded with the transaction that paid the part, once", async () => {
    const { jobId, escrowJobId } = await fundedJob({
      milestones: [
        { title: "First half", amountUsdc: "12", acceptanceCriteria: "The first half" },
        { title: "Second half", amountUsdc: "8", acceptanceCriteria: "The second half" },
      ],
    });
    const part = await service.db
      .selectFrom("job_milestones")
      .select(["id", "job_id", "amount_usdc"])
      .where("job_id", "=", jobId)
      .where("position", "=", 1)
      .executeTakeFirstOrThrow();
    const before = await balanceOf(agentWallet());
    const recorded = await service.db
      .transaction()
      .execute((trx) => recordPartSettlement(trx, part, "RELEASE", agentWallet()));

    proxy.failAfterForwarding(["eth_sendRawTransaction"], GATEWAY_ERROR);
    const first = await completePartSettlement(faulty.ctx, recorded.id);
    proxy.heal();
    expect(first.status, first.last_error ?? "").not.toBe("FAILED");

    await finishPendingPartSettlements(faulty.ctx, { now: LATER(30), only: [jobId] });
    const settled = await service.db
      .selectFrom("milestone_settlements")
      .selectAll()
      .where("id", "=", recorded.id)
      .executeTakeFirstOrThrow();
    expect(settled.status).toBe("CONFIRMED");
    expect(settled.tx_hash).toBe(settled.sent_tx_hash);
    expect(await settlementTransactions(escrowJobId)).toEqual([settled.tx_hash]);
    expect((await balanceOf(agentWallet())) - before).toBe(splitFee(parseUsdc("12"), chain.config.feeBps).net);
  });
});

describe("a broadcast whose fate nobody can tell", () => {
  it("keeps the signed transaction, never signs another, and records it once the chain answers", async () => {
    const { jobId, escrowJobId } = await fundedJob();
    const before = await balanceOf(posterAddress());
    // The broadcast's reply is lost and the node cannot be asked about the transaction either.
    proxy.drop(["eth_sendRawTransaction", "eth_getTransactionByHash"]);
    const first = await settleJob(faulty.ctx, jobId, "REFUND");
    proxy.heal();
    expect(first.status).toBe("PENDING");
    const kept = await settlementOf(jobId);
    expect(kept.sent_tx_hash).toMatch(/^0x/);

    // Another instance whose clock runs ahead takes the lease at once: it finds the kept
    // transaction and asks the chain about it instead of signing a second one.
    await finishPendingSettlements(faulty.ctx, { only: [jobId], now: LATER(30) });
    const settled = await settlementOf(jobId);
    expect(settled.status).toBe("CONFIRMED");
    expect(settled.tx_hash).toBe(kept.sent_tx_hash);
    expect(await settlementTransactions(escrowJobId)).toEqual([kept.sent_tx_hash]);
    expect((await balanceOf(posterAddress())) - before).toBe(parseUsdc("20"));
  });
});
