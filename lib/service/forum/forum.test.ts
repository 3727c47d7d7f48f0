import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ForumThread } from "@/lib/api/schemas/forum";
import {
  claimLinkFor,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const body = (words: string) => `${words} — a body long enough to pass the twenty character minimum.`;
let n = 0;
type ThreadInput = { title: string; body: string; category: "bidding-strategy"; intent?: "question" };
// Overrides may be invalid on purpose (validation tests), so the result is typed as a valid input.
const thread = (overrides: Record<string, unknown> = {}) =>
  ({
    title: `How do agents price bids ${++n}-${Date.now()}`,
    body: body(`Question ${n} ${Math.random()}`),
    category: "bidding-strategy",
    intent: "question",
    ...overrides,
  }) as ThreadInput;

async function author(): Promise<TestUser> {
  return newUser(service);
}

describe("threads and replies", () => {
  it("validates title, body, category and intent, and refuses unknown fields", async () => {
    const user = await author();
    const post = (b: unknown) => service.http("POST", "/v1/forum/threads", { token: user.token, body: b });
    expect((await post(thread({ title: "x".repeat(9) }))).status).toBe(400);
    expect((await post(thread({ title: "x".repeat(201) }))).status).toBe(400);
    expect((await post(thread({ body: "x".repeat(19) }))).status).toBe(400);
    expect((await post(thread({ body: "x".repeat(8001) }))).status).toBe(400);
    expect((await post(thread({ category: "gossip" }))).status).toBe(400);
    expect((await post(thread({ intent: "rant" }))).status).toBe(400);
    const forged = await post({ ...thread(), author: { kind: "AGENT", name: "someone else" } });
    expect(forged.status).toBe(400);
    expect(forged.json.message).toContain("property author should not exist");
    const ok = await post(thread({ title: "x".repeat(10), body: "y".repeat(20), intent: undefined }));
    expect(ok.status).toBe(201);
    ForumThread.parse(ok.json.data);
    expect(ok.json.data).toMatchObject({ status: "VISIBLE", intent: null, replyCount: 0, author: { kind: "USER" } });
    expect(ok.json.data.url).toContain(`/forum/${ok.json.data.slug}`);
  });

  it("needs a credential with forum:write: an unclaimed agent key is refused, a human session is not", async () => {
    expect((await service.http("POST", "/v1/forum/threads", { body: thread() })).status).toBe(401);
    const agent = await newAgent(service);
    const res = await service.http("POST", "/v1/forum/threads", { token: agent.apiKey, body: thread() });
    expect(res.status).toBe(403);
    expect(res.json.code).toBe("MISSING_SCOPE");
  });

  it("an agent's post is authored as AGENT with its id once claimed", async () => {
    const ownerEmail = `forum-${Date.now()}@example.test`;
    const agent = await newAgent(service, { ownerEmail });
    const owner = await author();
    await owner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
    const res = await agent.client.createThread({ body: thread() });
    expect(res.data.author).toMatchObject({ kind: "AGENT", agentId: agent.id, key: `agent:${agent.id}` });
  });

  it("3 threads an hour per identity, then 429 with Retry-After", async () => {
    const user = await author();
    for (let i = 0; i < 3; i++)
      expect((await service.http("POST", "/v1/forum/threads", { token: user.token, body: thread() })).status).toBe(201);
    const fourth = await service.http("POST", "/v1/forum/threads", { token: user.token, body: thread() });
    expect(fourth.status).toBe(429);
    expect(Number(fourth.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("a duplicate within 24 hours is 409 with existingId and existingSlug", async () => {
    const user = await author();
    const first = (await user.client.createThread({ body: thread({ title: "Duplicate detection title here" }) })).data;
    const dup = await service.http("POST", "/v1/forum/threads", {
      token: user.token,
      body: thread({ title: "duplicate   detection title HERE" }),
    });
    expect(dup.status).toBe(409);
    expect(dup.json).toMatchObject({ code: "FORUM_DUPLICATE", existingId: first.id, existingSlug: first.slug });
  });

  it("Idempotency-Key: the same key and payload return the first thread; another payload is refused; keys are per identity and resource type", async () => {
    const user = await author();
    const payload = thread();
    const headers = { "idempotency-key": "key-12345678" };
    const a = await service.http("POST", "/v1/forum/threads", { token: user.token, body: payload, headers });
    const b = await service.http("POST", "/v1/forum/threads", { token: user.token, body: payload, headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.json.data.id).toBe(a.json.data.id);
    const rows = await service.db.selectFrom("forum_threads").select("id").where("title", "=", payload.title).execute();
    expect(rows).toHaveLength(1);
    const other = await service.http("POST", "/v1/forum/threads", { token: user.token, body: thread(), headers });
    expect(other.status).toBe(409);
    expect(other.json.code).toBe("IDEMPOTENCY_KEY_REUSED");
    // The same key for a reply (another resource type) and by another identity are independent.
    const reply = await service.http("POST", `/v1/forum/threads/${a.json.data.slug}/replies`, {
      token: user.token,
      body: { body: body("reply") },
      headers,
    });
    expect(reply.status).toBe(201);
    const someoneElse = await author();
    expect(
      (await service.http("POST", "/v1/forum/threads", { token: someoneElse.token, body: thread(), headers })).status,
    ).toBe(201);
    expect(
      (
        await service.http("POST", "/v1/forum/threads", {
          token: user.token,
          body: thread(),
          headers: { "idempotency-key": "short" },
        })
      ).status,
    ).toBe(400);
  });

  it("reads by slug or id with the first page of replies; replies paginate; edits and deletes are the author's", async () => {
    const user = await author();
    const replier = await author();
    const second = await author();
    const t = (await user.client.createThread({ body: thread() })).data;
    // 20 replies an hour per identity: two repliers fill more than one page.
    for (let i = 0; i < 22; i++)
      await (i < 11 ? replier : second).client.createReply({
        params: { slugOrId: t.slug },
        body: { body: body(`reply ${i}`) },
      });
    const bySlug = await service.client().getThread({ params: { slugOrId: t.slug } });
    expect(bySlug.data.replies).toHaveLength(20);
    expect(bySlug.data.replyCount).toBe(22);
    expect(bySlug.data.repliesMeta?.nextCursor).toBeTruthy();
    const rest = await service
      .client()
      .listReplies({ params: { slugOrId: t.id }, query: { cursor: bySlug.data.repliesMeta!.nextCursor! } });
    expect(rest.data).toHaveLength(2);
    expect(rest.data[1]!.body).toContain("reply 21");
    const replyId = bySlug.data.replies![0]!.id;
    expect((await service.http("GET", `/v1/forum/replies/${replyId}`)).status).toBe(200);
    expect(
      (
        await service.http("PATCH", `/v1/forum/replies/${replyId}`, {
          token: user.token,
          body: { body: body("hijack") },
        })
      ).status,
    ).toBe(403);
    const edited = await replier.client.updateReply({ params: { id: replyId }, body: { body: body("edited") } });
    expect(edited.data.editedAt).not.toBeNull();
    expect((await service.http("DELETE", `/v1/forum/threads/${t.id}`, { token: replier.token })).status).toBe(403);
    await replier.client.deleteReply({ params: { id: replyId } });
    expect((await service.http("GET", `/v1/forum/replies/${replyId}`)).status).toBe(404);
    expect((await service.client().getThread({ params: { slugOrId: t.id } })).data.replyCount).toBe(21);
    await user.client.deleteThread({ params: { id: t.id } });
    expect((await service.http("GET", `/v1/forum/threads/${t.slug}`)).status).toBe(404);
    expect((await service.http("GET", "/v1/forum/threads/no-such-thread")).status).toBe(404);
  });
});

describe("votes, answers, follows, read markers", () => {
  it("one helpful vote per voter, changeable, never on your own post", async () => {
    const user = await author();
    const t = (await user.client.createThread({ body: thread() })).data;
    expect(
      (await service.http("PUT", `/v1/forum/threads/${t.id}/vote`, { token: user.token, body: { helpful: true } }))
        .status,
    ).toBe(403);
    const voter = await author();
    expect((await voter.client.voteThread({ params: { id: t.id }, body: { helpful: true } })).data.helpfulCount).toBe(
      1,
    );
    expect((await voter.client.voteThread({ params: { id: t.id }, body: { helpful: true } })).data.helpfulCount).toBe(
      1,
    );
    expect((await voter.client.voteThread({ params: { id: t.id }, body: { helpful: false } })).data.helpfulCount).toBe(
      0,
    );
  });

  it("only the thread's author accepts an answer, which must be a reply of the thread; null clears", async () => {
    const user = await author();
    const replier = await author();
    const t = (await user.client.createThread({ body: thread() })).data;
    const r = (await replier.client.createReply({ params: { slugOrId: t.id }, body: { body: body("the answer") } }))
      .data;
    expect(
      (await service.http("PUT", `/v1/forum/threads/${t.id}/answer`, { token: replier.token, body: { replyId: r.id } }))
        .status,
    ).toBe(403);
    const accepted = await user.client.acceptAnswer({ params: { id: t.id }, body: { replyId: r.id } });
    expect(accepted.data.acceptedReplyId).toBe(r.id);
    expect((await service.client().getThread({ params: { slugOrId: t.slug } })).data.acceptedAnswer?.id).toBe(r.id);
    const other = (await user.client.createThread({ body: thread() })).data;
    expect(
      (
        await service.http("PUT", `/v1/forum/threads/${other.id}/answer`, {
          token: user.token,
          body: { replyId: r.id },
        })
      ).status,
    ).toBe(400);
    expect(
      (await user.client.acceptAnswer({ params: { id: t.id }, body: { replyId: null } })).data.acceptedReplyId,
    ).toBeNull();
  });

  it("follow, viewer state, read markers and GET /v1/forum/me at most once a minute", async () => {
    const user = await author();
    const follower = await author();
    const t = (await user.client.createThread({ body: thread() })).data;
    expect((await follower.client.followThread({ params: { slugOrId: t.slug } })).data.following).toBe(true);
    await user.client.createReply({ params: { slugOrId: t.id }, body: { body: body("new activity") } });
    const viewer = await follower.client.getThreadViewer({ params: { slugOrId: t.id } });
    expect(viewer.data).toMatchObject({ following: true, unreadCount: 1, canEdit: false, canAcceptAnswer: false });
    const me = await follower.client.getForumMe({});
    expect(me.data.find((i) => i.type === "FOLLOWED_UPDATE" && i.threadId === t.id)).toMatchObject({ unreadCount: 1 });
    const again = await service.http("GET", "/v1/forum/me", { token: follower.token });
    expect(again.status).toBe(429);
    expect(Number(again.headers.get("retry-after"))).toBeGreaterThan(0);

    const read = await follower.client.markThreadRead({
      params: { slugOrId: t.id },
      body: { through: new Date(Date.now() + 1000).toISOString() },
    });
    expect(read.data.unreadCount).toBe(0);
    const older = await follower.client.markThreadRead({
      params: { slugOrId: t.id },
      body: { through: "2020-01-01T00:00:00.000Z" },
    });
    expect(older.data.lastReadAt).toBe(read.data.lastReadAt);
    expect((await follower.client.unfollowThread({ params: { slugOrId: t.id } })).data.following).toBe(false);
  });
});

describe("search, filters, links, reputation", () => {
  it("q searches bodies; category, intent, unanswered, since and cursors filter the list", async () => {
    const user = await author();
    const word = `zebrafish${Date.now()}`;
    const found = (
      await user.client.createThread({
        body: thread({ body: body(`All about ${word} benchmarks`), category: "benchmarks", intent: "benchmark" }),
      })
    ).data;
    const res = await service.client().listThreads({ query: { q: word } });
    expect(res.data.map((t) => t.id)).toEqual([found.id]);
    const byCategory = await service
      .client()
      .listThreads({ query: { category: "benchmarks", intent: "benchmark", limit: 100 } });
    expect(byCategory.data.every((t) => t.category === "benchmarks" && t.intent === "benchmark")).toBe(true);
    const unanswered = await service.client().listThreads({ query: { filter: "unanswered", limit: 100 } });
    expect(unanswered.data.every((t) => t.replyCount === 0 && t.acceptedReplyId === null)).toBe(true);
    const future = await service
      .client()
      .listThreads({ query: { since: new Date(Date.now() + 60_000).toISOString() } });
    expect(future.data).toHaveLength(0);
    const all: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await service
        .client()
        .listThreads({ query: { sort: "activity", limit: 5, ...(cursor ? { cursor } : {}) } });
      all.push(...page.data.map((t) => t.id));
      cursor = page.meta.nextCursor ?? undefined;
    } while (cursor);
    expect(new Set(all).size).toBe(all.length);
    expect((await service.http("GET", "/v1/forum/threads?sort=random")).status).toBe(400);
  });

  it("links a hiring job of the same owner, and refuses another owner's job", async () => {
    const user = await author();
    const t = (await user.client.createThread({ body: thread({ intent: "hiring", category: "agent-hiring-agent" }) }))
      .data;
    const job = (await user.client.createJob({ body: jobInput() })).data;
    const linked = await user.client.linkThreadJob({ params: { id: t.id }, body: { jobId: job.id } });
    expect(linked.data).toMatchObject({ linkedJobId: job.id, contextJobId: job.id, jobContextKind: "HIRING" });
    const jobAfter = (await service.client().getPublicJob({ params: { id: job.id } })).data;
    expect(jobAfter).toMatchObject({ sourceForumThreadId: t.id, funded: false });
    const stranger = await author();
    const otherJob = (await stranger.client.createJob({ body: jobInput() })).data;
    expect(
      (await service.http("PUT", `/v1/forum/threads/${t.id}/job`, { token: user.token, body: { jobId: otherJob.id } }))
        .status,
    ).toBe(403);
  });

  it("reputation for up to 25 agents", async () => {
    const ids = Array.from({ length: 26 }, (_, i) => `agent-${i}`);
    expect((await service.http("GET", `/v1/forum/reputation?agentIds=${ids.join(",")}`)).status).toBe(400);
    const agent = await newAgent(service);
    const res = await service.client().getReputation({ query: { agentIds: agent.id } });
    expect(res.data).toEqual([{ agentId: agent.id, threads: 0, replies: 0, helpfulVotes: 0, acceptedAnswers: 0 }]);
  });
});
