import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobShareCard } from "@/lib/api/schemas/job-modes";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newClientIp,
  newUser,
  startTestService,
  type TestService,
} from "../testing/harness";

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, siteUrl: "https://market.example" });
});
afterAll(() => service.stop());

const UNKNOWN = "4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a11";

describe("POST /v1/jobs/:id/share", () => {
  it("counts shares of a shareable job from anyone, anonymous included", async () => {
    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    expect(job).toMatchObject({ isPubliclyShareable: true, shareCount: 0, lastSharedAt: null });
    const first = await service.http("POST", `/v1/jobs/${job.id}/share`);
    expect(first.status).toBe(200);
    expect(first.json.data).toMatchObject({
      jobId: job.id,
      shareCount: 1,
      url: `https://market.example/jobs/${job.id}`,
    });
    const second = await service.http("POST", `/v1/jobs/${job.id}/share`, { token: poster.token });
    expect(second.json.data.shareCount).toBe(2);
    const detail = (await service.client().getPublicJob({ params: { id: job.id } })).data;
    expect(detail.shareCount).toBe(2);
    expect(detail.lastSharedAt).toBe(second.json.data.lastSharedAt);
    // A share is not an edit of the job.
    expect(detail.updatedAt).toBe(job.updatedAt);
  });

  it("a job that is not publicly shareable answers 404 JOB_NOT_SHAREABLE and is not counted; unknown jobs 404 NOT_FOUND", async () => {
    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput({ isPubliclyShareable: false }) })).data;
    const res = await service.http("POST", `/v1/jobs/${job.id}/share`);
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ statusCode: 404, code: "JOB_NOT_SHAREABLE" });
    expect((await service.client().getPublicJob({ params: { id: job.id } })).data).toMatchObject({
      shareCount: 0,
      lastSharedAt: null,
    });
    const unknown = await service.http("POST", `/v1/jobs/${UNKNOWN}/share`);
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe("NOT_FOUND");
    expect((await service.http("POST", "/v1/jobs/nope/share")).status).toBe(400);
  });

  it("is charged to the caller's write budget, per IP when anonymous (429 with Retry-After)", async () => {
    const tight = await startTestService({ rateBudgets: { ...GENEROUS_BUDGETS, writesPerMinute: 3 } });
    try {
      const poster = await newUser(service);
      const job = (await poster.client.createJob({ body: jobInput() })).data;
      const ip = newClientIp();
      const statuses: number[] = [];
      let last: Awaited<ReturnType<TestService["http"]>> | undefined;
      for (let i = 0; i < 4; i++) {
        last = await tight.http("POST", `/v1/jobs/${job.id}/share`, { ip });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
      // Another address has its own budget.
      expect((await tight.http("POST", `/v1/jobs/${job.id}/share`, { ip: newClientIp() })).status).toBe(200);
      expect((await service.client().getPublicJob({ params: { id: job.id } })).data.shareCount).toBe(4);
    } finally {
      await tight.stop();
    }
  });
});

describe("GET /v1/jobs/:id/share-card", () => {
  it("gives the share page's card data publicly", async () => {
    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput({ budget: "12.5", description: "D".repeat(300) }) }))
      .data;
    const res = await service.http("GET", `/v1/jobs/${job.id}/share-card`);
    expect(res.status).toBe(200);
    const card = JobShareCard.parse(res.json.data);
    expect(card).toMatchObject({
      id: job.id,
      title: job.title,
      budgetUsdc: "12.5",
      funded: false,
      status: "OPEN",
      participationMode: "BID",
      url: `https://market.example/jobs/${job.id}`,
      tokenSymbol: "USDC",
    });
    expect(card.description.length).toBeLessThanOrEqual(200);
    expect(card.description.endsWith("…")).toBe(true);
  });

  it("answers 404 JOB_NOT_SHAREABLE for a job that is not shareable, 404 for an unknown one", async () => {
    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput({ isPubliclyShareable: false }) })).data;
    const res = await service.http("GET", `/v1/jobs/${job.id}/share-card`);
    expect(res.status).toBe(404);
    expect(res.json.code).toBe("JOB_NOT_SHAREABLE");
    expect((await service.http("GET", `/v1/jobs/${UNKNOWN}/share-card`)).json.code).toBe("NOT_FOUND");
  });
});

describe("POST /v1/jobs with sourceForumThreadId / sourceForumReplyId", () => {
  it("must name a visible forum thread (404), and a reply in it; a reply alone implies its thread", async () => {
    const user = await newUser(service);
    const thread = (
      await user.client.createThread({
        body: {
          title: `Hiring: someone to verify leads ${Date.now()}`,
          body: "Looking for an agent that verifies 50 fintech leads this week.",
          category: "agent-hiring-agent",
          intent: "hiring",
        },
      })
    ).data;
    const reply = (
      await user.client.createReply({
        params: { slugOrId: thread.id },
        body: { body: "I can post this as a job with escrow today." },
      })
    ).data;

    const linked = await service.http("POST", "/v1/jobs", {
      token: user.token,
      body: jobInput({ sourceForumThreadId: thread.id }),
    });
    expect(linked.status).toBe(201);
    expect(linked.json.data).toMatchObject({ sourceForumThreadId: thread.id, sourceForumReplyId: null });

    const fromReply = await service.http("POST", "/v1/jobs", {
      token: user.token,
      body: jobInput({ sourceForumReplyId: reply.id }),
    });
    expect(fromReply.status).toBe(201);
    expect(fromReply.json.data).toMatchObject({ sourceForumThreadId: thread.id, sourceForumReplyId: reply.id });

    const unknownThread = await service.http("POST", "/v1/jobs", {
      token: user.token,
      body: jobInput({ sourceForumThreadId: UNKNOWN }),
    });
    expect(unknownThread.status).toBe(404);
    const unknownReply = await service.http("POST", "/v1/jobs", {
      token: user.token,
      body: jobInput({ sourceForumReplyId: UNKNOWN }),
    });
    expect(unknownReply.status).toBe(404);

    const otherThread = (
      await user.client.createThread({
        body: {
          title: `Another thread about pricing ${Date.now()}`,
          body: "A second thread, so that a reply can be named with the wrong thread.",
          category: "bidding-strategy",
        },
      })
    ).data;
    const mismatch = await service.http("POST", "/v1/jobs", {
      token: user.token,
      body: jobInput({ sourceForumThreadId: otherThread.id, sourceForumReplyId: reply.id }),
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.message).toContain("sourceForumReplyId must be a reply in sourceForumThreadId");
  });
});
