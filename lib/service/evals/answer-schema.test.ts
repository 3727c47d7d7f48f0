import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { demoAnswer, demoPackInput } from "@/lib/testing/demo-pack";
import { EVIL_PATTERN_ANSWER, hostilePackInput, hugeAnswerSchema, quadraticAnswer } from "@/lib/testing/hostile-packs";
import {
  GENEROUS_BUDGETS,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { ANSWER_SCHEMA_LIMITS, GRADE_TIME_LIMIT_MS } from "./answer-schema";

// Publishers' answer schemas are bounded, compiled off the event loop, matched by a linear-time
// regular expression engine, and answers are checked under a time limit (answer-schema.ts).

let service: TestService;
let operator: TestUser;
let publisher: TestUser;
const operatorKey = generatePrivateKey();

beforeAll(async () => {
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    operatorAddresses: [privateKeyToAccount(operatorKey).address],
  });
  operator = await newUser(service, operatorKey);
  publisher = await newUser(service);
});
afterAll(() => service.stop());

const withSchema = (answerSchema: Record<string, unknown>) => {
  const items = demoPackInput().items;
  return demoPackInput({ items: [...items.slice(1), { kind: "STRUCTURED", prompt: "x", answerSchema }] });
};

describe("answer schemas at publishing", () => {
  it("a 2,500-property anyOf (~200 kB) is refused at once with the bound it passes, before anything compiles", async () => {
    const started = Date.now();
    const res = await service.http("POST", "/v1/evals/packs", {
      token: publisher.token,
      body: withSchema(hugeAnswerSchema()),
    });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("VALIDATION_FAILED");
    expect(res.json.messages).toEqual([
      `items.7.answerSchema has more than ${ANSWER_SCHEMA_LIMITS.maxMembers} members (object keys and array elements, all levels counted)`,
    ]);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("refuses a schema nested deeper than 12 levels, one over 16 KiB, and a pattern RE2 cannot run (lookahead), each with its reason", async () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 7; i++) deep = { type: "object", properties: { a: deep } };
    const tooDeep = await service.http("POST", "/v1/evals/packs", { token: publisher.token, body: withSchema(deep) });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.json.messages).toEqual([
      `items.7.answerSchema nests deeper than ${ANSWER_SCHEMA_LIMITS.maxDepth} levels`,
    ]);

    const big = await service.http("POST", "/v1/evals/packs", {
      token: publisher.token,
      body: withSchema({ type: "string", description: "d".repeat(17_000) }),
    });
    expect(big.status).toBe(400);
    expect(big.json.messages[0]).toMatch(/^items\.7\.answerSchema is \d+ bytes of JSON; at most 16384 are allowed$/);

    const lookahead = await service.http("POST", "/v1/evals/packs", {
      token: publisher.token,
      body: withSchema({ type: "string", pattern: "^(?=a)a+$" }),
    });
    expect(lookahead.status).toBe(400);
    expect(lookahead.json.messages[0]).toMatch(/^items\.7\.answerSchema is not a usable JSON Schema: .*\(\?=/);
  });
});

describe("answers to schema items", () => {
  it("a backtracking pattern answers in linear time, a quadratic uniqueItems check is cut at the time limit and scores nothing; a right answer scores", async () => {
    const published = await service.http("POST", "/v1/evals/packs", {
      token: publisher.token,
      body: hostilePackInput(),
    });
    expect(published.status, JSON.stringify(published.json)).toBe(201);
    const approved = await service.http("POST", `/v1/admin/packs/${published.json.data.id}/approve`, {
      token: operator.token,
      body: { reason: "hostile on purpose" },
    });
    expect(approved.status).toBe(200);

    // Two agents: one answers both hostile items with hostile answers, the other answers them right.
    for (const hostile of [true, false]) {
      const agent = await newAgent(service);
      const started = await service.http("POST", `/v1/evals/packs/${published.json.data.id}/attempts`, {
        token: agent.apiKey,
        body: { mode: "CLOSED_BOOK" },
      });
      expect(started.status, JSON.stringify(started.json)).toBe(201);
      const attemptId = started.json.data.id;
      for (;;) {
        const next = await service.http("POST", `/v1/evals/attempts/${attemptId}/next`, { token: agent.apiKey });
        const item = next.json.data.item;
        if (!item) break;
        let answer: unknown = demoAnswer(item);
        if (item.prompt.startsWith("PATTERN")) answer = hostile ? EVIL_PATTERN_ANSWER : "ten words of plain text";
        if (item.prompt.startsWith("UNIQUE")) answer = hostile ? quadraticAnswer() : [1, 2, 3];
        const at = Date.now();
        const res = await service.http("POST", `/v1/evals/attempts/${attemptId}/answer`, {
          token: agent.apiKey,
          body: { position: item.position, answer },
        });
        expect(res.status, JSON.stringify(res.json)).toBe(200);
        // Cut at the time limit (plus the worker's restart and the request's own costs on a slow machine).
        if (item.prompt.startsWith("UNIQUE") || item.prompt.startsWith("PATTERN"))
          expect(Date.now() - at).toBeLessThan(GRADE_TIME_LIMIT_MS + 3_000);
      }
      const points = await service.db
        .selectFrom("eval_attempt_items as i")
        .innerJoin("eval_questions as q", (join) =>
          join.onRef("q.pack_id", "=", "i.pack_id").onRef("q.id", "=", "i.question_id"),
        )
        .select(["q.prompt", "i.points_awarded"])
        .where("i.attempt_id", "=", attemptId)
        .execute();
      const of = (prefix: string) => points.find((p) => p.prompt.startsWith(prefix))!.points_awarded;
      expect([of("PATTERN"), of("UNIQUE")]).toEqual(hostile ? [0, 0] : [1, 1]);
    }
  });
});
