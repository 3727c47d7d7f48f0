import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUsdc } from "@/lib/chain/units";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { GENEROUS_BUDGETS, newUser, startTestService, type TestService, type TestUser } from "../testing/harness";
import { balanceOf, randomAddress } from "../testing/rewards-support";
import { finishPendingWithdrawals, watchConfirmedWithdrawals } from "./wallet";

// A withdrawal debits, then sends, then its answer is stored under its Idempotency-Key. A process
// killed after the debit leaves the key pending; once its lease lapses a retry through another
// instance takes the key over. That retry must answer the withdrawal already made: money moves once.

let chain: TestChain;
let service: TestService;
beforeAll(async () => {
  chain = await startTestChain({ chainId: 31391 });
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config });
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

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

describe("a withdrawal whose process died before answering", () => {
  it("is answered, not made again, by the retry that takes its key over", async () => {
    const owner = await ownerWithBalance("5");
    const to = randomAddress();
    const key = `withdraw-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const withdraw = () =>
      service.http("POST", "/v1/wallet/withdrawals", {
        token: owner.token,
        body: { toAddress: to, amountUsdc: "2" },
        headers: { "idempotency-key": key },
      });
    const first = await withdraw();
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    expect(await balanceOf(chain.config, to)).toBe(parseUsdc("2"));

    // What a process killed after the debit (and the transfer) but before storing the answer leaves.
    await service.db
      .updateTable("idempotency_keys")
      .set({
        response_status: null,
        response_body: null,
        owner: "killed-host:4242:gone",
        lease_until: new Date(Date.now() - 1_000),
      })
      .where("scope", "=", "POST /v1/wallet/withdrawals")
      .where("key", "=", key)
      .execute();

    const retried = await withdraw();
    expect(retried.status, JSON.stringify(retried.json)).toBe(201);
    expect(retried.json.data.id).toBe(first.json.data.id);
    expect(await balanceOf(chain.config, to)).toBe(parseUsdc("2"));
    expect((await service.http("GET", "/v1/wallet", { token: owner.token })).json.data.balanceUsdc).toBe("3");
    const made = await service.db
      .selectFrom("wallet_withdrawals")
      .select("id")
      .where("owner_user_id", "=", owner.id)
      .execute();
    expect(made).toHaveLength(1);
  }, 60_000);
});

describe("an instance whose clock runs 400 s ahead", () => {
  // Leases compare each process's own clock, so a skewed instance takes a lease that has not run
  // out. What keeps the money moving once is the kept transaction: recorded only while none is, so
  // the second claimant's transfer is never broadcast; it finds the first one's and asks about it.
  it("takes six withdrawals' leases mid-send; each is paid once", async () => {
    const skewed = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config }, { ownPool: true });
    skewed.ctx.now = () => new Date(Date.now() + 400_000);
    try {
      for (let n = 0; n < 6; n++) {
        const owner = await ownerWithBalance("2");
        const to = randomAddress();
        let resume!: () => void;
        const claimedBy = new Promise<string>((resolve) => {
          service.crashPoints.beforeWithdrawalSign = (id) => {
            resolve(id);
            return new Promise<void>((r) => (resume = r));
          };
        });
        const answer = service.http("POST", "/v1/wallet/withdrawals", {
          token: owner.token,
          body: { toAddress: to, amountUsdc: "1.5" },
        });
        const id = await claimedBy;
        service.crashPoints.beforeWithdrawalSign = undefined;

        // The skewed instance's worker finds the lease "run out" and claims the withdrawal too.
        const takeover = finishPendingWithdrawals(skewed.ctx, { only: [id] });
        for (let i = 0; i < 200; i++) {
          const row = await service.db
            .selectFrom("wallet_withdrawals")
            .select("attempts")
            .where("id", "=", id)
            .executeTakeFirstOrThrow();
          if (row.attempts >= 2) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        resume();
        const [first] = await Promise.all([answer, takeover]);
        expect(first.status, JSON.stringify(first.json)).toBe(201);
        await finishPendingWithdrawals(service.ctx, { only: [id], now: new Date(Date.now() + 3_600_000) });

        expect(await balanceOf(chain.config, to)).toBe(parseUsdc("1.5"));
        const row = await service.db
          .selectFrom("wallet_withdrawals")
          .select(["status", "attempts"])
          .where("id", "=", id)
          .executeTakeFirstOrThrow();
        expect(row.status).toBe("CONFIRMED");
        expect(row.attempts).toBeGreaterThanOrEqual(2);
      }
    } finally {
      await skewed.stop();
    }
  }, 120_000);
});

describe("a withdrawal a chain reorganisation removed", () => {
  it("is PENDING again and paid again exactly once, with the transaction it signed", async () => {
    const owner = await ownerWithBalance("3");
    const to = randomAddress();
    const snapshot = await chain.testClient.snapshot();
    const made = await service.http("POST", "/v1/wallet/withdrawals", {
      token: owner.token,
      body: { toAddress: to, amountUsdc: "1.5" },
    });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    const id = made.json.data.id as string;
    expect(await balanceOf(chain.config, to)).toBe(parseUsdc("1.5"));

    // The chain goes back before the transfer and grows without it.
    await chain.testClient.revert({ id: snapshot });
    await chain.testClient.mine({ blocks: 4 });
    expect(await balanceOf(chain.config, to)).toBe(0n);

    expect(await watchConfirmedWithdrawals(service.ctx, { only: [id] })).toEqual([id]);
    await finishPendingWithdrawals(service.ctx, { only: [id], now: new Date(Date.now() + 3_600_000) });
    const row = await service.db
      .selectFrom("wallet_withdrawals")
      .select(["status", "sent_tx_hash"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("CONFIRMED");
    expect(await balanceOf(chain.config, to)).toBe(parseUsdc("1.5"));
    // Once: the next rounds find it mined and change nothing.
    expect(await watchConfirmedWithdrawals(service.ctx, { only: [id] })).toEqual([]);
    await finishPendingWithdrawals(service.ctx, { only: [id], now: new Date(Date.now() + 7_200_000) });
    expect(await balanceOf(chain.config, to)).toBe(parseUsdc("1.5"));
  }, 60_000);
});
