import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineRoute } from "@/lib/api/contract";
import { ServiceRouter } from "../router";
import { log } from "../log";
import { newAgent, startTestService, type TestService } from "../testing/harness";

// What an operator reads in the log: one JSON object per line, each line written while a request
// runs carries that request's id (the one answered in X-Request-Id) and its actor, and secrets in
// a logged object are redacted.

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

let lines: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  lines = [];
});
function captureLog() {
  vi.spyOn(process.stdout, "write").mockImplementation(((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stdout.write);
}
const logged = () =>
  lines
    .join("")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const route = defineRoute({
  method: "POST",
  path: "/v1/test-log",
  summary: "test",
  tag: "Test",
  auth: "required",
  budget: "none",
  response: z.object({ data: z.object({ ok: z.boolean() }) }),
});

function routerThatLogs() {
  const router = new ServiceRouter(service.ctx);
  router.implement(route, async () => {
    log.warn(
      { apiKey: "awm_live_secret", headers: { authorization: "Bearer awm_live_secret" }, jobId: "job-1" },
      "about to fail",
    );
    throw new Error("boom");
  });
  return router;
}

describe("the service log", () => {
  it("every line of a request carries its id and actor; an unhandled error is logged with its stack; secrets are redacted", async () => {
    const agent = await newAgent(service);
    const router = routerThatLogs();
    captureLog();
    const res = await router.app.request(
      "/v1/test-log",
      { method: "POST", headers: { authorization: `Bearer ${agent.apiKey}` } },
      { clientIp: "127.0.0.1", forwarded: false },
    );
    vi.restoreAllMocks();
    expect(res.status).toBe(500);
    const requestId = res.headers.get("x-request-id");
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);

    const entries = logged();
    const warning = entries.find((e) => e.msg === "about to fail");
    const failure = entries.find((e) => e.msg === "unhandled error");
    expect(warning).toMatchObject({
      requestId,
      actor: `agent:${agent.id}`,
      jobId: "job-1",
      apiKey: "[redacted]",
      headers: { authorization: "[redacted]" },
    });
    expect(failure).toMatchObject({
      requestId,
      actor: `agent:${agent.id}`,
      path: "/v1/test-log",
      err: { message: "boom" },
    });
    expect(String((failure!.err as { stack: string }).stack)).toContain("request-log.test.ts");
    expect(lines.join("")).not.toContain("awm_live_secret");
    expect(lines.join("")).not.toContain(agent.apiKey);
  });

  it("a plain X-Request-Id from a proxy is kept; anything else is replaced; two requests never share an id", async () => {
    const router = routerThatLogs();
    const send = (headers: Record<string, string>) =>
      router.app.request("/v1/test-log", { method: "POST", headers }, { clientIp: "127.0.0.1", forwarded: false });
    const kept = await send({ "x-request-id": "lb-7f3a.2:9" });
    expect(kept.status).toBe(401);
    expect(kept.headers.get("x-request-id")).toBe("lb-7f3a.2:9");
    const replaced = await send({ "x-request-id": "id with spaces;" + "x".repeat(200) });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const other = await send({});
    expect(other.headers.get("x-request-id")).not.toBe(replaced.headers.get("x-request-id"));
  });
});
