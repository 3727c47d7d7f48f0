// A transfer the service sends counts only at the finality a deposit counts at (CHAIN_FINALITY: Base
// `safe`): mined is not enough while a reorganisation could still remove it. anvil names a `safe`
// block behind its head, so a chain configured with `safe` shows the wait with real blocks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { GENEROUS_BUDGETS, jobInput, newUser, startTestService, type TestService } from "../testing/harness";
import { reconcileEscrow } from "../admin/reconcile-escrow";
import { SETTLEMENT_LEASE_MS, finishPendingSettlements } from "./settle-job";

const POSTER = 3;

let chain: TestChain;
let service: TestService;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    chain: { ...chain.config, finality: "safe" },
  });
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as Hex;

/** Blocks until anvil's `safe` block is past everything mined so far. */
async function mineUntilSafe() {
  const head = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
  for (let i = 0; i < 10; i++) {
    const safe = await chain.publicClient.getBlock({ blockTag: "safe" });
    if (safe.number !== null && safe.number >= head) return;
    await chain.testClient.mine({ blocks: 32 });
  }
  throw new Error("anvil's safe block never passed the head");
}

describe("a refund counts once its block is safe (CHAIN_FINALITY=safe)", () => {
  it("mined, the refund stays pending and says why; once its block is safe the worker records it, once", async () => {
    const posterAccount = chain.accounts[POSTER]!;
    const poster = await newUser(service, posterAccount.privateKey);
    const job = (await poster.client.createJob({ body: jobInput({ budget: "5" }) })).data;
    const { txHash } = await depositToEscrow({
      config: chain.config,
      privateKey: posterAccount.privateKey,
      escrowJobId: hexOf(job.escrowJobId as unknown as Record<string, number>),
      amount: parseUsdc("5"),
    });
    // The deposit itself is taken at the same finality.
    await mineUntilSafe();
    const registered = await service.http("PATCH", `/v1/jobs/${job.id}/escrow`, {
      token: poster.token,
      body: { txHash },
    });
    expect(registered.status, JSON.stringify(registered.json)).toBe(200);

    const before = await erc20BalanceOf({ config: chain.config, address: posterAccount.address });
    const cancelled = await service.http("POST", `/v1/jobs/${job.id}/cancel`, { token: poster.token });
    expect(cancelled.status, JSON.stringify(cancelled.json)).toBe(200);
    // The money moved on chain, but its block is not safe yet: the books say pending, and why.
    expect((await erc20BalanceOf({ config: chain.config, address: posterAccount.address })) - before).toBe(
      parseUsdc("5"),
    );
    const pending = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", job.id)
      .executeTakeFirstOrThrow();
    expect(pending).toMatchObject({ kind: "REFUND", status: "PENDING", tx_hash: null });
    expect(pending.last_error).toMatch(/refund is mined \(block \d+\); it counts once that block is safe/);
    expect((await poster.client.getJob({ params: { id: job.id } })).data.refundTxHash ?? null).toBeNull();

    // A round while it is still not safe changes nothing.
    const later = (ms: number) => ({ now: new Date(Date.now() + ms), only: [job.id] });
    expect(await finishPendingSettlements(service.ctx, later(SETTLEMENT_LEASE_MS + 1_000))).toMatchObject({
      confirmed: 0,
    });

    await mineUntilSafe();
    expect(await finishPendingSettlements(service.ctx, later(2 * SETTLEMENT_LEASE_MS))).toMatchObject({
      confirmed: 1,
    });
    const done = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", job.id)
      .executeTakeFirstOrThrow();
    expect(done).toMatchObject({ status: "CONFIRMED", tx_hash: pending.sent_tx_hash, amount_units: "5000000" });
    expect((await poster.client.getJob({ params: { id: job.id } })).data.refundTxHash).toBe(pending.sent_tx_hash);
    // Refunded once.
    expect((await erc20BalanceOf({ config: chain.config, address: posterAccount.address })) - before).toBe(
      parseUsdc("5"),
    );
    expect((await reconcileEscrow(service.ctx)).differences.filter((d) => d.jobId === job.id)).toEqual([]);
  });
});
