// A stranger's stray deposit into EscrowV2 (a Deposited event matching no job that may take it) is
// returned by the operator like a first-escrow one (docs/escrow-v2.md, step 7): decided by the
// deposit watcher, sent through the one settlement engine as EscrowV2's refund(jobId, payer), which
// pays the payer only, and recorded once, also when the broadcast's reply is lost or the process is
// killed between the send and its record. A stray at its expiry is left to claimRefund. Through a
// faulty gateway in front of anvil, mining a block a second.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address, Hex } from "viem";
import { escrowV2Abi } from "@/lib/chain/abi";
import { erc20BalanceOf, getEscrowV2 } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import type { TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { jobInput, newUser, type TestService } from "../testing/harness";
import type { RpcFaultProxy } from "../testing/rpc-fault-proxy";
import { killedAt, startFaultyGateway, type FaultyGateway } from "../testing/faulty-gateway";
import { reconcileEscrow } from "../admin/reconcile-escrow";
import { decideDeposits, scanDeposits, sendStrayRefunds } from "./deposit-watch";

const POSTER = 3;
const STRANGER = 4;
const DAY = 24n * 60n * 60n;
const LATER = (minutes: number) => new Date(Date.now() + minutes * 60_000);

let gateway: FaultyGateway | undefined;
let chain: TestChain, proxy: RpcFaultProxy, service: TestService, faulty: TestService;

beforeAll(async () => {
  gateway = await startFaultyGateway(31365);
  ({ chain, proxy, service, faulty } = gateway);
}, 120_000);
afterAll(() => gateway?.stop());

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as Hex;
const stranger = () => chain.accounts[STRANGER]!.address as Address;
const balance = () => erc20BalanceOf({ config: chain.config, address: stranger() });
const slotOf = (escrowJobId: Hex) => getEscrowV2({ config: chain.config, escrowJobId, payer: stranger() });

/** EscrowV2's Refunded events of one slot, by transaction: the chain's own count of what went back. */
async function v2RefundTxs(escrowJobId: Hex): Promise<string[]> {
  const logs = await chain.publicClient.getContractEvents({
    address: chain.config.escrowV2Address!,
    abi: escrowV2Abi,
    eventName: "Refunded",
    fromBlock: 0n,
  });
  return logs
    .filter((l) => (l.args as { jobId?: Hex }).jobId?.toLowerCase() === escrowJobId.toLowerCase())
    .map((l) => l.transactionHash!.toLowerCase());
}

/**
 * A stranger's deposit into EscrowV2 under a job that is funded already by its poster's deposit
 * (in EscrowV2 too): seen by the watcher and decided REFUND_PENDING. `expiresIn` from the chain's now.
 */
async function strayV2Deposit(expiresIn = 30n * DAY) {
  const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
  const job = (await poster.client.createJob({ body: jobInput({ budget: "9" }) })).data;
  const escrowJobId = hexOf(job.escrowJobId);
  const now = (await chain.publicClient.getBlock()).timestamp;
  const own = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[POSTER]!.privateKey,
    escrowJobId,
    amount: parseUsdc("9"),
    expiresAt: now + 60n * DAY,
  });
  const funded = await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash: own.txHash } });
  expect(funded.data).toMatchObject({ escrowVersion: 2 });
  const before = await balance();
  await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[STRANGER]!.privateKey,
    escrowJobId,
    amount: parseUsdc("9"),
    expiresAt: now + expiresIn,
  });
  const only = { onlyEscrowJobIds: [escrowJobId] };
  await scanDeposits(service.ctx, chain.config, only);
  // The poster's registered deposit stays REGISTERED; the stranger's alone goes back.
  expect(await decideDeposits(service.ctx, chain.config, only)).toBe(1);
  const rows = await depositRows(escrowJobId);
  expect(rows.map((r) => [r.payer, r.escrow_version, r.status]).sort()).toEqual(
    [
      [chain.accounts[POSTER]!.address.toLowerCase(), 2, "REGISTERED"],
      [stranger().toLowerCase(), 2, "REFUND_PENDING"],
    ].sort(),
  );
  return { jobId: job.id, escrowJobId, before, only, poster };
}

const depositRows = (escrowJobId: Hex) =>
  service.db.selectFrom("escrow_deposits").selectAll().where("escrow_job_id", "=", escrowJobId.toLowerCase()).execute();
const strayRow = async (escrowJobId: Hex) =>
  (await depositRows(escrowJobId)).find((r) => r.payer === stranger().toLowerCase())!;

/** Paid back once from EscrowV2, by the transaction its row kept; the poster's slot untouched; the books agree. */
async function expectRefundedOnce(stray: Awaited<ReturnType<typeof strayV2Deposit>>, kept?: string | null) {
  const row = await strayRow(stray.escrowJobId);
  expect(row.status, row.last_error ?? "").toBe("REFUNDED");
  expect(row.refund_tx_hash).toBe(row.sent_tx_hash);
  if (kept) expect(row.refund_tx_hash).toBe(kept);
  expect(await v2RefundTxs(stray.escrowJobId)).toEqual([row.refund_tx_hash]);
  expect(await balance()).toBe(stray.before);
  expect((await slotOf(stray.escrowJobId)).state).toBe("REFUNDED");
  const posterSlot = await getEscrowV2({
    config: chain.config,
    escrowJobId: stray.escrowJobId,
    payer: chain.accounts[POSTER]!.address,
  });
  expect(posterSlot).toMatchObject({ state: "FUNDED", amount: parseUsdc("9") });
  const reconciled = await reconcileEscrow(service.ctx);
  expect(reconciled.differences.filter((d) => d.jobId === stray.jobId)).toEqual([]);
  expect(reconciled.strayDeposits.filter((d) => d.escrowJobId.toLowerCase() === stray.escrowJobId)).toEqual([]);
}

describe("a stray EscrowV2 deposit's return through the settlement engine", () => {
  it("is refunded to its payer by EscrowV2's refund(jobId, payer) and recorded once; the poster's own slot is untouched", async () => {
    const stray = await strayV2Deposit();
    const [done] = await sendStrayRefunds(service.ctx, chain.config, stray.only);
    expect(done?.status, done?.last_error ?? "").toBe("REFUNDED");
    await expectRefundedOnce(stray);
    // A round after it sends nothing more.
    expect(await sendStrayRefunds(service.ctx, chain.config, { ...stray.only, now: LATER(30) })).toEqual([]);
    expect(await v2RefundTxs(stray.escrowJobId)).toHaveLength(1);
  });

  it("a broadcast whose reply is lost keeps its transaction; the next round asks the chain and never signs a second", async () => {
    const stray = await strayV2Deposit();
    proxy.drop(["eth_sendRawTransaction", "eth_getTransactionByHash"]);
    const [first] = await sendStrayRefunds(faulty.ctx, chain.config, stray.only);
    proxy.heal();
    expect(first).toMatchObject({ status: "REFUND_PENDING" });
    const kept = (await strayRow(stray.escrowJobId)).sent_tx_hash;
    expect(kept).toMatch(/^0x[0-9a-f]{64}$/);
    await sendStrayRefunds(faulty.ctx, chain.config, { ...stray.only, now: LATER(30) });
    await expectRefundedOnce(stray, kept);
  });

  it("a process killed between the send and its record: the next round records the kept transaction, once", async () => {
    const stray = await strayV2Deposit();
    const killed = killedAt(faulty, "afterStrayRefundSend", () =>
      sendStrayRefunds(faulty.ctx, chain.config, stray.only),
    );
    expect(await killed).toEqual([]);
    const left = await strayRow(stray.escrowJobId);
    expect(left).toMatchObject({ status: "REFUND_PENDING", refund_tx_hash: null });
    expect(left.sent_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    await sendStrayRefunds(faulty.ctx, chain.config, { ...stray.only, now: LATER(30) });
    await expectRefundedOnce(stray, left.sent_tx_hash);
  });

  it("a stray within 15 minutes of its expiry is not sent: it returns by claimRefund, and nothing is tried again", async () => {
    const now = (await chain.publicClient.getBlock()).timestamp;
    const stray = await strayV2Deposit(DAY + 600n);
    // The chain's clock to 5 minutes before the stray's expiry (the poster's slot has 60 days).
    const { expiresAt } = await slotOf(stray.escrowJobId);
    await chain.testClient.setNextBlockTimestamp({ timestamp: BigInt(expiresAt) - 300n });
    await chain.testClient.mine({ blocks: 1 });
    expect(BigInt(expiresAt)).toBeGreaterThan(now);
    const [done] = await sendStrayRefunds(service.ctx, chain.config, stray.only);
    expect(done).toMatchObject({ status: "SETTLED", sent_tx_hash: null });
    expect(done?.last_error).toMatch(/within 15 minutes/);
    expect(await v2RefundTxs(stray.escrowJobId)).toEqual([]);
    expect((await slotOf(stray.escrowJobId)).state).toBe("FUNDED");
    expect(await sendStrayRefunds(service.ctx, chain.config, { ...stray.only, now: LATER(30) })).toEqual([]);
  });
});
