import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { routes } from "@/lib/api/routes";
import type { RouteDef } from "@/lib/api/contract";
import { openApiPathOf } from "@/lib/api/openapi";
import { EVENT_TYPES } from "@/lib/api/schemas/events";
import { jobInput, newAgent, newClientIp, newUser, startTestService, type TestService } from "../testing/harness";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

type Res = Awaited<ReturnType<TestService["http"]>>;

/**
 * Budgets count in fixed one-minute windows of the service clock. Put the clock half a second into
 * a new window (it keeps running in real time), so that a burst is never split across two windows
 * and no test waits for the wall clock.
 */
function startOfFreshWindow() {
  const offset = 60_000 - (Date.now() % 60_000) + 500;
  service.ctx.now = () => new Date(Date.now() + offset);
}
afterEach(() => {
  service.ctx.now = () => new Date();
});

function expectRateLimited(res: Res) {
  expect(res.status).toBe(429);
  expect(res.json).toMatchObject({ statusCode: 429, error: "Too Many Requests", code: "RATE_LIMITED" });
  expect(typeof res.json.message).toBe("string");
  const header = res.headers.get("retry-after");
  expect(header).toMatch(/^\d+$/);
  const seconds = Number(header);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  return seconds;
}

describe("rate budgets", () => {
  it("public reads: 60 a minute per IP, the 61st is 429 with Retry-After; another IP is unaffected", async () => {
    startOfFreshWindow();
    const ip = newClientIp();
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await service.http("GET", "/v1/jobs?limit=1", { ip })).status);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const limited = await service.http("GET", "/v1/jobs?limit=1", { ip });
    expectRateLimited(limited);
    // Any public read route shares the IP's budget.
    expectRateLimited(await service.http("GET", "/v1/jobs/4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a11/public", { ip }));
    expect((await service.http("GET", "/v1/jobs?limit=1", { ip: newClientIp() })).status).toBe(200);
    // A credential from the same address reads on its own identity's budget.
    const agent = await newAgent(service);
    expect((await service.http("GET", "/v1/jobs?limit=1", { ip, token: agent.apiKey })).status).toBe(200);
    // The budget comes back in the next window.
    const later = service.ctx.now().getTime() + 60_000;
    service.ctx.now = () => new Date(later);
    expect((await service.http("GET", "/v1/jobs?limit=1", { ip })).status).toBe(200);
  });

  it("writes: 30 a minute per identity from any address; the 31st is 429; reads and other identities are unaffected", async () => {
    startOfFreshWindow();
    const agent = await newAgent(service, { active: false }); // signup counts against the anonymous IP, not the agent
    const statuses: number[] = [];
    // Each call comes from a new address: the budget follows the key, not the IP.
    for (let i = 0; i < 30; i++)
      statuses.push(
        (await service.http("PATCH", `/v1/agents/${agent.id}`, { token: agent.apiKey, body: { maxActiveJobs: i } }))
          .status,
      );
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const limited = await service.http("PATCH", `/v1/agents/${agent.id}`, {
      token: agent.apiKey,
      body: { maxActiveJobs: 99 },
    });
    expectRateLimited(limited);
    expectRateLimited(await service.http("POST", "/v1/jobs", { token: agent.apiKey, body: jobInput() }));
    // The refused write changed nothing.
    const me = await service.http("GET", "/v1/agents/me", { token: agent.apiKey });
    expect(me.status).toBe(200);
    expect(me.json.data.maxActiveJobs).toBe(29);
    const other = await newAgent(service, { active: false });
    expect(
      (await service.http("PATCH", `/v1/agents/${other.id}`, { token: other.apiKey, body: { maxActiveJobs: 1 } }))
        .status,
    ).toBe(200);
  });

  it("anonymous writes count per IP", async () => {
    startOfFreshWindow();
    const ip = newClientIp();
    for (let i = 0; i < 30; i++) expect((await service.http("POST", "/v1/auth/siwe/nonce", { ip })).status).toBe(200);
    expectRateLimited(await service.http("POST", "/v1/auth/siwe/nonce", { ip }));
    expect((await service.http("POST", "/v1/auth/siwe/nonce", { ip: newClientIp() })).status).toBe(200);
  });

  it("authenticated reads: 120 a minute per identity (more than the public 60), the 121st is 429", async () => {
    startOfFreshWindow();
    const user = await newUser(service);
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++) statuses.push((await service.http("GET", "/v1/me", { token: user.token })).status);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expectRateLimited(await service.http("GET", "/v1/me", { token: user.token }));
    // Writes have their own budget.
    expect((await service.http("POST", "/v1/jobs", { token: user.token, body: jobInput() })).status).toBe(201);
  });
});

describe("errors", () => {
  it("an unknown route is a 404 in the envelope", async () => {
    for (const [method, path] of [
      ["GET", "/v1/nope"],
      ["DELETE", "/v1/jobs"],
      ["POST", "/v1/agents/me/nothing"],
    ] as const) {
      const res = await service.http(method, path);
      expect(res.status, path).toBe(404);
      expect(res.json).toEqual({ statusCode: 404, error: "Not Found", message: expect.any(String), code: "NOT_FOUND" });
    }
  });

  it("an invalid JSON body, or one that is not an object, is a 400 and changes nothing", async () => {
    const agent = await newAgent(service);
    const bad = await service.http("POST", "/v1/jobs", {
      token: agent.apiKey,
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: "body must be valid JSON",
      messages: ["body must be valid JSON"],
      code: "VALIDATION_FAILED",
    });
    for (const raw of ["null", "[]", '"job"', "42"]) {
      const res = await service.http("POST", "/v1/jobs", {
        token: agent.apiKey,
        rawBody: raw,
        headers: { "content-type": "application/json" },
      });
      expect(res.status, raw).toBe(400);
      expect(res.json).toMatchObject({ statusCode: 400, error: "Bad Request", code: "VALIDATION_FAILED" });
    }
    const listed = await service.http("GET", `/v1/jobs?limit=100`);
    const principal = await service.db
      .selectFrom("agents")
      .select("principal_id")
      .where("id", "=", agent.id)
      .executeTakeFirstOrThrow();
    expect(listed.json.data.filter((j: { posterId: string }) => j.posterId === principal.principal_id)).toHaveLength(0);
  });

  it("an unknown query parameter is refused like an unknown body field", async () => {
    const res = await service.http("GET", "/v1/jobs?colour=red");
    expect(res.status).toBe(400);
    expect(res.json.message).toContain("property colour should not exist");
  });
});

describe("GET /v1/openapi.json", () => {
  let doc: any;
  beforeAll(async () => {
    const res = await service.http("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    doc = res.json;
  });

  it("is a well-formed OpenAPI 3 document", () => {
    expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(typeof doc.info.title).toBe("string");
    expect(typeof doc.info.version).toBe("string");
    const operationIds = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      expect(path.startsWith("/v1/"), path).toBe(true);
      expect(path, "no :param left in a path").not.toMatch(/:/);
      for (const [method, op] of Object.entries(item)) {
        expect(["get", "put", "post", "delete", "patch"], `${method} ${path}`).toContain(method);
        expect(typeof op.operationId).toBe("string");
        expect(operationIds.has(op.operationId), `duplicate operationId ${op.operationId}`).toBe(false);
        operationIds.add(op.operationId);
        const statuses = Object.keys(op.responses);
        expect(
          statuses.some((s) => /^2\d\d$/.test(s)),
          `${method} ${path} has a success response`,
        ).toBe(true);
        for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
          expect(status).toMatch(/^[1-5]\d\d$/);
          expect(typeof response.description).toBe("string");
        }
        // Every {param} of the path is declared as a required path parameter, and no other.
        const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
        const declared = (op.parameters ?? []).filter((p: any) => p.in === "path");
        expect(declared.map((p: any) => p.name).sort(), `${method} ${path}`).toEqual(inPath);
        for (const p of declared) expect(p.required).toBe(true);
        for (const p of op.parameters ?? []) expect(["path", "query", "header", "cookie"]).toContain(p.in);
        if (op.requestBody) expect(op.requestBody.content["application/json"].schema).toBeTypeOf("object");
        for (const requirement of op.security ?? []) {
          for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes).toHaveProperty(scheme);
        }
      }
    }
    // Every $ref points inside the document.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
    for (const ref of refs) {
      expect(ref.startsWith("#/")).toBe(true);
      const target = ref
        .slice(2)
        .split("/")
        .reduce((node: any, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
      expect(target, ref).toBeDefined();
    }
  });

  it("is OpenAPI 3.1.0 with servers, defined tags, security on every operation (none on public ones) and shared components", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers.length).toBeGreaterThan(0);
    const tags = new Set(doc.tags.map((t: { name: string }) => t.name));
    for (const [name, route] of Object.entries(routes) as Array<[string, RouteDef]>) {
      const op = doc.paths[openApiPathOf(route.path)][route.method.toLowerCase()];
      expect(tags.has(op.tags[0]), name).toBe(true);
      expect(op.security, name).toEqual(
        route.auth === "none" ? [] : route.auth === "optional" ? [{}, { bearer: [] }] : [{ bearer: [] }],
      );
    }
    // A resource is one component, referenced wherever it is answered.
    expect(doc.paths["/v1/jobs/{id}"].get.responses["200"].content["application/json"].schema.properties.data).toEqual({
      $ref: "#/components/schemas/JobDetail",
    });
    expect(doc.components.schemas.Job.properties.id).toBeDefined();
    // Every event type is in the webhooks section, with the signature headers.
    for (const type of Object.keys(EVENT_TYPES)) {
      const post = doc.webhooks[type].post;
      expect(post.parameters.map((p: { name: string }) => p.name)).toEqual([
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
      ]);
      expect(post.requestBody.content["application/json"].schema.allOf[1].properties.type.const).toBe(type);
    }
  });

  it("lists exactly the routes of lib/api/routes, by method, path and name", () => {
    const documented = new Map<string, string>();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item))
        documented.set(`${method.toUpperCase()} ${path}`, op.operationId);
    }
    documented.delete("GET /v1/openapi.json");
    const expected = new Map(
      (Object.entries(routes) as Array<[string, RouteDef]>).map(([name, route]) => [
        `${route.method} ${openApiPathOf(route.path)}`,
        name,
      ]),
    );
    expect([...documented.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, name] of expected) expect(documented.get(key), key).toBe(name);
  });

  it("documents the decisions: the error envelope, the escrow txHash body, the job life", () => {
    const description: string = doc.info.description;
    for (const word of ["statusCode", "error", "message", "code"]) expect(description).toContain(word);
    // The error envelope is the schema of the error responses.
    const bid = doc.paths["/v1/jobs/{id}/bids"].post;
    const ref: string = bid.responses["400"].content["application/json"].schema.$ref;
    expect(ref).toBe("#/components/schemas/Error_VALIDATION_FAILED");
    const envelope = doc.components.schemas.Error_VALIDATION_FAILED;
    expect(Object.keys(envelope.properties)).toEqual(
      expect.arrayContaining(["statusCode", "error", "message", "code"]),
    );
    expect(envelope.required).toEqual(expect.arrayContaining(["statusCode", "error", "message"]));
    expect(bid.responses["409"].description).toContain("BID_ALREADY_PLACED");
    expect(bid.responses["429"].description).toMatch(/Retry-After/);

    // PATCH /v1/jobs/:id/escrow takes {txHash} (or the Job field's own name, escrowTxHash).
    expect(description).toMatch(/txHash/);
    const escrowBody = doc.paths["/v1/jobs/{id}/escrow"].patch.requestBody.content["application/json"].schema;
    expect(Object.keys(escrowBody.properties).sort()).toEqual(["escrowTxHash", "txHash"]);
    expect(escrowBody.description).toMatch(/\{txHash\} or \{escrowTxHash\}/);

    // The job life: OPEN → IN_PROGRESS → REVIEW → COMPLETED, DISPUTED, CANCELLED, by these routes.
    expect(description).toMatch(/OPEN → IN_PROGRESS/);
    for (const word of ["REVIEW", "COMPLETED", "DISPUTED", "CANCELLED", "maxActiveJobs"])
      expect(description).toContain(word);
    for (const path of [
      "/v1/jobs/{id}/submit",
      "/v1/jobs/{id}/approve",
      "/v1/jobs/{id}/dispute",
      "/v1/jobs/{id}/cancel",
    ]) {
      expect(doc.paths[path]?.post, path).toBeDefined();
      expect(description).toContain(path.replace("{id}", ":id"));
    }
    expect(doc.paths["/v1/jobs/{jobId}/bids/{bidId}/accept"].post.responses["409"].description).toContain(
      "AGENT_AT_CAPACITY",
    );
  });
});
