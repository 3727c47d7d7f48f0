import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newClientIp,
  startTestService,
  type TestService,
} from "../testing/harness";
import { MAX_JSON_DEPTH, refuseUnsafeText } from "./validation";
import { STREAM_LIMITS } from "./stream-slots";

// What a single client controls and the service bounds before it costs anything: how deep a body
// nests, how many streams one client holds, and what counts as one client for budgets (an IPv6 /64).

let service: TestService;
let limited: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
  limited = await startTestService({
    rateBudgets: { publicReadsPerMinute: 3, authReadsPerMinute: 3, writesPerMinute: 3 },
  });
});
afterAll(async () => {
  await service.stop();
  await limited.stop();
});

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("JSON bodies nest at most 32 levels", () => {
  it("20,000 nested arrays to the anonymous agent signup are a 400 BODY_TOO_DEEP (not a stack overflow's 500), and nothing is made", async () => {
    const res = await service.http("POST", "/v1/agent-signups", {
      rawBody: nested(20_000),
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: `the JSON body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
      code: "BODY_TOO_DEEP",
      maxDepth: MAX_JSON_DEPTH,
    });
    // As deep inside an object field, the same.
    const inField = await service.http("POST", "/v1/agent-signups", {
      rawBody: `{"ownerEmail":"deep@example.test","name":${nested(5_000)}}`,
      headers: { "content-type": "application/json" },
    });
    expect(inField.json.code).toBe("BODY_TOO_DEEP");
  });

  it("32 levels are read and judged on their content; brackets inside strings (escaped quotes too) do not count", async () => {
    const atLimit = await service.http("POST", "/v1/agent-signups", {
      rawBody: `{"name":${nested(MAX_JSON_DEPTH - 1)}}`,
      headers: { "content-type": "application/json" },
    });
    expect(atLimit.status).toBe(400);
    expect(atLimit.json.code).toBe("VALIDATION_FAILED");
    const over = await service.http("POST", "/v1/agent-signups", {
      rawBody: `{"name":${nested(MAX_JSON_DEPTH)}}`,
      headers: { "content-type": "application/json" },
    });
    expect(over.json.code).toBe("BODY_TOO_DEEP");
    const email = `brackets-${Date.now()}@example.test`;
    const inStrings = await service.http("POST", "/v1/agent-signups", {
      body: { ownerEmail: email, name: `[{"\\"${"[".repeat(40)}`, vertical: "RESEARCH" },
    });
    expect(inStrings.status, JSON.stringify(inStrings.json)).toBe(201);
  });

  it("the text check walks any depth without recursion, in time linear in the value", () => {
    let deep: unknown = "fine";
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(() => refuseUnsafeText(deep, "body")).not.toThrow();
    let bad: unknown = "bad\u0000";
    for (let i = 0; i < 3; i++) bad = { a: [bad] };
    expect(() => refuseUnsafeText(bad, "body")).toThrow(/a\.0\.a\.0\.a\.0 must not contain NUL/);
    const started = Date.now();
    let wide: unknown = "x";
    for (let i = 0; i < 20_000; i++) wide = { k: wide, s: "text" };
    refuseUnsafeText(wide, "body");
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

/** A fresh /64 per run, so budgets kept on a PostgreSQL database from an earlier run never meet this one. */
const freshV6Prefix = () =>
  `fd00:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}`;

describe("an IPv6 client is its /64", () => {
  it("addresses of one /64 share one rate budget; another /64 has its own", async () => {
    const prefix = freshV6Prefix();
    const statuses: number[] = [];
    for (let i = 1; i <= 4; i++)
      statuses.push(
        (
          await limited.http("GET", "/v1/jobs", {
            ip: `${prefix}::${i.toString(16)}:${randomBytes(2).toString("hex")}`,
          })
        ).status,
      );
    expect(statuses).toEqual([200, 200, 200, 429]);
    const other = await limited.http("GET", "/v1/jobs", { ip: `${freshV6Prefix()}::1` });
    expect(other.status).toBe(200);
  });
});

describe("event streams are capped per client", () => {
  let jobId: string;
  beforeAll(async () => {
    const poster = await newAgent(service);
    const job = await service.http("POST", "/v1/jobs", { token: poster.apiKey, body: jobInput() });
    expect(job.status).toBe(201);
    jobId = job.json.data.id;
  });

  async function open(ip: string, token?: string) {
    const controller = new AbortController();
    const headers: Record<string, string> = {
      "x-forwarded-for": ip,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    };
    const response = await fetch(`${service.baseUrl}/v1/jobs/${jobId}/stream`, { headers, signal: controller.signal });
    return { response, close: () => controller.abort() };
  }

  it(`${STREAM_LIMITS.perClient} streams per network address (an IPv6 /64 counts as one), then 429 TOO_MANY_STREAMS; a closed stream frees its slot`, async () => {
    const prefix = freshV6Prefix();
    const streams = [];
    for (let i = 0; i < STREAM_LIMITS.perClient; i++) streams.push(await open(`${prefix}::${(i + 1).toString(16)}`));
    expect(streams.map((s) => s.response.status)).toEqual(Array(STREAM_LIMITS.perClient).fill(200));
    const refused = await open(`${prefix}::ffff`);
    expect(refused.response.status).toBe(429);
    expect(refused.response.headers.get("retry-after")).toBe("30");
    expect(await refused.response.json()).toMatchObject({
      statusCode: 429,
      code: "TOO_MANY_STREAMS",
      limit: STREAM_LIMITS.perClient,
      retryAfter: 30,
    });
    // Another network is not affected.
    const elsewhere = await open(newClientIp());
    expect(elsewhere.response.status).toBe(200);
    elsewhere.close();

    streams.pop()!.close();
    let again = await open(`${prefix}::abcd`);
    for (let tries = 0; again.response.status === 429 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await open(`${prefix}::abcd`);
    }
    expect(again.response.status).toBe(200);
    again.close();
    for (const s of streams) s.close();
  });

  it(`${STREAM_LIMITS.perCredential} streams per credential, whatever the addresses`, async () => {
    const agent = await newAgent(service);
    const streams = [];
    for (let i = 0; i < STREAM_LIMITS.perCredential; i++) streams.push(await open(newClientIp(), agent.apiKey));
    expect(streams.every((s) => s.response.status === 200)).toBe(true);
    const refused = await open(newClientIp(), agent.apiKey);
    expect(refused.response.status).toBe(429);
    expect((await refused.response.json()).code).toBe("TOO_MANY_STREAMS");
    for (const s of streams) s.close();
  });

  it("an agent's own event stream counts against the same caps as the job streams", async () => {
    const agent = await newAgent(service);
    const streams = [];
    for (let i = 0; i < STREAM_LIMITS.perCredential; i++) streams.push(await open(newClientIp(), agent.apiKey));
    const controller = new AbortController();
    const feed = await fetch(`${service.baseUrl}/v1/agents/${agent.id}/events/stream`, {
      headers: { authorization: `Bearer ${agent.apiKey}` },
      signal: controller.signal,
    });
    expect(feed.status).toBe(429);
    expect((await feed.json()).code).toBe("TOO_MANY_STREAMS");
    for (const s of streams) s.close();
    controller.abort();
  });
});
