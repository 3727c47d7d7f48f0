// A reward slot's funding is a way of the one settlement engine (settlement-engine.ts): under the
// faults every other transfer is tried with (a node that errs after it took the transaction, a
// broadcast whose reply is lost, a node down for a while, a gateway that sends a request twice, a
// process killed between the send and its record), the slot's depositWithPermit is kept in its row
// before it is broadcast, the row is decided from the chain, the slot is deposited exactly once, and
// the reconciliation finds no difference afterwards.
//
// The service talks to anvil through a proxy that plays the fault, with a block mined every second
// (a broadcast transaction waits in the pool a while, as on a real chain).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, keccak256, type Address, type Hex } from "viem";
import { escrowAbi } from "@/lib/chain/abi";
import { getWalletClient } from "@/lib/chain/clients";
import { signUsdcPermit } from "@/lib/chain/permit";
import { normalizeEscrowJobId } from "@/lib/chain/escrow-id";
import { erc20BalanceOf, getEscrow } from "@/lib/chain/escrow/reads";
import type { TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { newUser, type TestService, type TestUser } from "../testing/harness";
import type { RpcFaultProxy } from "../testing/rpc-fault-proxy";
import { escrowEventTxs, killedAt, startFaultyGateway, type FaultyGateway } from "../testing/faulty-gateway";
import { reconcileEscrow } from "../admin/reconcile-escrow";
import { watchDeposits } from "../escrow/deposit-watch";
import { managedWalletAddress, rewardsKey } from "./amounts";
import { fundPendingCampaigns } from "./campaigns";

const ADMIN = 9;
const GATEWAY_ERROR = { code: -32000, message: "upstream request timeout" };
const LATER = (minutes: number) => new Date(Date.now() + minutes * 60_000);
/** A THREAD slot's gross amount (amounts.ts). */
const GROSS = parseUsdc("0.1");

// `service` creates campaigns straight to anvil; `faulty` funds their slots through the faulty gateway.
let gateway: FaultyGateway | undefined;
let chain: TestChain, proxy: RpcFaultProxy, service: TestService, faulty: TestService;
let admin: TestUser;

beforeAll(async () => {
  gateway = await startFaultyGateway(31378, (c) => ({ rewardsAdminAddresses: [c.accounts[ADMIN]!.address] }));
  ({ chain, proxy, service, faulty } = gateway);
  admin = await newUser(service, chain.accounts[ADMIN]!.privateKey);
}, 120_000);
afterAll(() => gateway?.stop());

const wallet = () => managedWalletAddress(chain.config) as Address;
const balance = () => erc20BalanceOf({ config: chain.config, address: wallet() });

/**
 * A campaign of one slot whose creation died before its deposit: the slot is owed (PENDING), leased
 * to the dead request for the engine's lease. Returns what the faults' rounds need.
 */
async function unfundedSlot() {
  service.crashPoints.beforeCampaignDeposit = () => {
    throw new Error("simulated crash before the deposit");
  };
  try {
    const crashed = await service.http("POST", "/v1/forum/reward-campaigns", {
      token: admin.token,
      body: { kind: "THREAD", slots: 1 },
    });
    expect(crashed.status).not.toBe(201);
  } finally {
    service.crashPoints.beforeCampaignDeposit = undefined;
  }
  const slot = await service.db
    .selectFrom("forum_reward_slots as s")
    .innerJoin("forum_reward_campaigns as c", "c.id", "s.campaign_id")
    .innerJoin("jobs as j", "j.id", "s.job_id")
    .select(["s.id", "s.campaign_id", "s.fund_status", "j.escrow_job_id"])
    .where("c.sponsor_user_id", "=", admin.id)
    .orderBy("c.created_at", "desc")
    .limit(1)
    .executeTakeFirstOrThrow();
  expect(slot.fund_status).toBe("PENDING");
  return { ...slot, before: await balance(), only: [slot.campaign_id] };
}
type Slot = Awaited<ReturnType<typeof unfundedSlot>>;

/** A worker's round through the faulty gateway, `at` (past the dead creation's lease). */
const round = async (slot: Slot, at: Date) =>
  (await fundPendingCampaigns(faulty.ctx, { only: slot.only, now: at })).rows;

const slotRow = (slot: Slot) =>
  service.db
    .selectFrom("forum_reward_slots as s")
    .innerJoin("jobs as j", "j.id", "s.job_id")
    .select([
      "s.fund_status",
      "s.sent_tx_hash",
      "s.last_error",
      "s.attempts",
      "s.lease_until",
      "j.id as job_id",
      "j.escrow_tx_hash",
      "j.escrow_payer",
    ])
    .where("s.id", "=", slot.id)
    .executeTakeFirstOrThrow();

/** The service an hour on: past the reconciliation's grace for transfers in flight. */
const anHourOn = () => ({ ...service.ctx, now: () => new Date(Date.now() + 3_600_000) });

/** Deposited once, by the transaction its row kept and recorded; the books and the chain agree. */
async function expectFundedOnce(slot: Slot, kept?: string | null) {
  const row = await slotRow(slot);
  expect(row.fund_status, row.last_error ?? "").toBe("FUNDED");
  expect(row.escrow_tx_hash).toBe(row.sent_tx_hash?.toLowerCase());
  if (kept) expect(row.escrow_tx_hash).toBe(kept.toLowerCase());
  expect(row.escrow_payer?.toLowerCase()).toBe(wallet().toLowerCase());
  expect(
    await escrowEventTxs(chain, "Deposited", { jobId: normalizeEscrowJobId(slot.escrow_job_id), payer: wallet() }),
  ).toEqual([row.escrow_tx_hash]);
  expect(slot.before - (await balance())).toBe(GROSS);
  const escrow = await getEscrow({ config: chain.config, escrowJobId: slot.escrow_job_id, payer: wallet() });
  expect(escrow).toMatchObject({ state: "FUNDED", amount: GROSS });
  const reconciled = await reconcileEscrow(anHourOn());
  expect(reconciled.differences).toEqual([]);
}

describe("a reward slot's deposit through the settlement engine", () => {
  it("a send the node answered with an error after taking it is kept in the slot's row and recorded with that transaction, once", async () => {
    const slot = await unfundedSlot();
    proxy.failAfterForwarding(["eth_sendRawTransaction"], GATEWAY_ERROR);
    const [first] = await round(slot, LATER(10));
    proxy.heal();
    expect(first).toBeDefined();
    const kept = (await slotRow(slot)).sent_tx_hash;
    expect(kept).toMatch(/^0x[0-9a-f]{64}$/);
    await round(slot, LATER(30));
    await expectFundedOnce(slot, kept);
  });

  it("a broadcast whose reply is lost (and the node cannot be asked) keeps its transaction; the next round asks the chain and never signs a second", async () => {
    const slot = await unfundedSlot();
    proxy.drop(["eth_sendRawTransaction", "eth_getTransactionByHash"]);
    const [first] = await round(slot, LATER(10));
    proxy.heal();
    expect(first).toMatchObject({ fund_status: "PENDING" });
    expect(first?.last_error).toBeTruthy();
    const kept = (await slotRow(slot)).sent_tx_hash;
    expect(kept).toMatch(/^0x[0-9a-f]{64}$/);
    await round(slot, LATER(30));
    await expectFundedOnce(slot, kept);
  });

  it("a node down for a while: the round backs off by the engine's schedule, and once it is up the slot is deposited once", async () => {
    const slot = await unfundedSlot();
    const now = LATER(10);
    proxy.down();
    const [first] = await round(slot, now);
    expect(first).toMatchObject({ fund_status: "PENDING", attempts: 1, sent_tx_hash: null });
    expect(first?.last_error).toBeTruthy();
    // Backing off (CHAIN_RETRY: 10 s first): a round meanwhile leaves it alone, even with the node up.
    expect(first!.lease_until!.getTime()).toBe(now.getTime() + 10_000);
    expect(await round(slot, new Date(now.getTime() + 5_000))).toEqual([]);
    // Still down at the next try: backs off longer.
    const [second] = await round(slot, LATER(11));
    expect(second).toMatchObject({ fund_status: "PENDING", attempts: 2 });
    proxy.heal();
    await round(slot, LATER(30));
    await expectFundedOnce(slot);
  });

  it("a gateway that sends the broadcast twice: one deposit on chain, recorded once", async () => {
    const slot = await unfundedSlot();
    proxy.duplicate(["eth_sendRawTransaction", "eth_getTransactionReceipt"]);
    await round(slot, LATER(10));
    proxy.heal();
    await round(slot, LATER(30));
    await expectFundedOnce(slot);
  });

  it("a process killed between the send and its record: the next round finds the kept transaction mined and records it, once", async () => {
    const slot = await unfundedSlot();
    expect(await killedAt(faulty, "afterCampaignDepositSend", () => round(slot, LATER(10)))).toEqual([]);
    const left = await slotRow(slot);
    expect(left).toMatchObject({ fund_status: "PENDING", escrow_tx_hash: null });
    expect(left.sent_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // The reconciliation sees the deposit the books lack until the engine records it.
    const unrecorded = await reconcileEscrow(anHourOn());
    expect(unrecorded.differences.map((d) => d.txHash?.toLowerCase())).toContain(left.sent_tx_hash);
    // Its lease (the engine's five minutes) keeps a round off it meanwhile.
    expect(await round(slot, LATER(12))).toEqual([]);
    await round(slot, LATER(30));
    await expectFundedOnce(slot, left.sent_tx_hash);
  });

  it("a deposit a chain reorganisation removed: the watcher puts the slot back to owed, and the worker deposits it once more, once", async () => {
    const slot = await unfundedSlot();
    const snapshot = await chain.testClient.snapshot();
    await round(slot, LATER(10));
    const funded = await slotRow(slot);
    expect(funded.fund_status, funded.last_error ?? "").toBe("FUNDED");

    await chain.testClient.revert({ id: snapshot });
    await chain.testClient.mine({ blocks: 4 });
    const only = { onlyJobIds: [funded.job_id], onlyEscrowJobIds: [slot.escrow_job_id as Hex] };
    expect((await watchDeposits(service.ctx, only))?.lostDeposits).toEqual([funded.job_id]);
    const owed = await slotRow(slot);
    expect(owed).toMatchObject({ fund_status: "PENDING", escrow_tx_hash: null, sent_tx_hash: funded.sent_tx_hash });

    await round(slot, LATER(30));
    await expectFundedOnce(slot);
  });

  it("a kept deposit that reverted on chain (its permit expired in the pool) is cleared, and the next try signs a fresh permit: deposited once", async () => {
    const slot = await unfundedSlot();
    // What an earlier try kept: a depositWithPermit whose permit had expired, with no allowance left.
    const key = rewardsKey(chain.config);
    const permit = await signUsdcPermit({
      config: chain.config,
      privateKey: key,
      spender: chain.config.escrowAddress,
      value: GROSS,
      deadline: 1n,
    });
    const wallet = getWalletClient(chain.config, key);
    const request = await wallet.prepareTransactionRequest({
      to: chain.config.escrowAddress,
      data: encodeFunctionData({
        abi: escrowAbi,
        functionName: "depositWithPermit",
        args: [normalizeEscrowJobId(slot.escrow_job_id), GROSS, permit.deadline, permit.v, permit.r, permit.s],
      }),
      gas: 300_000n,
    });
    const doomed = (await wallet.signTransaction(request)) as Hex;
    await service.db
      .updateTable("forum_reward_slots")
      .set({ sent_raw_tx: doomed, sent_tx_hash: keccak256(doomed) })
      .where("id", "=", slot.id)
      .execute();

    const [first] = await round(slot, LATER(10));
    expect(first).toMatchObject({ fund_status: "PENDING", sent_tx_hash: null });
    expect(first?.last_error).toMatch(/reverted/);
    expect((await chain.publicClient.getTransactionReceipt({ hash: keccak256(doomed) })).status).toBe("reverted");
    await round(slot, LATER(30));
    await expectFundedOnce(slot);
  });
});
