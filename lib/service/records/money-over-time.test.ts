import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newUser, startTestService, type TestService } from "../testing/harness";
import { claimedAgent } from "../testing/evals-support";
import { assignedJob, settle } from "../testing/records-support";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

const monthsAgo = (n: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - n, 10, 12));
};

describe("GET /v1/me/money", () => {
  it("an owner's earnings by month across their agents, and a poster's spend and refunds, from confirmed settlements only", async () => {
    const ownerKey = generatePrivateKey();
    const first = await claimedAgent(service, { ownerKey });
    const second = await claimedAgent(service, { ownerKey });
    const owner = first.owner;
    const poster = await newUser(service);

    // This month: the first agent is paid 38 (fee 2); two months ago the second is paid 19 (fee 1).
    const thisMonth = await assignedJob(service, { poster, agent: first.agent });
    await settle(service, thisMonth.jobId, "RELEASED", {
      approvedAt: monthsAgo(0),
      netUnits: 38_000_000n,
      feeUnits: 2_000_000n,
    });
    const earlier = await assignedJob(service, { poster, agent: second.agent, budget: "20" });
    await settle(service, earlier.jobId, "RELEASED", {
      submittedAt: monthsAgo(2),
      approvedAt: monthsAgo(2),
      netUnits: 19_000_000n,
      feeUnits: 1_000_000n,
    });
    // A release still pending earns nothing yet; a refund goes back to the poster.
    const pending = await assignedJob(service, { poster, agent: first.agent });
    await settle(service, pending.jobId, "RELEASE_PENDING");
    const refunded = await assignedJob(service, { poster, agent: second.agent });
    await settle(service, refunded.jobId, "REFUNDED", { approvedAt: monthsAgo(0), netUnits: 40_000_000n });
    // Long ago: outside a three-month window.
    const old = await assignedJob(service, { poster, agent: first.agent });
    await settle(service, old.jobId, "RELEASED", {
      submittedAt: monthsAgo(5),
      approvedAt: monthsAgo(5),
      netUnits: 5_000_000n,
    });

    const mine = (await owner.client.getMyMoney({ query: { months: 3 } })).data;
    expect(mine.months.map((m) => m.month)).toEqual([2, 1, 0].map((n) => monthsAgo(n).toISOString().slice(0, 7)));
    expect(mine.months.map((m) => m.earnedUsdc)).toEqual(["19", "0", "38"]);
    expect(mine.totals).toEqual({ earnedUsdc: "57", paidUsdc: "0", refundedUsdc: "0" });
    expect(mine.agents).toEqual([
      { agentId: first.agent.id, name: expect.any(String), earnedUsdc: "38" },
      { agentId: second.agent.id, name: expect.any(String), earnedUsdc: "19" },
    ]);

    const spent = (await poster.client.getMyMoney({ query: { months: 3 } })).data;
    expect(spent.months.map((m) => [m.paidUsdc, m.refundedUsdc])).toEqual([
      ["20", "0"],
      ["0", "0"],
      ["40", "40"],
    ]);
    expect(spent.totals).toEqual({ earnedUsdc: "0", paidUsdc: "60", refundedUsdc: "40" });
    expect(spent.agents).toEqual([]);

    // An agent's own key reads its own earnings; the default window is a year.
    const itself = (await first.agent.client.getMyMoney({})).data;
    expect(itself.months).toHaveLength(12);
    expect(itself.totals.earnedUsdc).toBe("43");
    expect(itself.agents).toEqual([{ agentId: first.agent.id, name: expect.any(String), earnedUsdc: "43" }]);
  });

  it("is the caller's own: a stranger sees nothing of theirs, nobody signed out sees anything, and the window is bounded", async () => {
    const stranger = await newUser(service);
    const theirs = (await stranger.client.getMyMoney({})).data;
    expect(theirs.totals).toEqual({ earnedUsdc: "0", paidUsdc: "0", refundedUsdc: "0" });
    expect((await service.http("GET", "/v1/me/money")).status).toBe(401);
    const tooLong = await service.http("GET", "/v1/me/money?months=25", { token: stranger.token });
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.code).toBe("VALIDATION_FAILED");
  });
});
