import { renderToStaticMarkup } from "react-dom/server";
import { createElement } from "react";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MESSAGE_LIMITS } from "@/lib/api/schemas/messages";
import { Markdown } from "@/lib/markdown";
import { newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import { assignedJob, expectApiError, jobWithBid, settle } from "../testing/records-support";
import { claimedAgent } from "../testing/evals-support";

let service: TestService;
// A key of this run's own: a well-known key (an anvil account) is one identity for every suite on a
// shared PostgreSQL database, and other suites' requests would spend its per-identity rate budget.
const operatorKey = `0x${randomBytes(32).toString("hex")}` as const;
beforeAll(async () => {
  const { privateKeyToAccount } = await import("viem/accounts");
  service = await startTestService({ operatorAddresses: [privateKeyToAccount(operatorKey).address] });
});
afterAll(async () => service.stop());

describe("a job's conversations", () => {
  it("bidder and poster talk before acceptance; unread counts follow; mark-read clears them", async () => {
    const { poster, agent, jobId } = await jobWithBid(service);
    const question = await agent.client.postJobMessage({
      params: { id: jobId },
      body: { body: "Do you want **verified** emails only?" },
    });
    expect(question.data).toMatchObject({ agentId: agent.id, senderSide: "AGENT", senderId: agent.id });

    const posterView = await poster.client.listJobConversations({ params: { id: jobId } });
    expect(posterView.data).toEqual([
      expect.objectContaining({ agentId: agent.id, mySide: "POSTER", messageCount: 1, unread: 1, open: true }),
    ]);
    // The agent's own message is not unread for it.
    expect((await agent.client.listJobConversations({ params: { id: jobId } })).data[0]).toMatchObject({
      mySide: "AGENT",
      unread: 0,
    });

    const answer = await poster.client.postJobMessage({
      params: { id: jobId },
      body: { with: agent.id, body: "Yes, verified only." },
    });
    expect(answer.data.senderSide).toBe("POSTER");
    // Writing marks the writer's side read.
    expect((await poster.client.listJobConversations({ params: { id: jobId } })).data[0]).toMatchObject({
      messageCount: 2,
      unread: 0,
    });
    expect((await agent.client.listJobConversations({ params: { id: jobId } })).data[0]).toMatchObject({
      messageCount: 2,
      unread: 1,
    });

    const thread = await agent.client.listJobMessages({ params: { id: jobId }, query: {} });
    expect(thread.data.map((m) => m.body)).toEqual(["Do you want **verified** emails only?", "Yes, verified only."]);
    const read = await agent.client.markJobMessagesRead({ params: { id: jobId }, body: {} });
    expect(read.data).toMatchObject({ unread: 0, messageCount: 2 });

    // The other side is told, with no message text in the event.
    const events = await service.db
      .selectFrom("domain_events")
      .selectAll()
      .where("job_id", "=", jobId)
      .where("type", "=", "message.created")
      .orderBy("seq")
      .execute();
    expect(events.map((e) => e.recipient_ids)).toEqual([[poster.id], [agent.id]]);
    expect(JSON.stringify(events.map((e) => e.data))).not.toContain("verified");
  });

  it("the poster names the conversation; each bidder sees only its own", async () => {
    const { poster, agent, jobId } = await jobWithBid(service);
    const other = await newAgent(service);
    await other.client.placeBid({ params: { id: jobId }, body: { agentId: other.id, proposedUsdc: "40" } });
    await agent.client.postJobMessage({ params: { id: jobId }, body: { body: "First bidder's question." } });
    await other.client.postJobMessage({ params: { id: jobId }, body: { body: "Second bidder's question." } });

    const res = await service.http("GET", `/v1/jobs/${jobId}/messages`, { token: poster.token });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("CONVERSATION_REQUIRED");
    expect(
      (await poster.client.listJobConversations({ params: { id: jobId } })).data.map((c) => c.agentId).sort(),
    ).toEqual([agent.id, other.id].sort());
    expect(
      (await poster.client.listJobMessages({ params: { id: jobId }, query: { with: other.id } })).data.map(
        (m) => m.body,
      ),
    ).toEqual(["Second bidder's question."]);
    expect((await other.client.listJobMessages({ params: { id: jobId }, query: {} })).data.map((m) => m.body)).toEqual([
      "Second bidder's question.",
    ]);
    // A bidder cannot read another bidder's conversation by naming it.
    await expectApiError(
      other.client.listJobMessages({ params: { id: jobId }, query: { with: agent.id } }),
      403,
      "NOT_IN_CONVERSATION",
    );
  });

  it("strangers are refused: a signed-in human, an agent with no bid, and the operator on a job that is not disputed", async () => {
    const { agent, jobId } = await jobWithBid(service);
    const stranger = await newUser(service);
    const lurker = await newAgent(service);
    const operator = await newUser(service, operatorKey);
    for (const client of [stranger.client, lurker.client, operator.client]) {
      await expectApiError(client.listJobConversations({ params: { id: jobId } }), 403, "NOT_IN_CONVERSATION");
      await expectApiError(
        client.listJobMessages({ params: { id: jobId }, query: { with: agent.id } }),
        403,
        "NOT_IN_CONVERSATION",
      );
      await expectApiError(
        client.postJobMessage({ params: { id: jobId }, body: { with: agent.id, body: "Hello?" } }),
        403,
        "NOT_IN_CONVERSATION",
      );
    }
    expect((await service.http("GET", `/v1/jobs/${jobId}/conversations`)).status).toBe(401);
  });

  it("after acceptance the assigned agent keeps talking; a rejected bidder's conversation is read-only", async () => {
    const { poster, agent, jobId, bidId } = await jobWithBid(service);
    const loser = await newAgent(service);
    await loser.client.placeBid({ params: { id: jobId }, body: { agentId: loser.id, proposedUsdc: "40" } });
    await loser.client.postJobMessage({ params: { id: jobId }, body: { body: "Any preference on sources?" } });
    await poster.client.acceptBid({ params: { jobId, bidId } });

    await agent.client.postJobMessage({ params: { id: jobId }, body: { body: "Started; first rows by tomorrow." } });
    await poster.client.postJobMessage({ params: { id: jobId }, body: { with: agent.id, body: "Thanks." } });
    await expectApiError(
      loser.client.postJobMessage({ params: { id: jobId }, body: { body: "Still there?" } }),
      409,
      "CONVERSATION_CLOSED",
    );
    await expectApiError(
      poster.client.postJobMessage({ params: { id: jobId }, body: { with: loser.id, body: "Sorry." } }),
      409,
      "CONVERSATION_CLOSED",
    );
    expect((await loser.client.listJobMessages({ params: { id: jobId }, query: {} })).data).toHaveLength(1);
    const conversations = await poster.client.listJobConversations({ params: { id: jobId } });
    expect(Object.fromEntries(conversations.data.map((c) => [c.agentId, c.open]))).toEqual({
      [agent.id]: true,
      [loser.id]: false,
    });
  });

  it("the owner of a bidding agent talks for it from the dashboard (its session)", async () => {
    const { agent, owner } = await claimedAgent(service);
    const { poster, jobId } = await jobWithBid(service, { agent });
    await owner.client.postJobMessage({ params: { id: jobId }, body: { body: "Question from the owner." } });
    const msgs = await poster.client.listJobMessages({ params: { id: jobId }, query: { with: agent.id } });
    expect(msgs.data[0]).toMatchObject({ senderSide: "AGENT", senderId: owner.id });
  });

  it("the operator reads (never writes) the conversations of a disputed job", async () => {
    const { poster, agent, jobId } = await assignedJob(service);
    await agent.client.postJobMessage({ params: { id: jobId }, body: { body: "The site was down during the check." } });
    const operator = await newUser(service, operatorKey);
    await expectApiError(
      operator.client.listJobMessages({ params: { id: jobId }, query: { with: agent.id } }),
      403,
      "NOT_IN_CONVERSATION",
    );
    await settle(service, jobId, "RELEASE_PENDING", { disputed: true });
    await service.db.updateTable("jobs").set({ status: "DISPUTED" }).where("id", "=", jobId).execute();
    const read = await operator.client.listJobMessages({ params: { id: jobId }, query: { with: agent.id } });
    expect(read.data.map((m) => m.body)).toEqual(["The site was down during the check."]);
    expect((await operator.client.listJobConversations({ params: { id: jobId } })).data[0]).toMatchObject({
      mySide: null,
      open: false,
    });
    await expectApiError(
      operator.client.postJobMessage({ params: { id: jobId }, body: { with: agent.id, body: "Ruling soon." } }),
      403,
      "NOT_IN_CONVERSATION",
    );
    void poster;
  });

  it("the evaluator named on a disputed job reads its conversations too, and only once it is disputed", async () => {
    const { agent, jobId } = await assignedJob(service);
    await agent.client.postJobMessage({ params: { id: jobId }, body: { body: "Delivered on time, see the log." } });
    const evaluator = await newUser(service);
    await service.db
      .updateTable("jobs")
      .set({ evaluator_address: evaluator.address.toLowerCase() })
      .where("id", "=", jobId)
      .execute();
    await expectApiError(
      evaluator.client.listJobMessages({ params: { id: jobId }, query: { with: agent.id } }),
      403,
      "NOT_IN_CONVERSATION",
    );
    await service.db
      .updateTable("jobs")
      .set({ status: "DISPUTED", disputed_at: new Date() })
      .where("id", "=", jobId)
      .execute();
    const read = await evaluator.client.listJobMessages({ params: { id: jobId }, query: { with: agent.id } });
    expect(read.data.map((m) => m.body)).toEqual(["Delivered on time, see the log."]);
    await expectApiError(
      evaluator.client.postJobMessage({ params: { id: jobId }, body: { with: agent.id, body: "Noted." } }),
      403,
      "NOT_IN_CONVERSATION",
    );
    // Another person is still a stranger.
    const stranger = await newUser(service);
    await expectApiError(
      stranger.client.listJobMessages({ params: { id: jobId }, query: { with: agent.id } }),
      403,
      "NOT_IN_CONVERSATION",
    );
  });

  it("bodies are bounded: empty and over-long messages answer 400", async () => {
    const { agent, jobId } = await jobWithBid(service);
    expect(
      (await service.http("POST", `/v1/jobs/${jobId}/messages`, { token: agent.apiKey, body: { body: "   " } })).status,
    ).toBe(400);
    expect(
      (
        await service.http("POST", `/v1/jobs/${jobId}/messages`, {
          token: agent.apiKey,
          body: { body: "x".repeat(MESSAGE_LIMITS.bodyMax + 1) },
        })
      ).status,
    ).toBe(400);
  });

  it("each sender has a message budget: past it, 429 RATE_LIMITED with retryAfter, across conversations", async () => {
    const agent = await newAgent(service);
    const first = await jobWithBid(service, { agent });
    const second = await jobWithBid(service, { agent });
    for (let i = 0; i < MESSAGE_LIMITS.perSenderPerWindow; i += 1) {
      const jobId = i % 2 === 0 ? first.jobId : second.jobId;
      const res = await service.http("POST", `/v1/jobs/${jobId}/messages`, {
        token: agent.apiKey,
        body: { body: `Question number ${i + 1}.` },
      });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
    }
    const refused = await service.http("POST", `/v1/jobs/${first.jobId}/messages`, {
      token: agent.apiKey,
      body: { body: "One more." },
    });
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ statusCode: 429, code: "RATE_LIMITED", retryAfter: expect.any(Number) });
    expect(refused.headers.get("retry-after")).toBe(String(refused.json.retryAfter));
    // The poster's own budget is its own.
    const ok = await first.poster.client.postJobMessage({
      params: { id: first.jobId },
      body: { with: agent.id, body: "Answer." },
    });
    expect(ok.data.senderSide).toBe("POSTER");
  });

  it("a Markdown XSS attempt is stored as text and rendered inert by the one safe configuration", async () => {
    const { poster, agent, jobId } = await jobWithBid(service);
    const attack = [
      "<script>alert(1)</script>",
      "<img src=x onerror=alert(2)>",
      "[click](javascript:alert(3))",
      "![x](javascript:alert(4))",
      '<a href="javascript:alert(5)">raw</a>',
    ].join("\n\n");
    await agent.client.postJobMessage({ params: { id: jobId }, body: { body: attack } });
    const [message] = (await poster.client.listJobMessages({ params: { id: jobId }, query: { with: agent.id } })).data;
    expect(message!.body).toBe(attack);
    const html = renderToStaticMarkup(createElement(Markdown, { source: message!.body }));
    expect(html).not.toMatch(/<script|<img|onerror=|href="javascript:|src="javascript:/i);
  });
});
