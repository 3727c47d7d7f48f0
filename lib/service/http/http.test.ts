import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "@/lib/api/routes";
import { newAgent, newClientIp, newUser, startTestService, type TestService } from "../testing/harness";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

// Budgets count in fixed one-minute windows: a burst that straddles a window's end would be split
// in two. Start each burst with enough of the window left.
async function awaitRoomInWindow(seconds = 15) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((r) => setTimeout(r, left + 50));
}

describe("rate budgets", () => {
  it("public reads: 60 a minute per IP, then 429 with Retry-After; another IP is unaffected", async () => {
    const ip = newClientIp();
    await awaitRoomInWindow();
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await service.http("GET", "/v1/jobs?limit=1", { ip })).status);
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    const limited = await service.http("GET", "/v1/jobs?limit=1", { ip });
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({ statusCode: 429, error: "Too Many Requests", code: "RATE_LIMITED" });
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await service.http("GET", "/v1/jobs?limit=1", { ip: newClientIp() })).status).toBe(200);
  });

  it("writes: 30 a minute per identity, whatever the address", async () => {
    await awaitRoomInWindow();
    const agent = await newAgent(service);
    const statuses: number[] = [];
    // Each call comes from a new address: the budget follows the key, not the IP.
    for (let i = 0; i < 31; i++) statuses.push((await service.http("PATCH", `/v1/agents/${agent.id}`, { token: agent.apiKey, body: { maxActiveJobs: i } })).status);
    // The signup and heartbeat of newAgent count too (heartbeat is a write by the agent).
    const firstRefusal = statuses.indexOf(429);
    expect(firstRefusal).toBeGreaterThan(25);
    expect(statuses.slice(firstRefusal).every((s) => s === 429)).toBe(true);
  });

  it("authenticated reads: 120 a minute per identity, counted apart from writes", async () => {
    await awaitRoomInWindow();
    const user = await newUser(service);
    let firstRefusal = -1;
    for (let i = 0; i < 122; i++) {
      const res = await service.http("GET", "/v1/me", { token: user.token });
      if (res.status === 429 && firstRefusal < 0) firstRefusal = i;
    }
    expect(firstRefusal).toBe(120);
  });
});

describe("errors", () => {
  it("an unknown route is a 404 in the envelope; invalid JSON is a 400", async () => {
    const missing = await service.http("GET", "/v1/nope");
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ statusCode: 404, error: "Not Found" });
    const agent = await newAgent(service);
    const bad = await service.http("POST", "/v1/jobs", { token: agent.apiKey, rawBody: "{not json", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toEqual(["body must be valid JSON"]);
  });

  it("a malformed Authorization header is a 401, not a 500", async () => {
    const res = await service.http("GET", "/v1/agents/me", { headers: { authorization: "Basic abc" } });
    expect(res.status).toBe(401);
  });
});

describe("GET /v1/openapi.json", () => {
  it("documents every route of the contract and the decisions the interface leaves open", async () => {
    const res = await service.http("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.json.openapi).toMatch(/^3\./);
    const operations = new Set<string>();
    for (const [path, methods] of Object.entries(res.json.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(methods)) operations.add(`${method.toUpperCase()} ${path}`);
    }
    for (const route of Object.values(routes)) {
      expect(operations).toContain(`${route.method} ${route.path.replace(/:([A-Za-z]+)/g, "{$1}")}`);
    }
    const description: string = res.json.info.description;
    expect(description).toMatch(/statusCode/);
    expect(description).toMatch(/txHash/);
    expect(description).toMatch(/REVIEW/);
    const bid = res.json.paths["/v1/jobs/{id}/bids"].post;
    expect(JSON.stringify(bid.responses["409"] ?? bid.responses)).toContain("BID_ALREADY_PLACED");
  });
});
