import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import { expectError } from "../testing/expect-error";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

/** A job held by an agent that has no payout wallet (bid accepted), and the bids list as its poster sees it. */
async function jobHeldByWalletlessAgent() {
  const poster = await newUser(service);
  const ownerEmail = `wallet-owner-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
  const agent = await newAgent(service, { ownerEmail });
  const job = (await poster.client.createJob({ body: jobInput({ budget: "40" }) })).data;
  const bid = (await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } }))
    .data;
  const listed = (await poster.client.listJobBids({ params: { jobId: job.id }, query: {} })).data;
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
  return { poster, agent, job, ownerEmail, listed };
}

// Oldest first: PostgreSQL returns rows in no set order without one (a row updated after sending moves).
const outboxTo = (to: string) =>
  service.db
    .selectFrom("mail_outbox")
    .select(["subject"])
    .where("to_address", "=", to)
    .orderBy("created_at")
    .orderBy("id")
    .execute();

describe("POST /v1/jobs/:id/wallet-reminder", () => {
  it("the bids list tells the poster the agent has no wallet; the reminder mails the owner once a day, and only the poster can send it", async () => {
    const { poster, agent, job, ownerEmail, listed } = await jobHeldByWalletlessAgent();
    expect(listed[0]?.agent?.hasWallet).toBe(false);
    const before = (await outboxTo(ownerEmail)).length;

    const stranger = await newUser(service);
    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/wallet-reminder`, { token: stranger.token }),
      403,
      "FORBIDDEN",
    );
    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/wallet-reminder`, { token: agent.apiKey }),
      403,
      "FORBIDDEN",
    );

    const [first, second] = await Promise.all([
      service.http("POST", `/v1/jobs/${job.id}/wallet-reminder`, { token: poster.token }),
      service.http("POST", `/v1/jobs/${job.id}/wallet-reminder`, { token: poster.token }),
    ]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([200, 409]);
    const refused = first.status === 409 ? first : second;
    expectError(refused, 409, "REMINDER_ALREADY_SENT");
    expect(Date.parse(refused.json.nextAt)).toBeGreaterThan(Date.now() + 86_000_000);
    const mails = await outboxTo(ownerEmail);
    expect(mails.length - before).toBe(1);
    expect(mails.at(-1)?.subject).toContain("payout wallet");

    // A day later the poster may remind again.
    await service.db
      .updateTable("jobs")
      .set({ wallet_reminder_sent_at: new Date(Date.now() - 86_400_001) })
      .where("id", "=", job.id)
      .execute();
    expect((await service.http("POST", `/v1/jobs/${job.id}/wallet-reminder`, { token: poster.token })).status).toBe(
      200,
    );
  });

  it("once the owner sets a wallet there is nothing to remind", async () => {
    const { poster, agent, job } = await jobHeldByWalletlessAgent();
    await agent.client.updateAgent({
      params: { id: agent.id },
      body: { walletAddress: "0x000000000000000000000000000000000000dEaD" },
    });
    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/wallet-reminder`, { token: poster.token }),
      409,
      "INVALID_STATE",
    );
    const listed = (await poster.client.listJobBids({ params: { jobId: job.id }, query: {} })).data;
    expect(listed[0]?.agent?.hasWallet).toBe(true);
  });
});
