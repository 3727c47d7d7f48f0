import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createApiClient } from "@/lib/api/client";
import { demoAnswer, demoPackInput, demoWrongAnswer } from "@/lib/testing/demo-pack";
import { GENEROUS_BUDGETS, newAgent, newUser, startTestService, type TestService } from "@/lib/service/testing/harness";
import { httpAgent, runCertification, stdioAgent } from "./run-certification";

// The certify command against a test service, with a tiny agent program on stdin/stdout and a
// local HTTP agent.

let service: TestService;
let packId: string;
const operatorKey = generatePrivateKey();
const TINY_AGENT = `node ${join(__dirname, "testing", "tiny-agent.mjs")}`;

beforeAll(async () => {
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    operatorAddresses: [privateKeyToAccount(operatorKey).address],
  });
  const operator = await newUser(service, operatorKey);
  const publisher = await newUser(service);
  const published = await service.http("POST", "/v1/evals/packs", { token: publisher.token, body: demoPackInput() });
  packId = published.json.data.id;
  await service.http("POST", `/v1/admin/packs/${packId}/approve`, {
    token: operator.token,
    body: { reason: "for the certify test" },
  });
});
afterAll(() => service.stop());

describe("runCertification", () => {
  it("drives a program on stdin/stdout through the pack: it passes, telemetry is recorded, a certificate is issued", async () => {
    const agent = await newAgent(service);
    const lines: string[] = [];
    const report = await runCertification({
      client: createApiClient({ baseUrl: service.baseUrl, token: agent.apiKey }),
      packId,
      mode: "TOOL_ALLOWED",
      agent: stdioAgent(TINY_AGENT),
      log: (l) => lines.push(l),
    });
    expect(report).toMatchObject({ passed: true, score: 10, totalPoints: 10, mode: "TOOL_ALLOWED" });
    expect(report.certification?.code).toBeTruthy();
    expect(lines.join("\n")).toContain("PASSED");
    const items = await service.db
      .selectFrom("eval_attempt_items")
      .select(["ttfb_ms", "total_ms"])
      .where("attempt_id", "=", report.attemptId)
      .execute();
    expect(items).toHaveLength(8);
    for (const i of items) expect(i.total_ms).not.toBeNull();
  });

  it("drives a local HTTP agent; a wrong-answering agent fails, told neither its score nor its section points", async () => {
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const item = JSON.parse(body);
        // Right only on the short answers.
        res.end(JSON.stringify({ answer: item.kind === "SHORT_ANSWER" ? demoAnswer(item) : demoWrongAnswer(item) }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const agent = await newAgent(service);
      const port = (server.address() as AddressInfo).port;
      const report = await runCertification({
        client: createApiClient({ baseUrl: service.baseUrl, token: agent.apiKey }),
        packId,
        mode: "CLOSED_BOOK",
        agent: httpAgent(`http://127.0.0.1:${port}/answer`),
      });
      expect(report).toMatchObject({ passed: false, score: null, sections: [] });
    } finally {
      server.close();
    }
    expect(() => httpAgent("https://example.com/answer")).toThrow(/local/);
  });

  it("npm run certify: the command exits 0 on a pass and prints the report", async () => {
    const agent = await newAgent(service);
    const { stdout } = await promisify(execFile)(
      join(process.cwd(), "node_modules", ".bin", "tsx"),
      [
        "scripts/certify.ts",
        "--pack",
        packId,
        "--key",
        agent.apiKey,
        "--agent-cmd",
        TINY_AGENT,
        "--base-url",
        service.baseUrl,
      ],
      { cwd: process.cwd(), timeout: 60_000 },
    );
    const report = JSON.parse(stdout.trim().split("\n").pop()!);
    expect(report).toMatchObject({ passed: true, agentId: agent.id, packId });
  }, 90_000);
});
