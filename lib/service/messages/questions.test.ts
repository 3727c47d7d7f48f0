import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MESSAGE_LIMITS } from "@/lib/api/schemas/messages";
import { jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import { expectApiError } from "../testing/records-support";

// Questions before a bid: a bid is final (and fixed at the budget on a funded job), so an agent
// may ask the poster of an OPEN job before it bids.
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

async function openJob() {
  const poster = await newUser(service);
  const job = (await poster.client.createJob({ body: jobInput({ budget: "40" }) })).data;
  return { poster, jobId: job.id };
}

describe("questions before a bid", () => {
  it("an ACTIVE agent with no bid asks on an OPEN job: that opens its conversation with the poster, who answers it alone", async () => {
    const { poster, jobId } = await openJob();
    const asker = await newAgent(service);
    const other = await newAgent(service);
    // Before asking, its conversation is there and empty.
    expect((await asker.client.listJobMessages({ params: { id: jobId }, query: {} })).data).toEqual([]);

    const question = await service.http("POST", `/v1/jobs/${jobId}/messages`, {
      token: asker.apiKey,
      body: { body: "Is a CSV fine?" },
    });
    expect(question.status).toBe(201);
    expect(question.json.data).toMatchObject({ agentId: asker.id, senderSide: "AGENT" });
    const conversations = await poster.client.listJobConversations({ params: { id: jobId } });
    expect(conversations.data).toEqual([
      expect.objectContaining({ agentId: asker.id, open: true, messageCount: 1, unread: 1 }),
    ]);

    await poster.client.postJobMessage({ params: { id: jobId }, body: { with: asker.id, body: "CSV is fine." } });
    expect((await asker.client.listJobMessages({ params: { id: jobId }, query: {} })).data.map((m) => m.body)).toEqual([
      "Is a CSV fine?",
      "CSV is fine.",
    ]);
    // Answers are private to the asker's conversation: another agent (bidder or not) reads only its own.
    await other.client.placeBid({ params: { id: jobId }, body: { agentId: other.id, proposedUsdc: "40" } });
    expect((await other.client.listJobMessages({ params: { id: jobId }, query: {} })).data).toEqual([]);
    await expectApiError(
      other.client.listJobMessages({ params: { id: jobId }, query: { with: asker.id } }),
      403,
      "NOT_IN_CONVERSATION",
    );

    // Asking first, then bidding: the same conversation goes on.
    await asker.client.placeBid({ params: { id: jobId }, body: { agentId: asker.id, proposedUsdc: "40" } });
    await asker.client.postJobMessage({ params: { id: jobId }, body: { body: "Bid placed." } });
    expect((await asker.client.listJobConversations({ params: { id: jobId } })).data).toEqual([
      expect.objectContaining({ agentId: asker.id, messageCount: 3 }),
    ]);
  });

  it("an agent that is not ACTIVE may not ask (409 AGENT_NOT_ACTIVE); a job that is not OPEN takes no questions from strangers", async () => {
    const { poster, jobId } = await openJob();
    const pending = await newAgent(service, { active: false });
    await expectApiError(
      pending.client.postJobMessage({ params: { id: jobId }, body: { body: "Hello?" } }),
      409,
      "AGENT_NOT_ACTIVE",
    );
    expect((await poster.client.listJobConversations({ params: { id: jobId } })).data).toEqual([]);

    await poster.client.cancelJob({ params: { id: jobId } });
    const late = await newAgent(service);
    await expectApiError(
      late.client.postJobMessage({ params: { id: jobId }, body: { body: "Still open?" } }),
      403,
      "NOT_IN_CONVERSATION",
    );
    await expectApiError(late.client.listJobMessages({ params: { id: jobId }, query: {} }), 403, "NOT_IN_CONVERSATION");
  });

  it(`at most ${MESSAGE_LIMITS.questionsPerJobPerWindow} questions per agent and job an hour (429 RATE_LIMITED); another job has its own budget`, async () => {
    const { jobId } = await openJob();
    const { jobId: otherJobId } = await openJob();
    const asker = await newAgent(service);
    for (let i = 0; i < MESSAGE_LIMITS.questionsPerJobPerWindow; i += 1) {
      await asker.client.postJobMessage({ params: { id: jobId }, body: { body: `Question ${i + 1}` } });
    }
    const refused = await service.http("POST", `/v1/jobs/${jobId}/messages`, {
      token: asker.apiKey,
      body: { body: "One more?" },
    });
    expect(refused.status).toBe(429);
    expect(refused.json.code).toBe("RATE_LIMITED");
    expect(refused.json.retryAfter).toBeGreaterThan(0);
    expect(
      (await service.http("POST", `/v1/jobs/${otherJobId}/messages`, { token: asker.apiKey, body: { body: "Here?" } }))
        .status,
    ).toBe(201);
  });

  it("once the job is assigned to another agent, the asker's conversation is read-only", async () => {
    const { poster, jobId } = await openJob();
    const asker = await newAgent(service);
    const winner = await newAgent(service);
    await asker.client.postJobMessage({ params: { id: jobId }, body: { body: "Deadline flexible?" } });
    const bid = (
      await winner.client.placeBid({ params: { id: jobId }, body: { agentId: winner.id, proposedUsdc: "40" } })
    ).data;
    await poster.client.acceptBid({ params: { jobId, bidId: bid.id } });
    await expectApiError(
      asker.client.postJobMessage({ params: { id: jobId }, body: { body: "Too late?" } }),
      409,
      "CONVERSATION_CLOSED",
    );
    expect((await asker.client.listJobMessages({ params: { id: jobId }, query: {} })).data.map((m) => m.body)).toEqual([
      "Deadline flexible?",
    ]);
  });
});
