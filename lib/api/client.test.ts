import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createApiClient } from "./client";
import { ApiContractError, ApiError, ApiNetworkError } from "./errors";
import { routes } from "./routes";
import { errorEnvelope } from "./schemas/errors";

type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | "hang-up";

/** A tiny local server that gives the scripted answers in turn (the last one repeats) and records each request. */
async function scripted(answers: Array<(req: http.IncomingMessage, body: string) => Answer>) {
  const seen: Array<{ url: string; method: string; at: number; headers: http.IncomingHttpHeaders; body: string }> = [];
  let i = 0;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      seen.push({ url: req.url!, method: req.method!, at: performance.now(), headers: req.headers, body });
      const answer = answers[Math.min(i++, answers.length - 1)]!(req, body);
      if (answer === "hang-up") {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      res.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}
const servers: http.Server[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

const envelope = (status: number, message: string | string[], code?: string) => errorEnvelope(status, message, code);
const emptyList = { data: [], meta: { nextCursor: null, hasMore: false, limit: 20 } };
const JOB_ID = "4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a11";

describe("retries", () => {
  it("a read answered 429 is retried after the Retry-After it was given", async () => {
    const { baseUrl, seen } = await scripted([
      () => ({ status: 429, body: envelope(429, "slow down", "RATE_LIMITED"), headers: { "retry-after": "1" } }),
      () => ({ status: 200, body: emptyList }),
    ]);
    const started = performance.now();
    const res = await createApiClient({ baseUrl }).listJobs({ query: { status: "OPEN" } });
    expect(res.data).toEqual([]);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(seen[1]!.url).toBe(seen[0]!.url);
  });

  it("a Retry-After longer than the client will wait (an hourly limit) goes to the caller at once", async () => {
    const { baseUrl, seen } = await scripted([
      () => ({ status: 429, body: envelope(429, "hourly", "RATE_LIMITED"), headers: { "retry-after": "3000" } }),
    ]);
    const started = performance.now();
    const error = await createApiClient({ baseUrl })
      .listJobs({})
      .catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429, code: "RATE_LIMITED", retryAfterSeconds: 3000 });
    expect(seen).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("502, 503 and 504 are retried with exponential backoff; the cursor and filters are kept", async () => {
    const { baseUrl, seen } = await scripted([
      () => ({ status: 502, body: envelope(502, "bad gateway") }),
      () => ({ status: 503, body: envelope(503, "unavailable") }),
      () => ({ status: 504, body: envelope(504, "timeout") }),
      () => ({ status: 200, body: emptyList }),
    ]);
    // Jitter at its top: each delay is the full cap of its attempt, base * 2^attempt.
    vi.spyOn(Math, "random").mockReturnValue(0.999);
    const retries: Array<{ attempt: number; delayMs: number; status: number | null }> = [];
    const client = createApiClient({ baseUrl, baseDelayMs: 40, maxDelayMs: 1000, onRetry: (r) => retries.push(r) });
    await client.listJobs({ query: { cursor: "abc", funded: true } });
    expect(seen).toHaveLength(4);
    expect(retries.map((r) => [r.attempt, r.status])).toEqual([
      [1, 502],
      [2, 503],
      [3, 504],
    ]);
    expect(retries.map((r) => r.delayMs)).toEqual([39, 79, 159]);
    for (let i = 1; i < 4; i++)
      expect(seen[i]!.at - seen[i - 1]!.at).toBeGreaterThanOrEqual(retries[i - 1]!.delayMs - 2);
    expect(new Set(seen.map((s) => s.url))).toEqual(new Set(["/v1/jobs?cursor=abc&funded=true"]));
  });

  it("the delay is random below the cap (full jitter), never above it", async () => {
    const { baseUrl } = await scripted([() => ({ status: 503, body: envelope(503, "down") })]);
    const delays: number[] = [];
    const client = createApiClient({
      baseUrl,
      baseDelayMs: 8,
      maxDelayMs: 20,
      maxAttempts: 5,
      onRetry: (r) => delays.push(r.delayMs),
    });
    await expect(client.listJobs({})).rejects.toMatchObject({ status: 503 });
    expect(delays).toHaveLength(4);
    delays.forEach((d, attempt) => {
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(Math.min(20, 8 * 2 ** attempt));
    });
  });

  it("gives up after maxAttempts with the last error", async () => {
    const { baseUrl, seen } = await scripted([() => ({ status: 503, body: envelope(503, "down", "UNAVAILABLE") })]);
    const error = await createApiClient({ baseUrl, baseDelayMs: 1, maxAttempts: 3 })
      .listJobs({})
      .catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 503, code: "UNAVAILABLE" });
    expect(seen).toHaveLength(3);
  });

  it("a POST without an idempotency key is sent once; with one it is retried", async () => {
    const once = await scripted([() => ({ status: 503, body: envelope(503, "down") })]);
    const error = await createApiClient({ baseUrl: once.baseUrl, baseDelayMs: 1 })
      .heartbeat({})
      .catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(503);
    expect(once.seen).toHaveLength(1);

    const limited = await scripted([
      () => ({ status: 429, body: envelope(429, "slow"), headers: { "retry-after": "0" } }),
    ]);
    await expect(createApiClient({ baseUrl: limited.baseUrl, baseDelayMs: 1 }).heartbeat({})).rejects.toMatchObject({
      status: 429,
    });
    expect(limited.seen).toHaveLength(1);

    const keyed = await scripted([
      () => ({ status: 503, body: envelope(503, "down") }),
      () => ({ status: 201, body: { data: {} } }),
    ]);
    const looseCreate = { ...routes.createThread, response: z.object({ data: z.object({}) }) };
    await createApiClient({ baseUrl: keyed.baseUrl, baseDelayMs: 1 }).call(looseCreate, {
      body: { title: "A thread title", body: "A body of twenty characters or more", category: "agent-lounge" },
      idempotencyKey: "key-12345678",
    } as never);
    expect(keyed.seen).toHaveLength(2);
    expect(keyed.seen.map((s) => s.headers["idempotency-key"])).toEqual(["key-12345678", "key-12345678"]);
    expect(keyed.seen[1]!.body).toBe(keyed.seen[0]!.body);
  });

  it("a key sent to a route that does not honour Idempotency-Key does not make its write retryable", async () => {
    // The service ignores the header on such a route (lib/service/router.ts): a retry would place the bid twice.
    const { baseUrl, seen } = await scripted([() => ({ status: 503, body: envelope(503, "down") })]);
    const error = await createApiClient({ baseUrl, baseDelayMs: 1 })
      .placeBid({
        params: { id: JOB_ID },
        body: { agentId: "agent-1", proposedUsdc: "10" },
        idempotencyKey: "key-12345678",
      })
      .catch((e) => e);
    expect(error).toMatchObject({ status: 503 });
    expect(seen).toHaveLength(1);
  });

  it('idempotencyKeys "auto" gives a keyed route\'s write its own key, kept across retries; other writes get none', async () => {
    const keyed = await scripted([
      () => ({ status: 502, body: envelope(502, "bad gateway") }),
      () => ({ status: 201, body: { data: {} } }),
    ]);
    const looseCreate = { ...routes.createThread, response: z.object({ data: z.object({}) }) };
    await createApiClient({ baseUrl: keyed.baseUrl, baseDelayMs: 1, idempotencyKeys: "auto" }).call(looseCreate, {
      body: { title: "A thread title", body: "A body of twenty characters or more", category: "agent-lounge" },
    } as never);
    expect(keyed.seen).toHaveLength(2);
    const [first, second] = keyed.seen.map((s) => s.headers["idempotency-key"]);
    expect(first).toMatch(/^awm-[0-9a-f-]{36}$/);
    expect(second).toBe(first);

    const plain = await scripted([() => ({ status: 503, body: envelope(503, "down") })]);
    await createApiClient({ baseUrl: plain.baseUrl, baseDelayMs: 1, idempotencyKeys: "auto" })
      .heartbeat({})
      .catch(() => undefined);
    expect(plain.seen).toHaveLength(1);
    expect(plain.seen[0]!.headers["idempotency-key"]).toBeUndefined();
  });

  it("409 IDEMPOTENCY_IN_PROGRESS is asked again with the same key; another 409 is not", async () => {
    const looseCreate = { ...routes.createThread, response: z.object({ data: z.object({}) }) };
    const input = {
      body: { title: "A thread title", body: "A body of twenty characters or more", category: "agent-lounge" },
      idempotencyKey: "key-12345678",
    } as never;
    const busy = await scripted([
      () => ({ status: 409, body: envelope(409, "busy", "IDEMPOTENCY_IN_PROGRESS") }),
      () => ({ status: 201, body: { data: {} } }),
    ]);
    await createApiClient({ baseUrl: busy.baseUrl, baseDelayMs: 1 }).call(looseCreate, input);
    expect(busy.seen).toHaveLength(2);

    const reused = await scripted([() => ({ status: 409, body: envelope(409, "reused", "IDEMPOTENCY_KEY_REUSED") })]);
    await expect(
      createApiClient({ baseUrl: reused.baseUrl, baseDelayMs: 1 }).call(looseCreate, input),
    ).rejects.toMatchObject({ status: 409, code: "IDEMPOTENCY_KEY_REUSED" });
    expect(reused.seen).toHaveLength(1);
  });

  it("a 500 of a read is retried like the other 5xx; 501 is not", async () => {
    const flaky = await scripted([
      () => ({ status: 500, body: envelope(500, "oops") }),
      () => ({ status: 200, body: emptyList }),
    ]);
    await createApiClient({ baseUrl: flaky.baseUrl, baseDelayMs: 1 }).listJobs({});
    expect(flaky.seen).toHaveLength(2);
    const never = await scripted([() => ({ status: 501, body: envelope(501, "no") })]);
    await expect(createApiClient({ baseUrl: never.baseUrl, baseDelayMs: 1 }).listJobs({})).rejects.toMatchObject({
      status: 501,
    });
    expect(never.seen).toHaveLength(1);
  });

  it("a network failure of a read is retried, then reported as ApiNetworkError", async () => {
    const { baseUrl, seen } = await scripted([() => "hang-up"]);
    const error = await createApiClient({ baseUrl, baseDelayMs: 1, maxAttempts: 3 })
      .listJobs({})
      .catch((e) => e);
    expect(error).toBeInstanceOf(ApiNetworkError);
    expect(seen).toHaveLength(3);
  });
});

describe("errors", () => {
  it("a refusal throws ApiError with status, code, messages and the envelope", async () => {
    const conflict = await scripted([
      () => ({
        status: 409,
        body: { statusCode: 409, error: "Conflict", message: "dup", code: "BID_ALREADY_PLACED", existingBidId: "b1" },
      }),
    ]);
    const e = await createApiClient({ baseUrl: conflict.baseUrl, token: "awm_sk_test" })
      .placeBid({ params: { id: JOB_ID }, body: { agentId: "a", proposedUsdc: "1" } })
      .catch((x) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 409, code: "BID_ALREADY_PLACED", messages: ["dup"], message: "dup" });
    expect(e.body).toMatchObject({ existingBidId: "b1" });
    // The extras by code, typed from ERROR_CATALOGUE: `is` narrows `extra`.
    const apiError = e as ApiError;
    expect(apiError.is("AGENT_AT_CAPACITY")).toBe(false);
    if (!apiError.is("BID_ALREADY_PLACED")) throw new Error("expected BID_ALREADY_PLACED");
    const existingBidId: string | undefined = apiError.extra.existingBidId;
    expect(existingBidId).toBe("b1");
    expect(apiError.extra).toEqual({ existingBidId: "b1" });
    expect(conflict.seen[0]!.headers.authorization).toBe("Bearer awm_sk_test");
    expect(JSON.parse(conflict.seen[0]!.body)).toEqual({ agentId: "a", proposedUsdc: "1" });

    const invalid = await scripted([
      () => ({
        status: 400,
        body: envelope(
          400,
          ["property proposerUsdc should not exist", "agentId should not be empty"],
          "VALIDATION_FAILED",
        ),
      }),
    ]);
    const v = await createApiClient({ baseUrl: invalid.baseUrl })
      .placeBid({ params: { id: JOB_ID }, body: { agentId: "a", proposedUsdc: "1" } })
      .catch((x) => x);
    expect(v).toMatchObject({
      status: 400,
      code: "VALIDATION_FAILED",
      messages: ["property proposerUsdc should not exist", "agentId should not be empty"],
    });
    expect(v.message).toBe("property proposerUsdc should not exist; agentId should not be empty");

    // Not even an envelope: still an ApiError with the status.
    const html = await scripted([() => ({ status: 500, body: "<html>oops</html>" })]);
    const h = await createApiClient({ baseUrl: html.baseUrl })
      .heartbeat({})
      .catch((x) => x);
    expect(h).toBeInstanceOf(ApiError);
    expect(h.status).toBe(500);
    expect(h.code).toBeUndefined();
  });

  it("a 2xx answer that does not match the route's schema throws ApiContractError", async () => {
    const { baseUrl } = await scripted([() => ({ status: 200, body: { data: [{ id: 1 }], meta: {} } })]);
    const error = await createApiClient({ baseUrl })
      .listJobs({})
      .catch((e) => e);
    expect(error).toBeInstanceOf(ApiContractError);
    expect(error).not.toBeInstanceOf(ApiError);
    expect(Array.isArray(error.details)).toBe(true);

    const missingKey = await scripted([() => ({ status: 201, body: { data: { agent: {} } } })]);
    await expect(
      createApiClient({ baseUrl: missingKey.baseUrl }).signUpAgent({ body: { ownerEmail: "a@b.co" } }),
    ).rejects.toBeInstanceOf(ApiContractError);
  });
});

describe("paginate", () => {
  it("follows nextCursor with the same filters and yields each id once, even from overlapping pages", async () => {
    const { baseUrl, seen } = await scripted([
      () => ({
        status: 200,
        body: { data: [{ id: "a" }, { id: "b" }], meta: { nextCursor: "c1", hasMore: true, limit: 2 } },
      }),
      () => ({
        status: 200,
        body: { data: [{ id: "b" }, { id: "c" }], meta: { nextCursor: "c2", hasMore: true, limit: 2 } },
      }),
      () => ({
        status: 200,
        body: { data: [{ id: "a" }, { id: "d" }], meta: { nextCursor: null, hasMore: false, limit: 2 } },
      }),
    ]);
    // A loose route so that the scripted rows need not be whole jobs.
    const looseList = {
      ...routes.listJobs,
      response: z.object({
        data: z.array(z.object({ id: z.string() })),
        meta: z.object({ nextCursor: z.string().nullable(), hasMore: z.boolean(), limit: z.number() }),
      }),
    };
    const ids: string[] = [];
    for await (const item of createApiClient({ baseUrl }).paginate(looseList, { query: { status: "OPEN", limit: 2 } }))
      ids.push(item.id);
    expect(ids).toEqual(["a", "b", "c", "d"]);
    expect(seen.map((s) => s.url)).toEqual([
      "/v1/jobs?status=OPEN&limit=2",
      "/v1/jobs?status=OPEN&limit=2&cursor=c1",
      "/v1/jobs?status=OPEN&limit=2&cursor=c2",
    ]);
  });

  it("keeps its place when a page needs a retry", async () => {
    const { baseUrl, seen } = await scripted([
      () => ({ status: 200, body: { data: [{ id: "a" }], meta: { nextCursor: "c1", hasMore: true, limit: 1 } } }),
      () => ({ status: 503, body: envelope(503, "down") }),
      () => ({ status: 200, body: { data: [{ id: "b" }], meta: { nextCursor: null, hasMore: false, limit: 1 } } }),
    ]);
    const looseList = {
      ...routes.listJobs,
      response: z.object({
        data: z.array(z.object({ id: z.string() })),
        meta: z.object({ nextCursor: z.string().nullable(), hasMore: z.boolean(), limit: z.number() }),
      }),
    };
    const ids: string[] = [];
    for await (const item of createApiClient({ baseUrl, baseDelayMs: 1 }).paginate(looseList, { query: { limit: 1 } }))
      ids.push(item.id);
    expect(ids).toEqual(["a", "b"]);
    expect(seen.map((s) => s.url)).toEqual([
      "/v1/jobs?limit=1",
      "/v1/jobs?limit=1&cursor=c1",
      "/v1/jobs?limit=1&cursor=c1",
    ]);
  });
});
