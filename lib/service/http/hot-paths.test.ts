import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineRoute } from "@/lib/api/contract";
import { defaultServiceConfig } from "../config";
import { ServiceRouter } from "../router";
import { consumeBudget } from "./rate-limit";
import { GENEROUS_BUDGETS, jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";

describe("the board's anonymous first page, kept for a second", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ sharedCacheMs: 1000, rateBudgets: GENEROUS_BUDGETS });
  });
  afterAll(() => service.stop());

  it("carries ETag and Cache-Control; If-None-Match answers 304; a cursor or a credential is never shared", async () => {
    const first = await service.http("GET", "/v1/jobs?limit=5");
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get("cache-control")).toBe("public, max-age=1");
    expect(first.headers.get("vary")).toBe("Authorization");

    const again = await service.http("GET", "/v1/jobs?limit=5", { headers: { "if-none-match": etag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect((await service.http("GET", "/v1/jobs?limit=5", { headers: { "if-none-match": '"other"' } })).status).toBe(
      200,
    );

    const agent = await newAgent(service);
    const signedIn = await service.http("GET", "/v1/jobs?limit=5", { token: agent.apiKey });
    expect(signedIn.status).toBe(200);
    // A signed-in read is never the shared answer: its validator is the caller's own, kept private.
    expect(signedIn.headers.get("etag")).not.toBe(etag);
    expect(signedIn.headers.get("cache-control") ?? "").not.toMatch(/public/);

    const next = first.json.meta.nextCursor as string | null;
    if (next) {
      const page2 = await service.http("GET", `/v1/jobs?limit=5&cursor=${encodeURIComponent(next)}`);
      expect(page2.status).toBe(200);
      expect(page2.headers.get("cache-control") ?? "").not.toMatch(/public/);
    }
  });

  it("a new job shows on the anonymous first page once the second is over", async () => {
    // A first page of this poster's jobs alone: on PostgreSQL other suites post jobs into the same
    // database meanwhile, and could push this one off a page of everyone's.
    const poster = await newUser(service);
    const firstPage = `/v1/jobs?limit=20&status=OPEN&posterId=${poster.id}`;
    const before = await service.http("GET", firstPage);
    expect(before.status).toBe(200);
    expect(before.json.data).toEqual([]);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    await new Promise((r) => setTimeout(r, 1100));
    const after = await service.http("GET", firstPage);
    expect(after.json.data.map((j: { id: string }) => j.id)).toContain(job.id);
    expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"));
  });

  it("in its last fifth an answer is renewed in the background, so a reader after its second waits for no computation", async () => {
    // A 2-second answer (its last fifth: 400 ms) on a service of its own, for room on a loaded machine.
    const slow = await startTestService({ sharedCacheMs: 2000, rateBudgets: GENEROUS_BUDGETS });
    try {
      const poster = await newUser(slow);
      const firstPage = `/v1/jobs?limit=20&status=OPEN&posterId=${poster.id}`;
      const ids = async () => ((await slow.http("GET", firstPage)).json.data as Array<{ id: string }>).map((j) => j.id);
      const started = Date.now();
      expect(await ids()).toEqual([]);
      const early = (await poster.client.createJob({ body: jobInput() })).data;
      await new Promise((r) => setTimeout(r, Math.max(0, started + 1700 - Date.now())));
      // Still the first answer (it is valid for 300 ms more); this read starts the next one meanwhile.
      expect(await ids()).toEqual([]);
      await new Promise((r) => setTimeout(r, 200));
      const late = (await poster.client.createJob({ body: jobInput() })).data;
      await new Promise((r) => setTimeout(r, Math.max(0, started + 2300 - Date.now())));
      // Past the first answer's time: the answer renewed at 1.7 s, with the early job and not the late
      // one. Without the renewal this read would compute anew (and wait for it), showing both.
      const shown = await ids();
      expect(shown).toContain(early.id);
      expect(shown).not.toContain(late.id);
    } finally {
      await slow.stop();
    }
  });

  it("bad input is still refused before the cache (400), and budgets are still charged", async () => {
    expect((await service.http("GET", "/v1/jobs?limit=abc")).status).toBe(400);
    const tight = await startTestService({
      sharedCacheMs: 1000,
      rateBudgets: { publicReadsPerMinute: 2, authReadsPerMinute: 100, writesPerMinute: 100 },
    });
    try {
      const ip = "127.251.7.9";
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await tight.http("GET", "/v1/jobs?limit=3", { ip })).status);
      expect(statuses).toEqual([200, 200, 429, 429]);
    } finally {
      await tight.stop();
    }
  });
});

describe("response checking", () => {
  const route = defineRoute({
    method: "GET",
    path: "/v1/test-response",
    summary: "test",
    tag: "Test",
    auth: "none",
    budget: "none",
    response: z.object({ data: z.object({ id: z.string() }) }),
  });
  // `body` is the answer as built: the handler returns its `data`, which the router wraps.
  const routerWith = (rate: number, body: { data: unknown }) => {
    const router = new ServiceRouter({
      db: null as never,
      config: defaultServiceConfig({ responseCheckRate: rate }),
      now: () => new Date(),
    });
    router.implement(route, async () => body.data as never);
    return (path = "/v1/test-response") => router.app.request(path, {}, { clientIp: "127.0.0.1", forwarded: false });
  };

  it("in tests and development a field the schema would drop is a 500, so the tests catch it", async () => {
    expect((await routerWith(1, { data: { id: "a" } })()).status).toBe(200);
    const extra = await routerWith(1, { data: { id: "a", secret: "s" } })();
    expect(extra.status).toBe(500);
    expect(await extra.text()).not.toContain("secret");
    expect((await routerWith(1, { data: { id: 1 } })()).status).toBe(500);
  });

  it("in production (a sample rate) unchecked responses go out as built, and a sampled bad one is answered parsed", async () => {
    expect(await (await routerWith(0, { data: { id: "a" } })()).json()).toEqual({ data: { id: "a" } });
    const sampled = await routerWith(0.999999, { data: { id: "a", secret: "s" } })();
    expect(sampled.status).toBe(200);
    expect(await sampled.json()).toEqual({ data: { id: "a" } });
  });
});

describe("rate budget leases", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  it("let exactly `limit` requests of a window through, and the shared count holds them all", async () => {
    const bucket = `test:${Math.random()}`;
    let passed = 0;
    for (let i = 0; i < 150; i++) {
      try {
        await consumeBudget(service.ctx, bucket, 100, 60);
        passed += 1;
      } catch (error) {
        expect((error as { status?: number }).status).toBe(429);
      }
    }
    expect(passed).toBe(100);
    const row = await service.db
      .selectFrom("rate_limit_counters")
      .select("count")
      .where("bucket", "=", bucket)
      .executeTakeFirstOrThrow();
    // The shared count holds every lease taken: never less than what passed.
    expect(row.count).toBeGreaterThanOrEqual(100);
  });
});
