import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createApiClient } from "./client";
import { ApiContractError, ApiError } from "./errors";
import { routes } from "./routes";

// A scripted server: each request takes the next answer from the list.
async function scripted(answers: Array<(req: http.IncomingMessage) => { status: number; body?: unknown; headers?: Record<string, string> }>) {
  const seen: Array<{ url: string; method: string; at: number }> = [];
  let i = 0;
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url!, method: req.method!, at: Date.now() });
    const answer = answers[Math.min(i++, answers.length - 1)]!(req);
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    res.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  servers.push(server);
  return { baseUrl, seen };
}
const servers: http.Server[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.close()));

const envelope = (status: number, message: string, code?: string) => ({ statusCode: status, error: "Error", message, ...(code ? { code } : {}) });
const emptyList = { data: [], meta: { nextCursor: null, hasMore: false, limit: 20 } };

describe("createApiClient", () => {
  it("retries a read on 429 after the Retry-After it was given", async () => {
    const { baseUrl, seen } = await scripted([
      () => ({ status: 429, body: envelope(429, "slow down", "RATE_LIMITED"), headers: { "retry-after": "1" } }),
      () => ({ status: 200, body: emptyList }),
    ]);
    const client = createApiClient({ baseUrl });
    const res = await client.listJobs({});
    expect(res.data).toEqual([]);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  it("does not wait for a Retry-After longer than it is willing to (an hourly limit): the caller gets the 429", async () => {
    const { baseUrl, seen } = await scripted([() => ({ status: 429, body: envelope(429, "hourly", "RATE_LIMITED"), headers: { "retry-after": "3000" } })]);
    const error = await createApiClient({ baseUrl }).listJobs({}).catch((e) => e);
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 3000 });
    expect(seen).toHaveLength(1);
  });

  it("retries 502, 503 and 504 with backoff, then gives up with the last error", async () => {
    const { baseUrl, seen } = await scripted([
      () => ({ status: 502, body: envelope(502, "bad gateway") }),
      () => ({ status: 503, body: envelope(503, "unavailable") }),
      () => ({ status: 504, body: envelope(504, "timeout") }),
      () => ({ status: 200, body: emptyList }),
    ]);
    const retries: number[] = [];
    const client = createApiClient({ baseUrl, baseDelayMs: 5, onRetry: (r) => retries.push(r.status ?? 0) });
    await client.listJobs({});
    expect(seen).toHaveLength(4);
    expect(retries).toEqual([502, 503, 504]);

    const failing = await scripted([() => ({ status: 503, body: envelope(503, "down") })]);
    const giveUp = createApiClient({ baseUrl: failing.baseUrl, baseDelayMs: 1, maxAttempts: 3 });
    await expect(giveUp.listJobs({})).rejects.toMatchObject({ status: 503 });
    expect(failing.seen).toHaveLength(3);
  });

  it("keeps the cursor when it retries a page", async () => {
    const { baseUrl, seen } = await scripted([
      () => ({ status: 503, body: envelope(503, "down") }),
      () => ({ status: 200, body: emptyList }),
    ]);
    await createApiClient({ baseUrl, baseDelayMs: 1 }).listJobs({ query: { cursor: "abc", funded: true } });
    expect(seen.map((s) => s.url)).toEqual(["/v1/jobs?cursor=abc&funded=true", "/v1/jobs?cursor=abc&funded=true"]);
  });

  it("does not retry a write without an idempotency key, and throws a typed error", async () => {
    const { baseUrl, seen } = await scripted([() => ({ status: 503, body: envelope(503, "down") })]);
    const client = createApiClient({ baseUrl, baseDelayMs: 1 });
    const error = await client.heartbeat({}).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(seen).toHaveLength(1);

    const conflict = await scripted([() => ({ status: 409, body: { statusCode: 409, error: "Conflict", message: "dup", code: "BID_ALREADY_PLACED" } })]);
    const e2 = await createApiClient({ baseUrl: conflict.baseUrl }).placeBid({ params: { id: "4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a11" }, body: { agentId: "a", proposedUsdc: "1" } }).catch((e) => e);
    expect(e2).toMatchObject({ status: 409, code: "BID_ALREADY_PLACED", messages: ["dup"] });
  });

  it("throws ApiContractError when a response does not match the contract", async () => {
    const { baseUrl } = await scripted([() => ({ status: 200, body: { data: [{ id: 1 }], meta: {} } })]);
    await expect(createApiClient({ baseUrl }).listJobs({})).rejects.toBeInstanceOf(ApiContractError);
  });

  it("paginate follows nextCursor with the same filters and drops repeated ids", async () => {
    const job = (id: string) => ({ id });
    const pages: Record<string, unknown> = {};
    const { baseUrl, seen } = await scripted([
      () => ({ status: 200, body: { data: [job("a"), job("b")], meta: { nextCursor: "c1", hasMore: true, limit: 2 } } }),
      () => ({ status: 200, body: { data: [job("b"), job("c")], meta: { nextCursor: "c2", hasMore: true, limit: 2 } } }),
      () => ({ status: 200, body: { data: [job("d")], meta: { nextCursor: null, hasMore: false, limit: 2 } } }),
    ]);
    void pages;
    // A loose route so that the scripted rows need not be whole jobs.
    const { z } = await import("zod");
    const looseList = { ...routes.listJobs, response: z.object({ data: z.array(z.object({ id: z.string() })), meta: z.object({ nextCursor: z.string().nullable(), hasMore: z.boolean(), limit: z.number() }) }) };
    const ids: string[] = [];
    for await (const item of createApiClient({ baseUrl }).paginate(looseList as never, { query: { status: "OPEN", limit: 2 } } as never)) ids.push((item as { id: string }).id);
    expect(ids).toEqual(["a", "b", "c", "d"]);
    expect(seen.map((s) => s.url)).toEqual(["/v1/jobs?status=OPEN&limit=2", "/v1/jobs?status=OPEN&limit=2&cursor=c1", "/v1/jobs?status=OPEN&limit=2&cursor=c2"]);
  });
});
