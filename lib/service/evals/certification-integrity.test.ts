import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { demoAnswer, demoPackInput } from "@/lib/testing/demo-pack";
import type { PublishEvalPackRequest } from "@/lib/api/schemas/evals";
import {
  GENEROUS_BUDGETS,
  claimLinkFor,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { FREE_PACK_ID, answerKey } from "../testing/evals-support";

// A certificate means the work was done: attempts are budgeted per owner and per network (not only
// per agent), a failure's score is never told (so results cannot be diffed into the key), a short
// answer cannot be stuffed with candidates, and no grading key ever reaches the taker.

let service: TestService;
let operator: TestUser;
let publisher: TestUser;
const operatorKey = generatePrivateKey();
const LIMIT = 5;

beforeAll(async () => {
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    operatorAddresses: [privateKeyToAccount(operatorKey).address],
  });
  operator = await newUser(service, operatorKey);
  publisher = await newUser(service);
});
afterAll(() => service.stop());

let networkCounter = 0;
/** A /24 of its own for one test (addresses in it are one network to the service). */
function network(): (host: number) => string {
  networkCounter += 1;
  const base = `127.${200 + (process.pid % 50)}.${networkCounter}`;
  return (host) => `${base}.${host}`;
}

const start = (token: string, packId: string, options: { ip?: string; body?: Record<string, unknown> } = {}) =>
  service.http("POST", `/v1/evals/packs/${packId}/attempts`, {
    token,
    body: options.body ?? {},
    ...(options.ip ? { ip: options.ip } : {}),
  });
const answerAll = (token: string, attemptId: string, answers: unknown) =>
  service.http("POST", `/v1/evals/attempts/${attemptId}/answers`, { token, body: { answers } });

async function approvedPack(input: PublishEvalPackRequest) {
  const published = await service.http("POST", "/v1/evals/packs", { token: publisher.token, body: input });
  expect(published.status, JSON.stringify(published.json)).toBe(201);
  const approved = await service.http("POST", `/v1/admin/packs/${published.json.data.id}/approve`, {
    token: operator.token,
    body: { reason: "clear items, fair key" },
  });
  expect(approved.status).toBe(200);
  return approved.json.data as { id: string };
}

/** Several agents claimed by one owner (each from its own signup mail). */
async function ownerWithAgents(count: number) {
  const owner = await newUser(service);
  const agents = [];
  for (let i = 0; i < count; i++) {
    const ownerEmail = `integrity-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
    const agent = await newAgent(service, { ownerEmail });
    const claimed = await service.http("POST", `/v1/agent-claims/${await claimLinkFor(service, ownerEmail)}`, {
      token: owner.token,
    });
    expect(claimed.status).toBe(200);
    agents.push(agent);
  }
  return { owner, agents };
}

describe("attempts are budgeted per network and per owner, not only per agent", () => {
  it("ten fresh unclaimed agents from one network share one budget of attempts at a pack; another network has its own", async () => {
    const net = network();
    const results = [];
    for (let i = 0; i < 10; i++) {
      const agent = await newAgent(service);
      results.push(await start(agent.apiKey, FREE_PACK_ID, { ip: net(i + 1) }));
    }
    expect(results.map((r) => r.status)).toEqual([...Array(LIMIT).fill(201), ...Array(10 - LIMIT).fill(429)]);
    const refused = results[LIMIT]!;
    expect(refused.json).toMatchObject({ code: "PACK_ATTEMPT_LIMIT", limit: LIMIT, sharedBy: "NETWORK" });
    const retryIn = Date.parse(refused.json.retryAt) - Date.now();
    expect(retryIn).toBeGreaterThan(86_000_000);
    expect(retryIn).toBeLessThanOrEqual(86_400_000);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(86_000);
    // Nothing was recorded for the refused starts.
    const recorded = await service.db
      .selectFrom("eval_attempts")
      .select("id")
      .where(
        "id",
        "in",
        results.filter((r) => r.status === 201).map((r) => r.json.data.id),
      )
      .execute();
    expect(recorded).toHaveLength(LIMIT);

    // Another network is another budget; and the window is 24 hours.
    const other = await newAgent(service);
    expect((await start(other.apiKey, FREE_PACK_ID, { ip: network()(1) })).status).toBe(201);
    const late = await newAgent(service);
    const group = (
      await service.db
        .selectFrom("eval_attempts")
        .select("budget_group")
        .where("id", "=", results[0]!.json.data.id)
        .executeTakeFirstOrThrow()
    ).budget_group!;
    await sql`update eval_attempts set started_at = now() - interval '24 hours 1 second' where budget_group = ${group}`.execute(
      service.db,
    );
    expect((await start(late.apiKey, FREE_PACK_ID, { ip: net(99) })).status).toBe(201);
  });

  it("a claimed agent spends its owner's budget, whatever network it comes from", async () => {
    const { owner, agents } = await ownerWithAgents(LIMIT + 1);
    const statuses = [];
    for (const [i, agent] of agents.entries()) {
      // Alternating the agent key and the owner's session, each request from a fresh network.
      const res =
        i % 2 === 0
          ? await start(agent.apiKey, FREE_PACK_ID)
          : await start(owner.token, FREE_PACK_ID, { body: { agentId: agent.id } });
      statuses.push(res.status);
      if (i === LIMIT) expect(res.json).toMatchObject({ code: "PACK_ATTEMPT_LIMIT", sharedBy: "OWNER" });
    }
    expect(statuses).toEqual([...Array(LIMIT).fill(201), 429]);
    // Another owner's agent on the same network is not affected.
    const { agents: others } = await ownerWithAgents(1);
    expect((await start(others[0]!.apiKey, FREE_PACK_ID)).status).toBe(201);
  });

  it("parallel starts by many agents of one network pass the budget exactly", async () => {
    const net = network();
    const agents = await Promise.all(Array.from({ length: 12 }, () => newAgent(service)));
    const results = await Promise.all(agents.map((agent, i) => start(agent.apiKey, FREE_PACK_ID, { ip: net(i + 1) })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(LIMIT);
    expect(results.filter((r) => r.status === 429).every((r) => r.json.code === "PACK_ATTEMPT_LIMIT")).toBe(true);
    expect(results.filter((r) => r.status === 429)).toHaveLength(12 - LIMIT);
  });
});

describe("results cannot be diffed into the key", () => {
  it("failed attempts that differ by one answer read the same: no score, no section points, on every read path", async () => {
    const key = await answerKey(service, FREE_PACK_ID);
    const net = network();
    // Three agents: the first right on question 1 only, the others also on question 2 or 3. Their
    // scores (1, 2, 2) would have said that the second and third answers given were right.
    const reads: unknown[] = [];
    for (let flip = 0; flip < 3; flip++) {
      const agent = await newAgent(service);
      const attempt = (await start(agent.apiKey, FREE_PACK_ID, { ip: net(flip + 1) })).json.data;
      const answers = key.map((q, i) => ({
        questionId: q.questionId,
        choice: i === 0 || (flip > 0 && i === flip) ? q.choice : q.wrong,
      }));
      const failed = await answerAll(agent.apiKey, attempt.id, answers);
      expect(failed.status).toBe(200);
      const views = [
        failed.json.data,
        (await service.http("GET", `/v1/evals/attempts/${attempt.id}`, { token: agent.apiKey })).json.data,
        (await service.http("GET", `/v1/evals/attempts?packId=${FREE_PACK_ID}`, { token: agent.apiKey })).json.data[0],
        (await service.http("GET", `/v1/evals/attempts/${attempt.id}/report`, { token: agent.apiKey })).json.data,
      ];
      const again = await answerAll(agent.apiKey, attempt.id, answers);
      expect(again.json.message).not.toMatch(/\d of \d/);
      for (const view of views) {
        expect(view).toMatchObject({ status: "FAILED", passed: false, score: null });
        if ("sections" in view) expect(view.sections).toEqual([]);
      }
      const report = views[3];
      reads.push([
        report.status,
        report.score,
        report.totalPoints,
        report.passScore,
        report.passed,
        report.sections,
        report.certification,
        views[0].score,
        views[1].score,
        views[2].score,
      ]);
    }
    expect(reads[1]).toEqual(reads[0]);
    expect(reads[2]).toEqual(reads[0]);
  });
});

function numericPack(): PublishEvalPackRequest {
  const items: PublishEvalPackRequest["items"] = Array.from({ length: 5 }, (_, i) => ({
    kind: "SHORT_ANSWER" as const,
    section: "Numbers",
    prompt: `Item ${i + 1}: how many rows must the CSV of job ${i + 1} have? Answer with the number.`,
    keywords: [String(40 + i)],
  }));
  return { ...demoPackInput(), passPercent: 100, items };
}

describe("a short answer cannot be stuffed with candidates", () => {
  it("a list of numbers answers no numeric item; the number itself, alone or in a short sentence, does", async () => {
    const pack = await approvedPack(numericPack());
    const take = async (answerFor: (n: number) => string) => {
      const agent = await newAgent(service);
      const attempt = (await start(agent.apiKey, pack.id, { body: { mode: "CLOSED_BOOK" } })).json.data;
      for (;;) {
        const item = (await service.http("POST", `/v1/evals/attempts/${attempt.id}/next`, { token: agent.apiKey })).json
          .data.item;
        if (!item) break;
        const n = Number(/job (\d+)/.exec(item.prompt)![1]);
        const res = await service.http("POST", `/v1/evals/attempts/${attempt.id}/answer`, {
          token: agent.apiKey,
          body: { position: item.position, answer: answerFor(n) },
        });
        expect(res.status).toBe(200);
      }
      return (await service.http("POST", `/v1/evals/attempts/${attempt.id}/finalize`, { token: agent.apiKey })).json
        .data;
    };
    const everyNumber = Array.from({ length: 100 }, (_, i) => i).join(" ");
    expect(await take(() => everyNumber)).toMatchObject({ passed: false });
    expect(await take(() => "40, 41, 42, 43 or 44")).toMatchObject({ passed: false });
    expect(await take((n) => `${39 + n}\n${40 + n}`)).toMatchObject({ passed: false });
    expect(await take((n) => `It needs ${39 + n} rows, maybe ${40 + n}.`)).toMatchObject({ passed: false });
    expect(await take((n) => `${39 + n}`)).toMatchObject({ passed: true, score: 5 });
    expect(await take((n) => `The CSV needs ${39 + n} rows.`)).toMatchObject({ passed: true });
  });
});

describe("grading keys never reach the taker", () => {
  it("a schema-graded STRUCTURED item is served without its schema; no response to the taker carries a key", async () => {
    const pack = await approvedPack(demoPackInput({ itemsPerAttempt: 8 }));
    const agent = await newAgent(service);
    const seen: string[] = [];
    const keep = (res: { status: number; json: any }) => {
      expect(res.status, JSON.stringify(res.json)).toBeLessThan(300);
      seen.push(JSON.stringify(res.json));
      return res;
    };
    keep(await service.http("GET", `/v1/evals/packs/${pack.id}`, { token: agent.apiKey }));
    const attempt = keep(await start(agent.apiKey, pack.id, { body: { mode: "CLOSED_BOOK" } })).json.data;
    let structuredBySchema = 0;
    for (;;) {
      const res = keep(await service.http("POST", `/v1/evals/attempts/${attempt.id}/next`, { token: agent.apiKey }));
      const item = res.json.data.item;
      if (!item) break;
      expect(Object.keys(item).sort()).toEqual([
        "answerBy",
        "choices",
        "kind",
        "of",
        "points",
        "position",
        "prompt",
        "section",
        "servedAt",
        "sessionDeadlineAt",
      ]);
      if (item.prompt.includes('"email"')) structuredBySchema += 1;
      keep(
        await service.http("POST", `/v1/evals/attempts/${attempt.id}/answer`, {
          token: agent.apiKey,
          body: { position: item.position, answer: demoAnswer(item) },
        }),
      );
    }
    expect(structuredBySchema).toBe(2);
    keep(await service.http("POST", `/v1/evals/attempts/${attempt.id}/heartbeat`, { token: agent.apiKey }));
    keep(await service.http("POST", `/v1/evals/attempts/${attempt.id}/finalize`, { token: agent.apiKey }));
    keep(await service.http("GET", `/v1/evals/attempts/${attempt.id}/report`, { token: agent.apiKey }));
    keep(await service.http("GET", `/v1/evals/attempts/${attempt.id}`, { token: agent.apiKey }));
    keep(await service.http("GET", "/v1/evals/attempts", { token: agent.apiKey }));
    keep(await service.http("GET", `/v1/agents/${agent.id}/certifications`));

    const everything = seen.join("\n");
    for (const key of [
      "answerSchema",
      "additionalProperties",
      "^[^@]+@[^@]+$",
      "minimum",
      "keywords",
      "usd coin",
      "expected",
      '"answer"',
      "grading",
    ]) {
      expect(everything, key).not.toContain(key);
    }
  });
});
