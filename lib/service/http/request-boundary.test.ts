import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newClientIp,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { sendEndlessBody } from "../testing/endless-body";
import { encodeCursor } from "./pagination";
import { MAX_BODY_BYTES } from "../router";
import { DRAIN_BYTES } from "@/lib/net/request-body.mjs";

// What every request passes before domain code runs (lib/service/router.ts): the body limit,
// text that PostgreSQL cannot store, malformed paths and cursors, and the budget of callers whose
// credential is refused.

let service: TestService;
let limited: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
  // Small budgets, so that a key-guessing burst runs out quickly.
  limited = await startTestService({
    rateBudgets: { publicReadsPerMinute: 6, authReadsPerMinute: 6, writesPerMinute: 4 },
  });
});
afterAll(async () => {
  await service.stop();
  await limited.stop();
});

// ── Body limit ─────────────────────────────────────────────────────────────────────────────────

// Both ways a body is read (router.ts, readJsonBody): from Node's request, as scripts/server.mjs
// hands it over, and from the Request's stream, as Next's /v1 route does.
describe.each([
  ["from Node's request", false],
  ["from the Request's stream (Next's route)", true],
])("request bodies are bounded before they are read (%s)", (_how, webBody) => {
  let nodeService: TestService | undefined;
  beforeAll(async () => {
    if (!webBody) return;
    nodeService = service;
    service = await startTestService({ rateBudgets: GENEROUS_BUDGETS }, { webBody: true });
  });
  afterAll(async () => {
    if (!nodeService) return;
    await service.stop();
    service = nodeService;
  });

  it("a declared 32 MiB body is read and dropped, then refused with 413 (so the client reads its answer, never a reset); nothing changes", async () => {
    const email = `big-declared-${Date.now()}@example.test`;
    const head = Buffer.from(`{"ownerEmail":"${email}","name":"Big body","pad":"`);
    const outcome = await sendEndlessBody(service.baseUrl, "/v1/agent-signups", {
      headers: {
        "content-type": "application/json",
        "content-length": String(32 * 1024 * 1024),
        "x-forwarded-for": newClientIp(),
      },
      chunk: Buffer.concat([head, Buffer.alloc(256 * 1024 - head.length, "x")]),
      delayMs: 0,
      maxBytes: 32 * 1024 * 1024,
    });
    expect(outcome.status).toBe(413);
    expect(outcome.body).toEqual({
      statusCode: 413,
      error: "Payload Too Large",
      message: "the request body is larger than 256 KiB",
      code: "PAYLOAD_TOO_LARGE",
    });
    const agents = await service.db.selectFrom("agents").select("id").where("owner_email", "=", email).execute();
    expect(agents).toEqual([]);
  });

  it("a declared body beyond what the server drops (1 GiB) is refused at once: the client had sent little when the answer came", async () => {
    const outcome = await sendEndlessBody(service.baseUrl, "/v1/agent-signups", {
      headers: {
        "content-type": "application/json",
        "content-length": String(1024 * 1024 * 1024),
        "x-forwarded-for": newClientIp(),
      },
      chunk: Buffer.alloc(16 * 1024, "x"),
      delayMs: 20,
      maxBytes: 1024 * 1024 * 1024,
    });
    // The 413, or the connection closed right after it (a client still writing may see the reset first).
    if (outcome.status !== null) expect(outcome.body).toMatchObject({ statusCode: 413, code: "PAYLOAD_TOO_LARGE" });
    expect(outcome.written).toBeLessThan(1024 * 1024);
  });

  it("a chunked body with no length is not kept past the limit, nor read past what the server drops; nothing changes", async () => {
    const user = await newUser(service);
    const title = `Endless body ${Date.now()}`;
    const head = Buffer.from(`{"title":"${title}","category":"agent-lounge","body":"`);
    const outcome = await sendEndlessBody(service.baseUrl, "/v1/forum/threads", {
      headers: {
        "content-type": "application/json",
        "transfer-encoding": "chunked",
        authorization: `Bearer ${user.token}`,
        "x-forwarded-for": newClientIp(),
      },
      chunk: Buffer.concat([head, Buffer.alloc(256 * 1024 - head.length, "y")]),
      delayMs: 0,
      // Without a bound the server would read all of it (and answer only then).
      maxBytes: 256 * 1024 * 1024,
    });
    // The 413, or the connection closed right after it (past the bound the rest is not waited for).
    if (outcome.status !== null) {
      expect(outcome.status).toBe(413);
      expect(outcome.body).toMatchObject({ statusCode: 413, code: "PAYLOAD_TOO_LARGE" });
    }
    // The server stopped at DRAIN_BYTES; what the client got further out sits in loopback socket
    // buffers, far from the 256 MiB it would have sent.
    expect(outcome.written).toBeLessThan(DRAIN_BYTES + 32 * 1024 * 1024);
    const threads = await service.db.selectFrom("forum_threads").select("id").where("title", "=", title).execute();
    expect(threads).toEqual([]);
  });

  it("Expect: 100-continue: a declared 32 MiB body gets its 413 with no go-ahead, so not a byte of it is sent; a body within the limit gets its 100 Continue and is served", async () => {
    const email = `expect-continue-${Date.now()}@example.test`;
    const refused = await sendEndlessBody(service.baseUrl, "/v1/agent-signups", {
      headers: {
        "content-type": "application/json",
        "content-length": String(32 * 1024 * 1024),
        "x-forwarded-for": newClientIp(),
      },
      chunk: Buffer.from(`{"ownerEmail":"${email}","name":"Big body","pad":"${"x".repeat(16 * 1024)}`),
      delayMs: 0,
      maxBytes: 32 * 1024 * 1024,
      expectContinue: true,
    });
    expect(refused).toMatchObject({ status: 413, written: 0, error: null });
    expect(refused.body).toMatchObject({ statusCode: 413, code: "PAYLOAD_TOO_LARGE" });

    const body = Buffer.from(JSON.stringify({ name: "Small body", ownerEmail: email }));
    const served = await sendEndlessBody(service.baseUrl, "/v1/agent-signups", {
      headers: {
        "content-type": "application/json",
        "content-length": String(body.length),
        "x-forwarded-for": newClientIp(),
      },
      chunk: body,
      delayMs: 0,
      maxBytes: body.length,
      expectContinue: true,
    });
    expect(served.status, JSON.stringify(served.body)).toBe(201);
    expect(served.written).toBe(body.length);
  });

  it("twenty-four 32 MiB bodies at once (declared and chunked, sent as fast as the socket takes them): every client reads its 413, none a connection reset", async () => {
    const send = (framing: Record<string, string>) =>
      sendEndlessBody(service.baseUrl, "/v1/agent-signups", {
        headers: { "content-type": "application/json", ...framing, "x-forwarded-for": newClientIp() },
        chunk: Buffer.alloc(256 * 1024, "x"),
        delayMs: 0,
        maxBytes: 32 * 1024 * 1024,
      });
    const outcomes = await Promise.all([
      ...Array.from({ length: 12 }, () => send({ "content-length": String(32 * 1024 * 1024) })),
      ...Array.from({ length: 12 }, () => send({ "transfer-encoding": "chunked" })),
    ]);
    // When the 413 was written while the client was still sending, a third of them saw ECONNRESET instead.
    expect(outcomes.map((o) => o.error ?? o.status)).toEqual(Array(24).fill(413));
    for (const o of outcomes) expect(o.body).toMatchObject({ statusCode: 413, code: "PAYLOAD_TOO_LARGE" });
  });

  it("a body at the limit is still read (and judged on its content), one byte over is a 413", async () => {
    const agent = await newAgent(service);
    const atLimit = `{"title":"${"t".repeat(MAX_BODY_BYTES - 20)}"}`.padEnd(MAX_BODY_BYTES, " ");
    const ok = await service.http("POST", "/v1/jobs", {
      token: agent.apiKey,
      rawBody: atLimit,
      headers: { "content-type": "application/json" },
    });
    expect(ok.status).toBe(400);
    expect(ok.json.code).toBe("VALIDATION_FAILED");
    const over = await service.http("POST", "/v1/jobs", {
      token: agent.apiKey,
      rawBody: `${atLimit} `,
      headers: { "content-type": "application/json" },
    });
    expect(over.status).toBe(413);
    expect(over.json).toMatchObject({ statusCode: 413, code: "PAYLOAD_TOO_LARGE" });
  });
});

// ── Text the database cannot hold, malformed paths and cursors ────────────────────────────────

const NUL = "\\u0000";
const LONE = "\\ud800";
const LONE_LOW = "\\udc00";

/** A JSON text with `bad` spliced in raw (JSON.stringify would never produce these escapes for us to test). */
function rawJson(value: Record<string, unknown>, field: string[], bad: string): string {
  const marker = "@@BAD@@";
  const copy = structuredClone(value);
  let node: any = copy;
  for (const key of field.slice(0, -1)) node = node[key];
  node[field.at(-1)!] = `${node[field.at(-1)!] ?? ""}${marker}`;
  return JSON.stringify(copy).replace(marker, bad);
}

function expectUnsafeTextRefusal(res: { status: number; json: any }, field: string) {
  expect(res.status, JSON.stringify(res.json)).toBe(400);
  expect(res.json).toEqual({
    statusCode: 400,
    error: "Bad Request",
    message: `${field} must not contain NUL characters or unpaired UTF-16 surrogates`,
    messages: [`${field} must not contain NUL characters or unpaired UTF-16 surrogates`],
    code: "VALIDATION_FAILED",
  });
}

describe("odd input is a 400, never a 500, and changes nothing", () => {
  let user: TestUser;
  let agent: TestAgent;
  let thread: { id: string; slug: string };
  let jobId: string;
  beforeAll(async () => {
    user = await newUser(service);
    agent = await newAgent(service);
    const created = await service.http("POST", "/v1/forum/threads", {
      token: user.token,
      body: {
        title: "A thread for odd replies",
        body: "A body long enough to publish here.",
        category: "agent-lounge",
      },
    });
    expect(created.status).toBe(201);
    thread = created.json.data;
    const job = await service.http("POST", "/v1/jobs", { token: agent.apiKey, body: jobInput() });
    expect(job.status).toBe(201);
    jobId = job.json.data.id;
  });

  for (const [label, bad] of [
    ["NUL", NUL],
    ["an unpaired high surrogate", LONE],
    ["an unpaired low surrogate", LONE_LOW],
  ] as const) {
    it(`${label} in a signup name, a job title, description or marker, a thread title or body, a reply body: 400 naming the field`, async () => {
      const email = `odd-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
      const signup = await service.http("POST", "/v1/agent-signups", {
        rawBody: rawJson({ ownerEmail: email, name: "Odd Agent" }, ["name"], bad),
        headers: { "content-type": "application/json" },
      });
      expectUnsafeTextRefusal(signup, "name");
      expect(await service.db.selectFrom("agents").select("id").where("owner_email", "=", email).execute()).toEqual([]);

      const jobsBefore = await service.db
        .selectFrom("jobs")
        .select("id")
        .where("poster_id", "=", (await posterOf(agent)).principal_id)
        .execute();
      for (const field of [
        ["title"],
        ["description"],
        ["inputData", "proofContentMarker"],
        ["acceptanceCriteria", "0"],
      ]) {
        const base = jobInput({ inputData: { budgetType: "bid", proofContentMarker: "marker-12345" } }) as Record<
          string,
          unknown
        >;
        const res = await service.http("POST", "/v1/jobs", {
          token: agent.apiKey,
          rawBody: rawJson(base, field, bad),
          headers: { "content-type": "application/json" },
        });
        expectUnsafeTextRefusal(res, field.join("."));
      }
      const jobsAfter = await service.db
        .selectFrom("jobs")
        .select("id")
        .where("poster_id", "=", (await posterOf(agent)).principal_id)
        .execute();
      expect(jobsAfter).toHaveLength(jobsBefore.length);

      const threadBody = {
        title: `Odd thread ${label}`,
        body: "A body long enough to publish here.",
        category: "agent-lounge",
      };
      for (const field of ["title", "body"]) {
        const res = await service.http("POST", "/v1/forum/threads", {
          token: user.token,
          rawBody: rawJson(threadBody, [field], bad),
          headers: { "content-type": "application/json" },
        });
        expectUnsafeTextRefusal(res, field);
      }
      const reply = await service.http("POST", `/v1/forum/threads/${thread.slug}/replies`, {
        token: user.token,
        rawBody: rawJson({ body: "A reply long enough to publish." }, ["body"], bad),
        headers: { "content-type": "application/json" },
      });
      expectUnsafeTextRefusal(reply, "body");
      const edit = await service.http("PATCH", `/v1/forum/threads/${thread.id}`, {
        token: user.token,
        rawBody: rawJson({ title: "A new title for it" }, ["title"], bad),
        headers: { "content-type": "application/json" },
      });
      expectUnsafeTextRefusal(edit, "title");
      const stored = await service.db
        .selectFrom("forum_threads")
        .select(["title", "reply_count"])
        .where("id", "=", thread.id)
        .executeTakeFirstOrThrow();
      expect(stored).toEqual({ title: "A thread for odd replies", reply_count: 0 });
    });
  }

  it("a bad key of a body object is named too", async () => {
    const res = await service.http("POST", "/v1/jobs", {
      token: agent.apiKey,
      rawBody: `{"ti${NUL}tle":"x"}`,
      headers: { "content-type": "application/json" },
    });
    expectUnsafeTextRefusal(res, "ti\\u0000tle");
  });

  it("a body that is not UTF-8 is a 400", async () => {
    const res = await fetch(`${service.baseUrl}/v1/agent-signups`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": newClientIp() },
      body: Buffer.concat([
        Buffer.from('{"ownerEmail":"utf8@example.test","name":"a'),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from('b"}'),
      ]),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      statusCode: 400,
      message: "body must be valid UTF-8",
      messages: ["body must be valid UTF-8"],
      code: "VALIDATION_FAILED",
    });
  });

  it("NUL or a lone surrogate in a query value is a 400 naming the parameter", async () => {
    expectUnsafeTextRefusal(await service.http("GET", "/v1/forum/threads?q=a%00b"), "q");
    expectUnsafeTextRefusal(await service.http("GET", "/v1/jobs?excludeBidBy=a%00b"), "excludeBidBy");
    // Percent-encoded bytes that are not UTF-8 (an encoded surrogate) are refused, not replaced.
    const surrogate = await service.http("GET", "/v1/forum/threads?q=a%ED%A0%80b");
    expect(surrogate.status).toBe(400);
    expect(surrogate.json).toMatchObject({ statusCode: 400, code: "VALIDATION_FAILED" });
    // A "%" that starts no escape is a literal, as URLSearchParams reads it.
    expect((await service.http("GET", "/v1/forum/threads?q=100%")).status).toBe(200);
  });

  it("NUL or an encoded surrogate in a path id is a 400, on every kind of id", async () => {
    const paths = [
      ["GET", "/v1/jobs/%00/public"],
      ["GET", "/v1/jobs/%ED%A0%80/public"],
      ["GET", `/v1/jobs/${jobId}%00`],
      ["GET", "/v1/forum/threads/a%00b"],
      ["GET", "/v1/forum/threads/%ED%A0%80"],
      ["GET", "/v1/forum/threads/%ED%A0%80/replies"],
      ["GET", "/v1/forum/replies/%00"],
      ["GET", "/v1/agents/%00/bids"],
      ["PATCH", "/v1/agents/%ED%A0%80"],
      ["GET", "/v1/jobs/%ED%A0/public"],
    ] as const;
    for (const [method, path] of paths) {
      const res = await service.http(method, path, {
        token: user.token,
        ...(method === "PATCH" ? { body: { maxActiveJobs: 1 } } : {}),
      });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.json, path).toMatchObject({ statusCode: 400, error: "Bad Request", code: "VALIDATION_FAILED" });
    }
  });

  it("a tampered forum cursor or job cursor is a 400", async () => {
    const cursors = [
      "not-base64!",
      encodeCursor({ k: new Date().toISOString(), id: `n:${"-".repeat(36)}` }),
      encodeCursor({ k: new Date().toISOString(), id: `a:${"0".repeat(36)}` }),
      encodeCursor({ k: "yesterday", id: `n:${crypto.randomUUID()}` }),
      encodeCursor({ k: 1e20, id: `n:${crypto.randomUUID()}` }),
      Buffer.from('["2026-01-01T00:00:00.000Z"]').toString("base64url"),
      Buffer.from("{").toString("base64url"),
    ];
    for (const cursor of cursors) {
      for (const path of [
        `/v1/forum/threads?cursor=${cursor}`,
        `/v1/forum/threads?sort=activity&cursor=${cursor}`,
        `/v1/jobs?cursor=${cursor}`,
        `/v1/forum/threads/${thread.slug}/replies?cursor=${cursor}`,
      ]) {
        const res = await service.http("GET", path);
        expect(res.status, `${path}`).toBe(400);
        expect(res.json.code).toBe("VALIDATION_FAILED");
      }
    }
    // A real cursor still works.
    const page = await service.http("GET", "/v1/forum/threads?limit=1");
    if (page.json.meta.nextCursor)
      expect((await service.http("GET", `/v1/forum/threads?limit=1&cursor=${page.json.meta.nextCursor}`)).status).toBe(
        200,
      );
  });

  async function posterOf(a: TestAgent) {
    return service.db.selectFrom("agents").select("principal_id").where("id", "=", a.id).executeTakeFirstOrThrow();
  }
});

// ── Key guessing is throttled ──────────────────────────────────────────────────────────────────

describe("a refused credential is counted against its address's budget before the 401", () => {
  afterEach(() => {
    limited.ctx.now = () => new Date();
  });
  function startOfFreshWindow() {
    const offset = 60_000 - (Date.now() % 60_000) + 500;
    limited.ctx.now = () => new Date(Date.now() + offset);
  }

  it("wrong keys on a read route: 401 until the address's public read budget is spent, then 429", async () => {
    startOfFreshWindow();
    const ip = newClientIp();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await limited.http("GET", "/v1/jobs?limit=1", { ip, token: `awm_sk_guess${i}${"x".repeat(40)}` });
      statuses.push(res.status);
      expect(res.json.code).toBe("INVALID_CREDENTIALS");
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401]);
    const blocked = await limited.http("GET", "/v1/jobs?limit=1", { ip, token: `awm_sk_guess7${"x".repeat(40)}` });
    expect(blocked.status).toBe(429);
    expect(blocked.json.code).toBe("RATE_LIMITED");
    expect(blocked.headers.get("retry-after")).toMatch(/^\d+$/);
    // A session-shaped token, a malformed header and no credential at all share that budget.
    expect(
      (await limited.http("GET", "/v1/jobs?limit=1", { ip, headers: { authorization: "Basic abc" } })).status,
    ).toBe(429);
    expect((await limited.http("GET", "/v1/jobs?limit=1", { ip })).status).toBe(429);
    // Another address is unaffected.
    expect((await limited.http("GET", "/v1/jobs?limit=1", { ip: newClientIp(), token: "awm_sk_guess" })).status).toBe(
      401,
    );
  });

  it("wrong keys on a write route: 401 until the address's write budget is spent, then 429", async () => {
    startOfFreshWindow();
    const ip = newClientIp();
    for (let i = 0; i < 4; i++) {
      const res = await limited.http("POST", "/v1/jobs", {
        ip,
        token: `awm_sk_guess${i}${"y".repeat(40)}`,
        body: jobInput(),
      });
      expect(res.status).toBe(401);
    }
    const blocked = await limited.http("POST", "/v1/jobs", {
      ip,
      token: `awm_sk_guess9${"y".repeat(40)}`,
      body: jobInput(),
    });
    expect(blocked.status).toBe(429);
    expect(blocked.json.code).toBe("RATE_LIMITED");
  });
});
