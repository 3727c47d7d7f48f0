// A stray deposit's return is a way of the one settlement engine (settlement-engine.ts): under the
// faults every other transfer is tried with (a node that errs after it took the transaction, a
// broadcast whose reply is lost, a node down for a while, a gateway that sends a request twice, a
// process killed between the send and its record), the refund's signed transaction is kept in its
// row before it is broadcast, the row is decided from the chain, the payer is paid back exactly
// once, and the reconciliation finds no difference afterwards.
//
// The service talks to anvil through a proxy that plays the fault, with a block mined every second
// (a broadcast transaction waits in the pool a while, as on a real chain).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address, Hex } from "viem";
import { erc20BalanceOf, getEscrow } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import type { TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { jobInput, newUser, type TestService } from "../testing/harness";
import type { RpcFaultProxy } from "../testing/rpc-fault-proxy";
import { escrowEventTxs, killedAt, startFaultyGateway, type FaultyGateway } from "../testing/faulty-gateway";
import { reconcileEscrow } from "../admin/reconcile-escrow";
import { decideDeposits, scanDeposits, sendStrayRefunds } from "./deposit-watch";

const PAYER = 4;
const GATEWAY_ERROR = { code: -32000, message: "upstream request timeout" };
const LATER = (minutes: number) => new Date(Date.now() + minutes * 60_000);

// `service` scans and decides straight to anvil; `faulty` sends through the faulty gateway.
let gateway: FaultyGateway | undefined;
let chain: TestChain, proxy: RpcFaultProxy, service: TestService, faulty: TestService;

beforeAll(async () => {
  gateway = await startFaultyGateway(31377);
  ({ chain, proxy, service, faulty } = gateway);
}, 120_000);
afterAll(() => gateway?.stop());

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as Hex;
const payer = () => chain.accounts[PAYER]!.address as Address;
const balance = () => erc20BalanceOf({ config: chain.config, address: payer() });

/**
 * A stray: a deposit into a cancelled job's slot (it takes no deposit), seen by the watcher and
 * decided REFUND_PENDING. Returns its row id, its escrow id and the payer's balance before it.
 */
async function strayDeposit() {
  const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
  const job = (await poster.client.createJob({ body: jobInput({ budget: "9" }) })).data;
  await poster.client.cancelJob({ params: { id: job.id } });
  const escrowJobId = hexOf(job.escrowJobId);
  const before = await balance();
  await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[PAYER]!.privateKey,
    escrowJobId,
    amount: parseUsdc("9"),
  });
  const only = { onlyEscrowJobIds: [escrowJobId] };
  await scanDeposits(service.ctx, chain.config, only);
  expect(await decideDeposits(service.ctx, chain.config, only)).toBe(1);
  const row = await depositRow(escrowJobId);
  expect(row.status).toBe("REFUND_PENDING");
  return { id: row.id, jobId: job.id, escrowJobId, before, only };
}

const depositRow = (escrowJobId: Hex) =>
  service.db
    .selectFrom("escrow_deposits")
    .selectAll()
    .where("escrow_job_id", "=", escrowJobId.toLowerCase())
    .executeTakeFirstOrThrow();

/** Paid back once, by the transaction its row kept and recorded; the books and the chain agree. */
async function expectRefundedOnce(stray: Awaited<ReturnType<typeof strayDeposit>>, kept?: string | null) {
  const row = await depositRow(stray.escrowJobId);
  expect(row.status, row.last_error ?? "").toBe("REFUNDED");
  expect(row.refund_tx_hash).toBe(row.sent_tx_hash);
  if (kept) expect(row.refund_tx_hash).toBe(kept);
  expect(await escrowEventTxs(chain, "Refunded", { jobId: stray.escrowJobId })).toEqual([row.refund_tx_hash]);
  expect(await balance()).toBe(stray.before);
  const slot = await getEscrow({ config: chain.config, escrowJobId: stray.escrowJobId, payer: payer() });
  expect(slot.state).toBe("REFUNDED");
  const reconciled = await reconcileEscrow(service.ctx);
  expect(reconciled.differences.filter((d) => d.jobId === stray.jobId)).toEqual([]);
  expect(reconciled.strayDeposits.filter((d) => d.escrowJobId.toLowerCase() === stray.escrowJobId)).toEqual([]);
}

describe("a stray deposit's return through the settlement engine", () => {
  it("a send the node answered with an error after taking it stays owed with its transaction kept, then is recorded with that transaction", async () => {
    // Proves the engine path: the refund's transaction is kept in the row (sent_tx_hash) and recorded from it.
    const stray = await strayDeposit();
    proxy.failAfterForwarding(["eth_sendRawTransaction"], GATEWAY_ERROR);
    const [first] = await sendStrayRefunds(faulty.ctx, chain.config, stray.only);
    proxy.heal();
    expect(first?.status, first?.last_error ?? "").not.toBe("SETTLED");
    const kept = (await depositRow(stray.escrowJobId)).sent_tx_hash;
    expect(kept).toMatch(/^0x[0-9a-f]{64}$/);
    await sendStrayRefunds(faulty.ctx, chain.config, { ...stray.only, now: LATER(30) });
    await expectRefundedOnce(stray, kept);
  });

  it("a broadcast whose reply is lost (and the node cannot be asked) keeps its transaction; the next round asks the chain and never signs a second", async () => {
    // Proves the engine path: a kept transaction (sent_tx_hash) is asked about, not a new one signed.
    const stray = await strayDeposit();
    proxy.drop(["eth_sendRawTransaction", "eth_getTransactionByHash"]);
    const [first] = await sendStrayRefunds(faulty.ctx, chain.config, stray.only);
    proxy.heal();
    expect(first).toMatchObject({ status: "REFUND_PENDING" });
    expect(first?.last_error).toBeTruthy();
    const kept = (await depositRow(stray.escrowJobId)).sent_tx_hash;
    expect(kept).toMatch(/^0x[0-9a-f]{64}$/);
    await sendStrayRefunds(faulty.ctx, chain.config, { ...stray.only, now: LATER(30) });
    await expectRefundedOnce(stray, kept);
  });

  it("a node down for a while: the round backs off by the engine's schedule, and once it is up the refund goes out once", async () => {
    const stray = await strayDeposit();
    const now = new Date();
    proxy.down();
    const [first] = await sendStrayRefunds(faulty.ctx, chain.config, { ...stray.only, now });
    expect(first).toMatchObject({ status: "REFUND_PENDING", attempts: 1, sent_tx_hash: null });
    expect(first?.last_error).toBeTruthy();
    // Backing off (CHAIN_RETRY: 10 s first): a round meanwhile leaves it alone, even with the node up.
    expect(first!.lease_until!.getTime()).toBe(now.getTime() + 10_000);
    expect(
      await sendStrayRefunds(faulty.ctx, chain.config, { ...stray.only, now: new Date(now.getTime() + 5_000) }),
    ).toEqual([]);
    // Still down at the next try: backs off longer.
    const [second] = await sendStrayRefunds(faulty.ctx, chain.config, { ...stray.only, now: LATER(1) });
    expect(second).toMatchObject({ status: "REFUND_PENDING", attempts: 2 });
    proxy.heal();
    await sendStrayRefunds(faulty.ctx, chain.config, { ...stray.only, now: LATER(30) });
    await expectRefundedOnce(stray);
  });

  it("a gateway that sends the broadcast twice: one refund on chain, recorded once", async () => {
    // Proves the engine path: recorded with the kept transaction (refund_tx_hash = sent_tx_hash).
    const stray = await strayDeposit();
    proxy.duplicate(["eth_sendRawTransaction", "eth_getTransactionReceipt"]);
    await sendStrayRefunds(faulty.ctx, chain.config, stray.only);
    proxy.heal();
    await sendStrayRefunds(faulty.ctx, chain.config, { ...stray.only, now: LATER(30) });
    await expectRefundedOnce(stray);
  });

  it("a process killed between the send and its record: the next round finds the kept transaction mined and records it, once", async () => {
    // Fails on the old code: it had no such step (afterStrayRefundSend) and kept nothing in the row.
    const stray = await strayDeposit();
    const killed = killedAt(faulty, "afterStrayRefundSend", () =>
      sendStrayRefunds(faulty.ctx, chain.config, stray.only),
    );
    expect(await killed).toEqual([]);
    const left = await depositRow(stray.escrowJobId);
    expect(left).toMatchObject({ status: "REFUND_PENDING", refund_tx_hash: null });
    expect(left.sent_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // Its lease (the engine's five minutes) keeps a round off it meanwhile.
    expect(await sendStrayRefunds(faulty.ctx, chain.config, { ...stray.only, now: LATER(1) })).toEqual([]);
    await sendStrayRefunds(faulty.ctx, chain.config, { ...stray.only, now: LATER(30) });
    await expectRefundedOnce(stray, left.sent_tx_hash);
  });
});
