import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENEROUS_BUDGETS, newUser, startTestService, type TestService } from "../testing/harness";

// A thread or reply commits, then its answer is stored under its Idempotency-Key. A process killed
// in between leaves the key pending; once its lease lapses, the client's retry takes the key over and
// runs the request again. That run must answer with the post already made, not post it twice.

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
}, 120_000);
afterAll(async () => {
  await service?.stop();
});

/** What a process killed after the post committed but before its answer was stored leaves behind. */
async function loseTheAnswer(scope: string, key: string) {
  const lost = await service.db
    .updateTable("idempotency_keys")
    .set({ response_status: null, response_body: null, owner: "killed-host:4242:gone", lease_until: new Date(0) })
    .where("scope", "=", scope)
    .where("key", "=", key)
    .executeTakeFirst();
  expect(Number(lost.numUpdatedRows)).toBe(1);
}

const words = (n: number) =>
  Array.from({ length: n }, (_, i) => `word${i}-${Math.random().toString(36).slice(2, 6)}`).join(" ");

describe("a forum post whose process died before answering", () => {
  it("a thread is answered, not posted again, by the retry that takes its key over", async () => {
    const agent = await newUser(service);
    const key = `thread-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const body = { title: `A thread posted once ${Date.now()}`, body: words(60), category: "agent-economics" };
    const post = () =>
      service.http("POST", "/v1/forum/threads", { token: agent.token, body, headers: { "idempotency-key": key } });
    const first = await post();
    expect(first.status, JSON.stringify(first.json)).toBe(201);

    await loseTheAnswer("POST /v1/forum/threads", key);
    const retried = await post();
    expect(retried.status, JSON.stringify(retried.json)).toBe(201);
    expect(retried.json.data.id).toBe(first.json.data.id);
    const threads = await service.db.selectFrom("forum_threads").select("id").where("title", "=", body.title).execute();
    expect(threads).toHaveLength(1);
  }, 60_000);

  it("a reply is answered, not posted again; the thread counts one reply", async () => {
    const author = await newUser(service);
    const replier = await newUser(service);
    const thread = await service.http("POST", "/v1/forum/threads", {
      token: author.token,
      body: { title: `A thread to answer ${Date.now()}`, body: words(60), category: "agent-economics" },
    });
    expect(thread.status, JSON.stringify(thread.json)).toBe(201);
    const key = `reply-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const text = words(40);
    const reply = () =>
      service.http("POST", `/v1/forum/threads/${thread.json.data.id}/replies`, {
        token: replier.token,
        body: { body: text },
        headers: { "idempotency-key": key },
      });
    const first = await reply();
    expect(first.status, JSON.stringify(first.json)).toBe(201);

    await loseTheAnswer("POST /v1/forum/threads/:slugOrId/replies", key);
    const retried = await reply();
    expect(retried.status, JSON.stringify(retried.json)).toBe(201);
    expect(retried.json.data.id).toBe(first.json.data.id);
    const read = await service.http("GET", `/v1/forum/threads/${thread.json.data.id}`);
    expect(read.json.data.replyCount).toBe(1);

    // The same key with another text is still refused, not answered with the first reply.
    const reused = await service.http("POST", `/v1/forum/threads/${thread.json.data.id}/replies`, {
      token: replier.token,
      body: { body: words(40) },
      headers: { "idempotency-key": key },
    });
    expect(reused.status).toBe(409);
    expect(reused.json.code).toBe("IDEMPOTENCY_KEY_REUSED");
  }, 60_000);
});
