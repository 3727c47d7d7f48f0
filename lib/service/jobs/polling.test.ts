// The agent's polling path, on the HTTP surface: conditional requests on authenticated reads (ETag
// per caller and query, 304 while nothing changed), GET /v1/jobs?updatedAfter= (each change once,
// in the order made, none skipped by a transaction that commits late) and the short key cache
// (a revocation refused at once by every instance, one nobody announces within keyCacheMs).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { expectError } from "../testing/expect-error";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const post = async (token: string, overrides: Record<string, unknown> = {}) => {
  const res = await service.http("POST", "/v1/jobs", { token, body: jobInput(overrides) });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data as { id: string; updatedAt: string };
};
const bid = (agent: TestAgent, jobId: string) =>
  service.http("POST", `/v1/jobs/${jobId}/bids`, {
    token: agent.apiKey,
    body: { agentId: agent.id, proposedUsdc: "40" },
  });
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("conditional GET: ETag per caller and query, 304 while nothing changed", () => {
  let poster: TestUser;
  let agent: TestAgent;
  let other: TestAgent;
  let jobId: string;
  let url: string;
  beforeAll(async () => {
    poster = await newUser(service);
    agent = await newAgent(service);
    other = await newAgent(service);
    jobId = (await post(poster.token, { title: "Conditional poll job" })).id;
    await post(poster.token, { title: "Conditional poll job two" });
    url = `/v1/jobs?status=OPEN&posterId=${poster.id}&excludeBidBy=${agent.id}&limit=50`;
  });

  it("answers with a private ETag; If-None-Match with it gets 304 and no body", async () => {
    const first = await service.http("GET", url, { token: agent.apiKey });
    expect(first.status).toBe(200);
    expect(first.json.data).toHaveLength(2);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get("cache-control")).toBe("private, no-cache");
    expect(first.headers.get("vary")).toMatch(/authorization/i);

    const again = await service.http("GET", url, { token: agent.apiKey, headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.json).toBeNull();
    expect(again.headers.get("etag")).toBe(etag);
    // A list of validators, or the weak form of this one, matches too.
    expect(
      (await service.http("GET", url, { token: agent.apiKey, headers: { "if-none-match": `"other", W/${etag}` } }))
        .status,
    ).toBe(304);
  });

  it("a change by another party (the poster's edit, another agent's bid) changes it: 200 with the new page", async () => {
    const before = (await service.http("GET", url, { token: agent.apiKey })).headers.get("etag")!;
    const edited = await service.http("PATCH", `/v1/jobs/${jobId}`, {
      token: poster.token,
      body: { title: "Conditional poll job, edited" },
    });
    expect(edited.status, JSON.stringify(edited.json)).toBe(200);
    const afterEdit = await service.http("GET", url, { token: agent.apiKey, headers: { "if-none-match": before } });
    expect(afterEdit.status).toBe(200);
    expect(afterEdit.json.data.map((j: { title: string }) => j.title)).toContain("Conditional poll job, edited");
    const edit = afterEdit.headers.get("etag")!;
    expect(edit).not.toBe(before);

    expect((await bid(other, jobId)).status).toBe(201);
    const afterBid = await service.http("GET", url, { token: agent.apiKey, headers: { "if-none-match": edit } });
    expect(afterBid.status).toBe(200);
    expect(afterBid.json.data.find((j: { id: string }) => j.id === jobId).bidCount).toBe(1);
    expect(afterBid.headers.get("etag")).not.toBe(edit);

    // The caller's own bid takes the job off its excludeBidBy list: changed again.
    const mine = afterBid.headers.get("etag")!;
    expect((await bid(agent, jobId)).status).toBe(201);
    const afterOwn = await service.http("GET", url, { token: agent.apiKey, headers: { "if-none-match": mine } });
    expect(afterOwn.status).toBe(200);
    expect(afterOwn.json.data.map((j: { id: string }) => j.id)).not.toContain(jobId);
  });

  it("another caller, or another filter, gets another ETag and never a 304 for someone else's", async () => {
    const shared = `/v1/jobs?status=OPEN&posterId=${poster.id}&limit=50`;
    const mine = await service.http("GET", shared, { token: agent.apiKey });
    const theirs = await service.http("GET", shared, { token: other.apiKey });
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(200);
    // The same rows for both (neither posted them), yet a validator of each caller's own.
    expect(theirs.json).toEqual(mine.json);
    expect(theirs.headers.get("etag")).not.toBe(mine.headers.get("etag"));
    const crossed = await service.http("GET", shared, {
      token: other.apiKey,
      headers: { "if-none-match": mine.headers.get("etag")! },
    });
    expect(crossed.status).toBe(200);

    const narrower = await service.http("GET", shared.replace("limit=50", "limit=1"), { token: agent.apiKey });
    expect(narrower.status).toBe(200);
    expect(narrower.headers.get("etag")).not.toBe(mine.headers.get("etag"));
    expect(
      (
        await service.http("GET", `${shared}&funded=false`, {
          token: agent.apiKey,
          headers: { "if-none-match": mine.headers.get("etag")! },
        })
      ).status,
    ).toBe(200);
  });

  it("other reads are conditional too (a job's detail); writes never answer 304", async () => {
    const detail = await service.http("GET", `/v1/jobs/${jobId}`, { token: agent.apiKey });
    expect(detail.status).toBe(200);
    const etag = detail.headers.get("etag")!;
    expect(
      (await service.http("GET", `/v1/jobs/${jobId}`, { token: agent.apiKey, headers: { "if-none-match": etag } }))
        .status,
    ).toBe(304);
    const created = await service.http("POST", "/v1/jobs", {
      token: poster.token,
      body: jobInput(),
      headers: { "if-none-match": "*" },
    });
    expect(created.status).toBe(201);
  });
});

describe("GET /v1/jobs?updatedAfter=: each change once, in the order made", () => {
  it("lists jobs changed after the instant, oldest change first, paged by cursor; the next poll starts from the last one read", async () => {
    const poster = await newUser(service);
    const agent = await newAgent(service);
    const start = new Date(Date.now() - 1000).toISOString();
    const a = await post(poster.token, { title: "Changes A" });
    await tick();
    const b = await post(poster.token, { title: "Changes B" });
    await tick();
    const c = await post(poster.token, { title: "Changes C" });
    const poll = async (after: string, extra = "") => {
      const res = await service.http(
        "GET",
        `/v1/jobs?posterId=${poster.id}&updatedAfter=${encodeURIComponent(after)}${extra}`,
        { token: agent.apiKey },
      );
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return res.json as {
        data: Array<{ id: string; updatedAt: string; bidCount: number; title: string }>;
        meta: { nextCursor: string | null };
      };
    };

    const first = await poll(start, "&limit=2");
    expect(first.data.map((j) => j.id)).toEqual([a.id, b.id]);
    expect(first.meta.nextCursor).not.toBeNull();
    const second = await poll(start, `&limit=2&cursor=${first.meta.nextCursor}`);
    expect(second.data.map((j) => j.id)).toEqual([c.id]);
    expect(second.meta.nextCursor).toBeNull();
    const seen = second.data[0]!.updatedAt;
    // updatedAt is strictly after: the job read last is not listed again.
    expect((await poll(seen)).data).toEqual([]);
    expect((await poll(start)).data.map((j) => j.id)).toEqual([a.id, b.id, c.id]);

    // An edit of A and a bid on B are changes, listed in the order they were made.
    await tick();
    expect(
      (await service.http("PATCH", `/v1/jobs/${a.id}`, { token: poster.token, body: { title: "Changes A, edited" } }))
        .status,
    ).toBe(200);
    await tick();
    expect((await bid(agent, b.id)).status).toBe(201);
    const changed = await poll(seen);
    expect(changed.data.map((j) => j.id)).toEqual([a.id, b.id]);
    expect(changed.data[0]!.title).toBe("Changes A, edited");
    expect(changed.data[1]!.bidCount).toBe(1);
    expect(changed.data[0]!.updatedAt > seen).toBe(true);
    // The board's other filters still apply: the agent's own bid takes B off its excludeBidBy poll.
    expect((await poll(seen, `&excludeBidBy=${agent.id}`)).data.map((j) => j.id)).toEqual([a.id]);
    expect((await poll(changed.data[1]!.updatedAt)).data).toEqual([]);
  });

  it("refuses a sort beside it, a malformed instant and a cursor of another order: 400", async () => {
    const agent = await newAgent(service);
    const at = encodeURIComponent(new Date().toISOString());
    expectError(
      await service.http("GET", `/v1/jobs?updatedAfter=${at}&sort=newest`, { token: agent.apiKey }),
      400,
      "VALIDATION_FAILED",
    );
    expectError(
      await service.http("GET", "/v1/jobs?updatedAfter=yesterday", { token: agent.apiKey }),
      400,
      "VALIDATION_FAILED",
    );
    const newest = await service.http("GET", "/v1/jobs?limit=1", { token: agent.apiKey });
    const cursor = newest.json.meta.nextCursor as string | null;
    if (cursor)
      expectError(
        await service.http("GET", `/v1/jobs?updatedAfter=${at}&cursor=${cursor}`, { token: agent.apiKey }),
        400,
        "VALIDATION_FAILED",
      );
  });

  // A change written by a transaction that commits after a later change must not be skipped by a
  // poller that has moved past the later one. PostgreSQL only: PGlite has one connection, so no
  // transaction is ever open beside a request.
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "a change whose transaction is still open holds back later ones until it commits",
    async () => {
      const poster = await newUser(service);
      const agent = await newAgent(service);
      const early = await post(poster.token, { title: "Horizon early" });
      const late = await post(poster.token, { title: "Horizon late" });
      const seen = late.updatedAt > early.updatedAt ? late.updatedAt : early.updatedAt;
      const poll = async () => {
        const res = await service.http(
          "GET",
          `/v1/jobs?posterId=${poster.id}&updatedAfter=${encodeURIComponent(seen)}`,
          { token: agent.apiKey },
        );
        expect(res.status).toBe(200);
        return (res.json.data as Array<{ id: string; title: string }>).map((j) => j.title);
      };
      const writer = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await writer.connect();
      try {
        await tick();
        await writer.query("begin");
        await writer.query("update jobs set title = 'Horizon early, slow edit' where id = $1", [early.id]);
        await tick();
        // A later change commits first.
        expect(
          (
            await service.http("PATCH", `/v1/jobs/${late.id}`, {
              token: poster.token,
              body: { title: "Horizon late, quick edit" },
            })
          ).status,
        ).toBe(200);
        // Listing the quick edit now would move the poller past the slow one: neither is listed yet.
        expect(await poll()).toEqual([]);
        await writer.query("commit");
        expect(await poll()).toEqual(["Horizon early, slow edit", "Horizon late, quick edit"]);
      } finally {
        await writer.end();
      }
    },
  );
});

describe("the key cache: revocation respected", () => {
  let cached: TestService;
  beforeAll(async () => {
    cached = await startTestService({ keyCacheMs: 1000 });
  });
  afterAll(() => cached.stop());

  const mint = async (agent: TestAgent) => {
    const res = await cached.http("POST", `/v1/agents/${agent.id}/keys`, {
      token: agent.apiKey,
      body: { name: "polling" },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    return { id: res.json.data.key.id as string, secret: res.json.data.secret as string };
  };

  it("the process that revokes a key refuses it on its very next request", async () => {
    const agent = await newAgent(cached);
    const key = await mint(agent);
    expect((await cached.http("GET", "/v1/jobs?limit=1", { token: key.secret })).status).toBe(200);
    expect((await cached.http("DELETE", `/v1/agents/${agent.id}/keys/${key.id}`, { token: agent.apiKey })).status).toBe(
      200,
    );
    expectError(await cached.http("GET", "/v1/jobs?limit=1", { token: key.secret }), 401, "KEY_REVOKED");
  });

  it("a revocation nobody announces (straight in the database) is refused within keyCacheMs", async () => {
    const agent = await newAgent(cached);
    const key = await mint(agent);
    expect((await cached.http("GET", "/v1/jobs?limit=1", { token: key.secret })).status).toBe(200);
    // Keys are kept only while the instance hears of key changes on its bus (auth/key-cache.test.ts).
    for (let i = 0; i < 200 && !cached.ctx.streams?.bus.stats().listening; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await cached.http("GET", "/v1/jobs?limit=1", { token: key.secret })).status).toBe(200);
    const revokedAt = Date.now();
    await cached.db.updateTable("api_keys").set({ revoked_at: new Date() }).where("id", "=", key.id).execute();
    // This process heard nothing of it: its copy of the key still serves (the stated bound)…
    expect((await cached.http("GET", "/v1/jobs?limit=1", { token: key.secret })).status).toBe(200);
    // Kept for at most a second: refused once that has passed, whatever this process kept.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, revokedAt + 1050 - Date.now())));
    expectError(await cached.http("GET", "/v1/jobs?limit=1", { token: key.secret }), 401, "KEY_REVOKED");
  });

  it("an unknown key is never kept: a key is refused until it exists, then accepted", async () => {
    const agent = await newAgent(cached);
    expectError(
      await cached.http("GET", "/v1/jobs?limit=1", { token: `${agent.apiKey}x` }),
      401,
      "INVALID_CREDENTIALS",
    );
    expect((await cached.http("GET", "/v1/jobs?limit=1", { token: agent.apiKey })).status).toBe(200);
  });
});
