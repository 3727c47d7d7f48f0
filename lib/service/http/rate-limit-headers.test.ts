import { parseItem, type Item } from "structured-headers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "@/lib/api/openapi";
import { routes } from "@/lib/api/routes";
import type { RouteDef } from "@/lib/api/contract";
import { newAgent, startTestService, type TestAgent, type TestService } from "../testing/harness";
import { expectError } from "../testing/expect-error";
import { DEFAULT_RATE_BUDGETS } from "../config";

/**
 * Two rules every answer follows: the rate budget a request was counted against rides on its answer
 * as the RateLimit and RateLimit-Policy structured fields (draft-ietf-httpapi-ratelimit-headers-10),
 * and an error's message is always one string, a list of problems being kept in messages.
 */
const BUDGETS = { publicReadsPerMinute: 4, authReadsPerMinute: 50, writesPerMinute: 20 };

let service: TestService;
let agent: TestAgent;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: BUDGETS });
  agent = await newAgent(service);
});
afterAll(async () => {
  await service?.stop();
});

/** A structured-field Item parsed by an RFC 9651 parser: the policy name and its parameters. */
function fieldOf(headers: Headers, name: string): { policy: string; params: Record<string, unknown> } {
  const value = headers.get(name);
  expect(value, name).toEqual(expect.any(String));
  const [bare, params]: Item = parseItem(value!);
  expect(typeof bare, `${name}'s item is a String`).toBe("string");
  return { policy: bare as string, params: Object.fromEntries(params) };
}

function budgetOf(res: { headers: Headers }) {
  const policy = fieldOf(res.headers, "ratelimit-policy");
  const now = fieldOf(res.headers, "ratelimit");
  expect(now.policy).toBe(policy.policy);
  return {
    policy: policy.policy,
    q: policy.params.q,
    w: policy.params.w,
    r: now.params.r as number,
    t: now.params.t as number,
  };
}

describe("RateLimit header fields", () => {
  it("a successful public read names its policy and counts down; the 429 that ends the budget says 0 left, reset at Retry-After", async () => {
    const ip = "127.0.42.7";
    const seen = [];
    for (let i = 0; i < BUDGETS.publicReadsPerMinute; i++) {
      const res = await service.http("GET", "/v1/jobs?limit=1", { ip });
      expect(res.status).toBe(200);
      seen.push(budgetOf(res));
    }
    for (const b of seen) {
      expect(b).toMatchObject({ policy: "public-read", q: BUDGETS.publicReadsPerMinute, w: 60 });
      expect(b.t).toBeGreaterThanOrEqual(1);
      expect(b.t).toBeLessThanOrEqual(60);
    }
    // One process: the count is exact, one less each time, down to 0 on the last allowed request.
    expect(seen.map((b) => b.r)).toEqual([3, 2, 1, 0]);

    const refused = await service.http("GET", "/v1/jobs?limit=1", { ip });
    expectError(refused, 429, "RATE_LIMITED");
    const b = budgetOf(refused);
    expect(b).toMatchObject({ policy: "public-read", q: BUDGETS.publicReadsPerMinute, w: 60, r: 0 });
    expect(b.t).toBe(Number(refused.headers.get("retry-after")));
  });

  it("reads with a key and writes have their own policies; a refusal after the count carries them too; an unbudgeted probe none", async () => {
    const ip = "127.0.43.7";
    const read = await service.http("GET", "/v1/agents/me", { token: agent.apiKey, ip });
    expect(read.status).toBe(200);
    expect(budgetOf(read)).toMatchObject({
      policy: "read",
      q: BUDGETS.authReadsPerMinute,
      w: 60,
      r: expect.any(Number),
    });
    expect(budgetOf(read).r).toBeLessThan(BUDGETS.authReadsPerMinute);

    const write = await service.http("POST", "/v1/agents/heartbeat", { token: agent.apiKey, ip });
    expect(write.status).toBe(200);
    expect(budgetOf(write)).toMatchObject({ policy: "write", q: BUDGETS.writesPerMinute, w: 60 });

    const missing = await service.http("GET", "/v1/jobs/00000000-0000-4000-8000-000000000000", {
      token: agent.apiKey,
      ip,
    });
    expect(missing.status).toBe(404);
    expect(budgetOf(missing).policy).toBe("read");

    const health = await service.http("GET", "/v1/health/ready", { ip });
    expect(health.headers.get("ratelimit")).toBeNull();
    expect(health.headers.get("ratelimit-policy")).toBeNull();
  });

  it("are in the OpenAPI document: a shared header component on every budgeted success and on every 429", () => {
    const doc = buildOpenApiDocument() as any;
    expect(Object.keys(doc.components.headers)).toEqual(
      expect.arrayContaining(["RateLimit", "RateLimit-Policy", "Retry-After"]),
    );
    expect(doc.components.headers.RateLimit.description).toMatch(/r \(requests left/);
    expect(doc.info.description).toMatch(/draft-ietf-httpapi-ratelimit-headers-10/);
    for (const [name, route] of Object.entries(routes) as Array<[string, RouteDef]>) {
      const path = Object.keys(doc.paths).find((p) => doc.paths[p][route.method.toLowerCase()]?.operationId === name)!;
      const op = doc.paths[path][route.method.toLowerCase()];
      const success = op.responses[String(route.status ?? 200)];
      if (route.budget === "none") {
        // No budget, no RateLimit fields (a read may still carry its ETag).
        expect(success.headers?.RateLimit, name).toBeUndefined();
        expect(success.headers?.["RateLimit-Policy"], name).toBeUndefined();
        continue;
      }
      expect(success.headers, name).toMatchObject({
        RateLimit: { $ref: "#/components/headers/RateLimit" },
        "RateLimit-Policy": { $ref: "#/components/headers/RateLimit-Policy" },
      });
      expect(Object.keys(op.responses["429"].headers), name).toEqual(["RateLimit", "RateLimit-Policy", "Retry-After"]);
    }
  });
});

describe("a budget per client address as well as per key", () => {
  it("twelve fresh keys on one address share its budget: 429 with policy address once it is spent; another address and each key elsewhere still answer", async () => {
    const budgets = { publicReadsPerMinute: 60, authReadsPerMinute: 120, writesPerMinute: 30, addressPerMinute: 24 };
    const small = await startTestService({ rateBudgets: budgets });
    try {
      // Keys are free: signed up from addresses of their own, then used from one machine.
      const keys = await Promise.all(Array.from({ length: 12 }, () => newAgent(small)));
      const ip = "127.0.44.7";
      const statuses: number[] = [];
      let lastAllowed: ReturnType<typeof budgetOf> | null = null;
      let refused: Awaited<ReturnType<typeof small.http>> | null = null;
      for (let round = 0; round < 3; round++) {
        for (const key of keys) {
          const res = await small.http("GET", "/v1/jobs?limit=1", { token: key.apiKey, ip });
          statuses.push(res.status);
          if (res.status === 200) lastAllowed = budgetOf(res);
          else refused ??= res;
        }
      }
      // Each key read 3 times of its 120: only the address's budget can refuse, after exactly 24.
      expect(statuses.filter((s) => s === 200)).toHaveLength(budgets.addressPerMinute);
      expect(statuses.slice(budgets.addressPerMinute).every((s) => s === 429)).toBe(true);
      // The answers name the budget nearer to refusing: the address's, down to 0.
      expect(lastAllowed).toMatchObject({ policy: "address", q: budgets.addressPerMinute, w: 60, r: 0 });
      expectError(refused!, 429, "RATE_LIMITED");
      const b = budgetOf(refused!);
      expect(b).toMatchObject({ policy: "address", q: budgets.addressPerMinute, r: 0 });
      expect(b.t).toBe(Number(refused!.headers.get("retry-after")));
      // Anonymous reads and writes from that address are refused too: the budget is the address's.
      expectError(await small.http("GET", "/v1/jobs?limit=1", { ip }), 429, "RATE_LIMITED");
      // The same keys from another address, and a fresh address, are untouched.
      const elsewhere = await small.http("GET", "/v1/jobs?limit=1", { token: keys[0]!.apiKey, ip: "127.0.45.7" });
      expect(elsewhere.status).toBe(200);
      expect(budgetOf(elsewhere)).toMatchObject({ policy: "address", r: budgets.addressPerMinute - 1 });
    } finally {
      await small.stop();
    }
  });

  it("the default (600 a minute, ten times an anonymous reader's) is what the OpenAPI document says", () => {
    expect(DEFAULT_RATE_BUDGETS.addressPerMinute).toBe(600);
    const doc = buildOpenApiDocument() as any;
    expect(doc.info.description).toMatch(/600 requests\/min per client address/);
    expect(doc.components.headers["RateLimit-Policy"].description).toMatch(
      /address \(every request from one client address/,
    );
  });
});

describe("the error envelope has one shape", () => {
  it("a validation error's message is one string; each problem is in messages, in the same order", async () => {
    const res = await service.http("POST", `/v1/jobs/00000000-0000-4000-8000-000000000000/bids`, {
      token: agent.apiKey,
      body: { agentId: agent.id, proposedUsdc: "ten", proposerUsdc: "1", etaHours: 3 },
    });
    expectError(res, 400, "VALIDATION_FAILED");
    expect(typeof res.json.message).toBe("string");
    expect(res.json.messages.length).toBeGreaterThan(1);
    expect(res.json.messages).toEqual(
      expect.arrayContaining(["property proposerUsdc should not exist", "property etaHours should not exist"]),
    );
    expect(res.json.message).toBe(res.json.messages.join("; "));
  });

  it("other errors: message a string and no messages; so is every error of the router (bad JSON, unknown route)", async () => {
    const unauthenticated = await service.http("GET", "/v1/agents/me");
    expectError(unauthenticated, 401, "UNAUTHENTICATED");
    expect(unauthenticated.json.messages).toBeUndefined();
    const badJson = await service.http("POST", "/v1/jobs/00000000-0000-4000-8000-000000000000/bids", {
      token: agent.apiKey,
      rawBody: "{nope",
      headers: { "content-type": "application/json" },
    });
    expectError(badJson, 400, "VALIDATION_FAILED");
    expect(badJson.json).toMatchObject({ message: "body must be valid JSON", messages: ["body must be valid JSON"] });
    const unknown = await service.http("GET", "/v1/no-such-route");
    expect(unknown.status).toBe(404);
    expect(typeof unknown.json.message).toBe("string");
  });

  it("the OpenAPI document says so: message is a string, messages a list of strings, in every error schema", () => {
    const doc = buildOpenApiDocument() as any;
    const errors = Object.entries(doc.components.schemas).filter(([name]) => name.startsWith("Error_"));
    expect(errors.length).toBeGreaterThan(50);
    for (const [name, schema] of errors as Array<[string, any]>) {
      expect(schema.properties.message, name).toMatchObject({ type: "string", description: expect.any(String) });
      expect(schema.properties.messages, name).toMatchObject({
        type: "array",
        items: { type: "string" },
        description: expect.any(String),
      });
      expect(schema.required, name).toContain("message");
      expect(schema.required, name).not.toContain("messages");
    }
    expect(doc.info.description).toMatch(/"message" \(always one string\)/);
  });
});
