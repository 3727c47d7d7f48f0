import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { demoAnswer, demoPackInput, demoWrongAnswer } from "@/lib/testing/demo-pack";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";

// Sessions, item types, certificates and community packs on the HTTP surface.

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

async function approvedPack(overrides: Parameters<typeof demoPackInput>[0] = {}, poolSize = 8) {
  const published = await service.http("POST", "/v1/evals/packs", {
    token: publisher.token,
    body: demoPackInput(overrides, poolSize),
  });
  expect(published.status, JSON.stringify(published.json)).toBe(201);
  const approved = await service.http("POST", `/v1/admin/packs/${published.json.data.id}/approve`, {
    token: operator.token,
    body: { reason: "clear items, fair key" },
  });
  expect(approved.status).toBe(200);
  return approved.json.data as { id: string; sections: Array<{ name: string }> };
}

const startSession = (token: string, packId: string, mode = "CLOSED_BOOK") =>
  service.http("POST", `/v1/evals/packs/${packId}/attempts`, { token, body: { mode } });
const next = (token: string, attemptId: string) =>
  service.http("POST", `/v1/evals/attempts/${attemptId}/next`, { token });
const answer = (token: string, attemptId: string, body: Record<string, unknown>) =>
  service.http("POST", `/v1/evals/attempts/${attemptId}/answer`, { token, body });
const finalize = (token: string, attemptId: string) =>
  service.http("POST", `/v1/evals/attempts/${attemptId}/finalize`, { token });

/** Takes every item; `right(position)` says whether to answer it right. Returns the prompts in order. */
async function takeAll(
  token: string,
  attemptId: string,
  right: (item: { kind: string; section: string }) => boolean = () => true,
) {
  const prompts: string[] = [];
  for (;;) {
    const res = await next(token, attemptId);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const item = res.json.data.item;
    if (!item) return prompts;
    prompts.push(item.prompt);
    const given = right(item) ? demoAnswer(item) : demoWrongAnswer(item);
    const ok = await answer(token, attemptId, { position: item.position, answer: given, ttfbMs: 120, totalMs: 900 });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
  }
}

describe("sessions", () => {
  it("a timed session refuses a late answer (session time, then an item's own budget) and an item answered twice", async () => {
    const pack = await approvedPack({
      items: demoPackInput().items.map((item) => ({ ...item, timeLimitSeconds: 30 })),
      itemsPerAttempt: 8,
    });
    const agent = await newAgent(service);
    const started = await startSession(agent.apiKey, pack.id);
    expect(started.status).toBe(201);
    expect(started.json.data).toMatchObject({
      mode: "CLOSED_BOOK",
      status: "IN_PROGRESS",
      itemCount: 8,
      answeredCount: 0,
    });
    const attemptId = started.json.data.id;
    expect(new Date(started.json.data.deadlineAt).getTime() - new Date(started.json.data.startedAt).getTime()).toBe(
      600_000,
    );

    const first = (await next(agent.apiKey, attemptId)).json.data.item;
    // Items come one at a time: asking again serves the same item; the next position is not served yet.
    expect((await next(agent.apiKey, attemptId)).json.data.item.position).toBe(first.position);
    const ahead = await answer(agent.apiKey, attemptId, { position: first.position + 1, answer: "b" });
    expect(ahead.status).toBe(409);
    expect(ahead.json).toMatchObject({ code: "ITEM_NOT_SERVED", currentPosition: first.position });
    expect(
      (await answer(agent.apiKey, attemptId, { position: first.position, answer: demoAnswer(first) })).status,
    ).toBe(200);
    const twice = await answer(agent.apiKey, attemptId, { position: first.position, answer: demoAnswer(first) });
    expect(twice.json.code).toBe("ITEM_ALREADY_ANSWERED");

    // Every item has a 30 s budget: the next one is served, then 31 s pass (moved stored timestamps, no sleep).
    const item = (await next(agent.apiKey, attemptId)).json.data.item;
    expect(new Date(item.answerBy).getTime() - new Date(item.servedAt).getTime()).toBe(30_000);
    await service.db
      .updateTable("eval_attempt_items")
      .set({ served_at: sql`served_at - interval '31 seconds'` })
      .where("attempt_id", "=", attemptId)
      .where("position", "=", item.position)
      .execute();
    const lateItem = await answer(agent.apiKey, attemptId, { position: item.position, answer: demoAnswer(item) });
    expect(lateItem.status).toBe(409);
    expect(lateItem.json.code).toBe("ITEM_TIME_EXPIRED");
    expect(lateItem.json.answerBy).toBeTruthy();
    // next closes it with no points and serves the following item.
    const after = (await next(agent.apiKey, attemptId)).json.data.item;
    expect(after.position).toBeGreaterThan(item.position);

    const beat = await service.http("POST", `/v1/evals/attempts/${attemptId}/heartbeat`, { token: agent.apiKey });
    expect(beat.status).toBe(200);
    expect(beat.json.data.secondsLeft).toBeGreaterThan(500);

    // The session's time runs out.
    await service.db
      .updateTable("eval_attempts")
      .set({ deadline_at: sql`now() - interval '1 second'`, started_at: sql`now() - interval '601 seconds'` })
      .where("id", "=", attemptId)
      .execute();
    const late = await answer(agent.apiKey, attemptId, { position: after.position, answer: demoAnswer(after) });
    expect(late.status).toBe(409);
    expect(late.json.code).toBe("SESSION_TIME_EXPIRED");
    expect((await next(agent.apiKey, attemptId)).json.code).toBe("SESSION_TIME_EXPIRED");
    const stored = await service.db
      .selectFrom("eval_attempt_items")
      .select("answered_at")
      .where("attempt_id", "=", attemptId)
      .where("position", "=", after.position)
      .executeTakeFirstOrThrow();
    expect(stored.answered_at).toBeNull();

    // Finalize still works after the time: the report counts the answers given in time.
    const report = await finalize(agent.apiKey, attemptId);
    expect(report.status).toBe(200);
    expect(report.json.data.timeUsedSeconds).toBe(600);
    expect((await finalize(agent.apiKey, attemptId)).json.code).toBe("ATTEMPT_FINALIZED");
  });

  it("items are drawn from the pool in a random order per attempt", async () => {
    const pack = await approvedPack({ itemsPerAttempt: 10 }, 12);
    const orders: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const agent = await newAgent(service);
      const attempt = (await startSession(agent.apiKey, pack.id)).json.data;
      expect(attempt.itemCount).toBe(10);
      orders.push(await takeAll(agent.apiKey, attempt.id));
    }
    expect(orders[0]).toHaveLength(10);
    expect(orders[1]).toHaveLength(10);
    // 12 items, 10 drawn in order: two attempts agree with probability 1 / (12!/2!).
    expect(orders[0]).not.toEqual(orders[1]);
  });

  it("grades short answers by a golden keyword and structured tasks by JSON comparison and by schema; the report has section scores and not which answers were wrong", async () => {
    const pack = await approvedPack();
    const agent = await newAgent(service);
    const attempt = (await startSession(agent.apiKey, pack.id, "TOOL_ALLOWED")).json.data;
    // Right everywhere but the Rules section (multiple choice).
    await takeAll(agent.apiKey, attempt.id, (item) => item.section !== "Rules");
    const report = (await finalize(agent.apiKey, attempt.id)).json.data;
    // 8 items: Rules 2×2 points, Knowledge 2×1, Tasks 4×1 → 10 points; 60 % → 6 to pass.
    expect(report).toMatchObject({
      mode: "TOOL_ALLOWED",
      score: 6,
      totalPoints: 10,
      passScore: 6,
      passed: true,
      status: "PASSED",
    });
    const sections = Object.fromEntries(
      report.sections.map((s: { section: string; points: number; maxPoints: number }) => [
        s.section,
        [s.points, s.maxPoints],
      ]),
    );
    expect(sections).toEqual({ Rules: [0, 4], Knowledge: [2, 2], Tasks: [4, 4] });
    expect(Object.keys(report).sort()).toEqual(
      [
        "attemptId",
        "packId",
        "agentId",
        "status",
        "mode",
        "score",
        "totalPoints",
        "passScore",
        "passed",
        "sections",
        "timeUsedSeconds",
        "timeLimitSeconds",
        "certification",
        "retryAt",
        "pack",
      ].sort(),
    );
    expect(report.certification.code).toMatch(/^[A-Z2-9]{10}$/);
    const read = await service.http("GET", `/v1/evals/attempts/${attempt.id}/report`, { token: agent.apiKey });
    expect(read.json.data).toEqual(report);
    // Another agent cannot read it.
    const stranger = await newAgent(service);
    expect(
      (await service.http("GET", `/v1/evals/attempts/${attempt.id}/report`, { token: stranger.apiKey })).status,
    ).toBe(403);
  });

  it("a failed report shows neither its score nor section points, never which answers were wrong, and starts the growing cooldown", async () => {
    const pack = await approvedPack();
    const agent = await newAgent(service);
    const attempt = (await startSession(agent.apiKey, pack.id)).json.data;
    await takeAll(agent.apiKey, attempt.id, (item) => item.section === "Knowledge");
    const res = await finalize(agent.apiKey, attempt.id);
    expect(res.json.data).toMatchObject({
      status: "FAILED",
      passed: false,
      score: null,
      sections: [],
      certification: null,
    });
    expect(res.json.data.retryAt).toBeTruthy();
    expect(JSON.stringify(res.json)).not.toMatch(/"(answer|correct|right|wrong|items|prompt)"/);
    const again = await startSession(agent.apiKey, pack.id);
    expect(again.status).toBe(429);
    expect(again.json.code).toBe("PACK_COOLDOWN");
  });

  it("the one-request attempt is refused on session routes, and a session on the one-request route", async () => {
    const pack = await approvedPack();
    const agent = await newAgent(service);
    // A community pack is taken by sessions only.
    expect(
      (await service.http("POST", `/v1/evals/packs/${pack.id}/attempts`, { token: agent.apiKey, body: {} })).json.code,
    ).toBe("NOT_A_SESSION");
    const attempt = (await startSession(agent.apiKey, pack.id)).json.data;
    const oneShot = await service.http("POST", `/v1/evals/attempts/${attempt.id}/answers`, {
      token: agent.apiKey,
      body: { answers: [{ questionId: "v1-1", choice: "b" }] },
    });
    expect(oneShot.json.code).toBe("NOT_A_SESSION");
  });
});

describe("certificates", () => {
  it("a pass issues a public certificate with mode and score; once expired it no longer admits a bid on a job that requires it", async () => {
    const pack = await approvedPack({ validityDays: 30 });
    const agent = await newAgent(service);
    const attempt = (await startSession(agent.apiKey, pack.id, "WEB_ALLOWED")).json.data;
    await takeAll(agent.apiKey, attempt.id);
    const report = (await finalize(agent.apiKey, attempt.id)).json.data;
    const code = report.certification.code;
    expect(new Date(report.certification.expiresAt).getTime() - Date.now()).toBeGreaterThan(29 * 86_400_000);

    const publicCert = await service.http("GET", `/v1/certifications/${code}`);
    expect(publicCert.status).toBe(200);
    expect(publicCert.json.data).toMatchObject({
      code,
      valid: true,
      agent: { id: agent.id },
      pack: { id: pack.id },
      mode: "WEB_ALLOWED",
      score: 10,
      totalPoints: 10,
    });
    expect((await service.http("GET", "/v1/certifications/NOSUCHCODE")).status).toBe(404);
    const events = await service.db
      .selectFrom("domain_events")
      .select(["type", "data"])
      .where("type", "=", "eval.certified")
      .where(sql<boolean>`data->>'attemptId' = ${attempt.id}`)
      .execute();
    expect(events).toHaveLength(1);

    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput({ requiredPackId: pack.id }) })).data;
    const bid = await service.http("POST", `/v1/jobs/${job.id}/bids`, {
      token: agent.apiKey,
      body: { agentId: agent.id, proposedUsdc: "40" },
    });
    expect(bid.status).toBe(201);
    // The poster sees the bidder's certification with its score and mode.
    const bids = await service.http("GET", `/v1/jobs/${job.id}/bids`, { token: poster.token });
    expect(bids.json.data[0].agent.certifications).toEqual([
      expect.objectContaining({ packId: pack.id, code, score: 10, totalPoints: 10, mode: "WEB_ALLOWED", valid: true }),
    ]);

    // 31 days later (stored timestamps moved back).
    await service.db
      .updateTable("eval_certifications")
      .set({ expires_at: sql`now() - interval '1 day'`, certified_at: sql`now() - interval '31 days'` })
      .where("code", "=", code)
      .execute();
    const job2 = (await poster.client.createJob({ body: jobInput({ requiredPackId: pack.id }) })).data;
    const refused = await service.http("POST", `/v1/jobs/${job2.id}/bids`, {
      token: agent.apiKey,
      body: { agentId: agent.id, proposedUsdc: "40" },
    });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ code: "CERTIFICATION_EXPIRED", requiredPackId: pack.id });
    expect((await service.http("GET", `/v1/certifications/${code}`)).json.data.valid).toBe(false);

    // Renewal: passing again renews the one certification (new code, new expiry) and admits the bid.
    const retake = (await startSession(agent.apiKey, pack.id)).json.data;
    await takeAll(agent.apiKey, retake.id);
    const renewed = (await finalize(agent.apiKey, retake.id)).json.data;
    expect(renewed.certification.code).not.toBe(code);
    expect(
      (
        await service.http("POST", `/v1/jobs/${job2.id}/bids`, {
          token: agent.apiKey,
          body: { agentId: agent.id, proposedUsdc: "40" },
        })
      ).status,
    ).toBe(201);
    expect(
      await service.db
        .selectFrom("eval_certifications")
        .select("id")
        .where("agent_id", "=", agent.id)
        .where("pack_id", "=", pack.id)
        .execute(),
    ).toHaveLength(1);
  });
});

describe("community packs", () => {
  it("a published pack is refused for listing, taking and requiring until the operator approves it (audited)", async () => {
    const input = demoPackInput();
    const published = await service.http("POST", "/v1/evals/packs", { token: publisher.token, body: input });
    expect(published.status).toBe(201);
    const pack = published.json.data;
    expect(pack).toMatchObject({
      reviewStatus: "PENDING",
      publisherId: publisher.id,
      poolSize: 8,
      passPercent: 60,
      timeLimitSeconds: 600,
    });

    const listed = async () =>
      (await service.http("GET", "/v1/evals/packs?limit=100")).json.data.map((p: { id: string }) => p.id);
    expect(await listed()).not.toContain(pack.id);
    expect((await service.http("GET", `/v1/evals/packs/${pack.id}`)).status).toBe(404);
    expect((await service.http("GET", `/v1/evals/packs/${pack.id}`, { token: publisher.token })).status).toBe(200);
    expect(
      (await service.http("GET", "/v1/evals/packs?mine=true", { token: publisher.token })).json.data.map(
        (p: { id: string }) => p.id,
      ),
    ).toContain(pack.id);
    const poster = await newUser(service);
    const required = await service.http("POST", "/v1/jobs", {
      token: poster.token,
      body: jobInput({ requiredPackId: pack.id }),
    });
    expect(required.status).toBe(400);
    expect(required.json.code).toBe("PACK_NOT_APPROVED");
    const agent = await newAgent(service);
    expect((await startSession(agent.apiKey, pack.id)).status).toBe(404);

    // Only the operator reviews.
    const notOperator = await service.http("POST", `/v1/admin/packs/${pack.id}/approve`, {
      token: publisher.token,
      body: { reason: "looks fine to me" },
    });
    expect(notOperator.status).toBe(403);
    expect(notOperator.json.code).toBe("NOT_OPERATOR");
    const queue = await service.http("GET", "/v1/admin/packs", { token: operator.token });
    expect(queue.json.data.map((p: { id: string }) => p.id)).toContain(pack.id);
    const approved = await service.http("POST", `/v1/admin/packs/${pack.id}/approve`, {
      token: operator.token,
      body: { reason: "items are clear" },
    });
    expect(approved.json.data.reviewStatus).toBe("APPROVED");
    const audit = await service.db
      .selectFrom("operator_actions")
      .select(["action", "reason"])
      .where("subject_id", "=", pack.id)
      .execute();
    expect(audit).toEqual([{ action: "pack.approve", reason: "items are clear" }]);
    expect(await listed()).toContain(pack.id);
    expect(
      (await service.http("POST", "/v1/jobs", { token: poster.token, body: jobInput({ requiredPackId: pack.id }) }))
        .status,
    ).toBe(201);

    // An edit goes back to review; the operator may refuse it, with the reason shown to the publisher.
    const edited = await service.http("PUT", `/v1/evals/packs/${pack.id}`, {
      token: publisher.token,
      body: { ...input, title: "Demo community pack, edited" },
    });
    expect(edited.json.data.reviewStatus).toBe("PENDING");
    expect(await listed()).not.toContain(pack.id);
    const other = await newUser(service);
    expect((await service.http("PUT", `/v1/evals/packs/${pack.id}`, { token: other.token, body: input })).status).toBe(
      404,
    );
    await service.http("POST", `/v1/admin/packs/${pack.id}/refuse`, {
      token: operator.token,
      body: { reason: "item 3 is ambiguous" },
    });
    const mine = await service.http("GET", `/v1/evals/packs/${pack.id}`, { token: publisher.token });
    expect(mine.json.data).toMatchObject({ reviewStatus: "REFUSED", reviewReason: "item 3 is ambiguous" });
  });

  it("refuses packs outside the rules: an agent key, 4 or 61 items, a price outside 2–10 USDC, an item without its key, an unsupported schema keyword", async () => {
    const agent = await newAgent(service);
    expect((await service.http("POST", "/v1/evals/packs", { token: agent.apiKey, body: demoPackInput() })).status).toBe(
      403,
    );
    const bad = async (body: unknown) =>
      (await service.http("POST", "/v1/evals/packs", { token: publisher.token, body })).status;
    expect(await bad(demoPackInput({}, 4))).toBe(400);
    expect(await bad(demoPackInput({}, 61))).toBe(400);
    expect(await bad(demoPackInput({ priceUsdc: "1.5" }))).toBe(400);
    expect(await bad(demoPackInput({ priceUsdc: "11" }))).toBe(400);
    const items = demoPackInput().items;
    expect(
      await bad(demoPackInput({ items: [...items.slice(1), { kind: "SHORT_ANSWER", prompt: "no keywords" }] })),
    ).toBe(400);
    expect(
      await bad(
        demoPackInput({ items: [...items.slice(1), { kind: "STRUCTURED", prompt: "x", answerSchema: { oneOf: [] } }] }),
      ),
    ).toBe(400);
    // Ajv in strict mode: an unknown keyword or a wrong type name cannot grade, so it is refused up front.
    expect(
      await bad(
        demoPackInput({
          items: [
            ...items.slice(1),
            { kind: "STRUCTURED", prompt: "x", answerSchema: { type: "object", frobnicate: true } },
          ],
        }),
      ),
    ).toBe(400);
    expect(
      await bad(
        demoPackInput({
          items: [...items.slice(1), { kind: "STRUCTURED", prompt: "x", answerSchema: { type: "objekt" } }],
        }),
      ),
    ).toBe(400);
    expect(await bad(demoPackInput({ priceUsdc: "2" }))).toBe(201);
  });

  it("the publisher sees attempts, pass rate and item statistics, with items everyone fails or passes flagged", async () => {
    const pack = await approvedPack();
    for (let i = 0; i < 3; i++) {
      const agent = await newAgent(service);
      const attempt = (await startSession(agent.apiKey, pack.id)).json.data;
      // Everyone fails the Rules items and gets the rest right.
      await takeAll(agent.apiKey, attempt.id, (item) => item.section !== "Rules");
      await finalize(agent.apiKey, attempt.id);
    }
    const stats = await service.http("GET", `/v1/evals/packs/${pack.id}/stats`, { token: publisher.token });
    expect(stats.status).toBe(200);
    expect(stats.json.data).toMatchObject({ attempts: 3, finished: 3, passed: 3, passRate: 1 });
    for (const item of stats.json.data.items) {
      expect(item.answered).toBe(3);
      expect(item.flag).toBe(item.section === "Rules" ? "ALL_FAIL" : "ALL_PASS");
    }
    const stranger = await newUser(service);
    expect((await service.http("GET", `/v1/evals/packs/${pack.id}/stats`, { token: stranger.token })).status).toBe(403);
  });
});
