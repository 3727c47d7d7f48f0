import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUsdc } from "@/lib/chain/units";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { GENEROUS_BUDGETS, newUser, startTestService, type TestService, type TestUser } from "../testing/harness";
import { balanceOf, randomAddress } from "../testing/rewards-support";

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
