import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { GENEROUS_BUDGETS, newUser, startTestService, type TestService, type TestUser } from "../testing/harness";
import { balanceOf, claimedAgent, randomAddress, uniqueTitle } from "../testing/rewards-support";
import { uniqueText } from "@/lib/testing/unique-text";
import { runRewardsRound } from "./worker";

// PGlite has one connection and cannot show a race; this runs against a PostgreSQL server, on a
// chain of its own (its own escrow, so no other suite's slots are in play).
describe.runIf(Boolean(process.env.TEST_DATABASE_URL))("forum rewards under concurrency on PostgreSQL", () => {
  let chain: TestChain;
  let service: TestService;
  let admin: TestUser;

  beforeAll(async () => {
    chain = await startTestChain({ chainId: 31343 });
    service = await startTestService({
      rateBudgets: GENEROUS_BUDGETS,
      chain: chain.config,
      rewardsAdminAddresses: [chain.accounts[9]!.address],
    });
    admin = await newUser(service, chain.accounts[9]!.privateKey);
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await chain?.stop();
  });

  /** Runs two reward workers side by side, as two instances would, until every thread's reward is decided. */
  async function settleThreadRewards(ids: string[]) {
    const settled = async () => {
      const rows = await service.db
        .selectFrom("forum_rewards")
        .select(["status"])
        .where("contribution_id", "in", ids)
        .where("kind", "=", "THREAD")
        .execute();
      return rows.length === ids.length && rows.every((r) => ["PAID", "NOT_ELIGIBLE"].includes(r.status));
    };
    const deadline = Date.now() + 60_000;
    while (!(await settled())) {
      if (Date.now() > deadline) throw new Error("rewards did not settle");
      await Promise.all([
        runRewardsRound(service.ctx, { onlyContributions: ids }),
        runRewardsRound(service.ctx, { onlyContributions: ids }),
      ]);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it("20 parallel eligible threads by one owner produce exactly one reward and one on-chain transfer", async () => {
    const owner = await newUser(service);
    const payout = randomAddress();
    expect(
      (await service.http("PUT", "/v1/forum/me/payout", { token: owner.token, body: { address: payout } })).status,
    ).toBe(200);
    // More budget than one reward needs: only "one reward per owner per kind" can stop the others.
    const campaign = await service.http("POST", "/v1/forum/reward-campaigns", {
      token: admin.token,
      body: { kind: "THREAD", slots: 3 },
    });
    expect(campaign.status, JSON.stringify(campaign.json)).toBe(201);

    // Twenty authors with one owner (the owner's agents and the owner itself), so no per-author lock serialises them.
    const agents = await Promise.all(Array.from({ length: 19 }, () => claimedAgent(service, owner)));
    const authors = [owner, ...agents];
    const before = await balanceOf(chain.config, payout);
    const posted = await Promise.all(
      authors.map((a) =>
        service.http("POST", "/v1/forum/threads", {
          token: "apiKey" in a ? a.apiKey : a.token,
          body: { title: uniqueTitle(), body: uniqueText(450), category: "agent-economics" },
        }),
      ),
    );
    expect(posted.map((p) => p.status)).toEqual(Array(20).fill(201));
    const ids = posted.map((p) => p.json.data.id as string);

    // Two worker instances review the posts from their events and pay, at the same time.
    await settleThreadRewards(ids);

    const rows = await service.db
      .selectFrom("forum_rewards")
      .selectAll()
      .where("contribution_id", "in", ids)
      .where("kind", "=", "THREAD")
      .execute();
    expect(rows.filter((r) => r.status === "PAID")).toHaveLength(1);
    expect(rows.filter((r) => r.status === "NOT_ELIGIBLE")).toHaveLength(19);
    const paid = rows.find((r) => r.status === "PAID")!;
    // One release from the campaign's slots, and the payout address gained exactly one net amount.
    const releases = await service.db
      .selectFrom("escrow_settlements as s")
      .innerJoin("forum_reward_slots as slot", "slot.job_id", "s.job_id")
      .select(["s.tx_hash", "s.status"])
      .where("slot.campaign_id", "=", campaign.json.data.id)
      .execute();
    expect(releases).toEqual([{ tx_hash: paid.tx_hash, status: "CONFIRMED" }]);
    expect((await balanceOf(chain.config, payout)) - before).toBe(parseUsdc("0.095"));
    const overview = (await service.http("GET", `/v1/forum/reward-campaigns/${campaign.json.data.id}`)).json.data;
    expect(overview).toMatchObject({ paidSlots: 1, availableSlots: 2, reservedSlots: 0 });
  });

  it("12 owners with one payout address posting at once, each from its own network, produce exactly one reward and one transfer", async () => {
    const shared = randomAddress();
    const owners = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const owner = await newUser(service);
        const agent = await claimedAgent(service, owner);
        expect(
          (await service.http("PUT", "/v1/forum/me/payout", { token: owner.token, body: { address: shared } })).status,
        ).toBe(200);
        return agent;
      }),
    );
    // More budget than one reward needs: only "one reward per payout address per kind" can stop the others.
    const campaign = await service.http("POST", "/v1/forum/reward-campaigns", {
      token: admin.token,
      body: { kind: "THREAD", slots: 3 },
    });
    expect(campaign.status, JSON.stringify(campaign.json)).toBe(201);
    const before = await balanceOf(chain.config, shared);
    const posted = await Promise.all(
      owners.map((a) =>
        service.http("POST", "/v1/forum/threads", {
          token: a.apiKey,
          body: { title: uniqueTitle(), body: uniqueText(450), category: "agent-economics" },
        }),
      ),
    );
    expect(posted.map((p) => p.status)).toEqual(Array(12).fill(201));
    const ids = posted.map((p) => p.json.data.id as string);
    await settleThreadRewards(ids);
    const rows = await service.db
      .selectFrom("forum_rewards")
      .selectAll()
      .where("contribution_id", "in", ids)
      .where("kind", "=", "THREAD")
      .execute();
    expect(rows.filter((r) => r.status === "PAID")).toHaveLength(1);
    const refused = rows.filter((r) => r.status === "NOT_ELIGIBLE");
    expect(refused).toHaveLength(11);
    for (const r of refused) expect(r.declined_reason).toMatch(/payout address already earned its one THREAD reward/);
    expect((await balanceOf(chain.config, shared)) - before).toBe(parseUsdc("0.095"));
  });
});
