import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENEROUS_BUDGETS, jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import {
  FREE_PACK_ID,
  PAID_PACK_ID,
  answerKey,
  answersScoring,
  claimedAgent,
  letTimePass,
} from "../testing/evals-support";

// Certification packs on the HTTP surface, without a chain (the paid path against anvil is in
// paid-packs.test.ts).

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
});
afterAll(() => service.stop());

const start = (token: string, packId: string, body: Record<string, unknown> = {}) =>
  service.http("POST", `/v1/evals/packs/${packId}/attempts`, { token, body });
const answer = (token: string, attemptId: string, answers: unknown) =>
  service.http("POST", `/v1/evals/attempts/${attemptId}/answers`, { token, body: { answers } });

describe("GET /v1/evals/packs", () => {
  it("lists the seeded free and paid packs with their public fields", async () => {
    const res = await service.http("GET", "/v1/evals/packs");
    expect(res.status).toBe(200);
    expect(res.json.meta).toMatchObject({ hasMore: false, nextCursor: null, limit: 20 });
    const free = res.json.data.find((p: { id: string }) => p.id === FREE_PACK_ID);
    const paid = res.json.data.find((p: { id: string }) => p.id === PAID_PACK_ID);
    expect(free).toMatchObject({
      slug: "marketplace-basics",
      title: "Marketplace basics",
      isFree: true,
      priceUsdc: null,
      questionCount: 5,
      passScore: 4,
      vertical: null,
    });
    expect(paid).toMatchObject({
      slug: "lead-generation-verified",
      title: "Lead generation verified",
      isFree: false,
      priceUsdc: "5",
      questionCount: 5,
      passScore: 4,
      vertical: "LEAD_GEN",
    });
    expect(typeof free.certifiedCount).toBe("number");
    for (const pack of res.json.data) {
      expect(Object.keys(pack).sort()).toEqual(
        [
          "certifiedCount",
          "createdAt",
          "description",
          "id",
          "isFree",
          "passScore",
          "priceUsdc",
          "questionCount",
          "slug",
          "title",
          "vertical",
          "timeLimitSeconds",
          "itemsPerAttempt",
          "poolSize",
          "passPercent",
          "validityDays",
          "sections",
          "publisherId",
          "reviewStatus",
          "reviewReason",
        ].sort(),
      );
      if (!pack.isFree) {
        expect(Number(pack.priceUsdc)).toBeGreaterThanOrEqual(2);
        expect(Number(pack.priceUsdc)).toBeLessThanOrEqual(10);
      }
    }
  });

  it("filters by isFree and vertical, pages by cursor, and refuses bad queries", async () => {
    const free = await service.http("GET", "/v1/evals/packs?isFree=true");
    expect(free.json.data.every((p: { isFree: boolean }) => p.isFree)).toBe(true);
    expect(free.json.data.map((p: { id: string }) => p.id)).toContain(FREE_PACK_ID);
    const paid = await service.http("GET", "/v1/evals/packs?isFree=false&vertical=LEAD_GEN");
    expect(paid.json.data.map((p: { id: string }) => p.id)).toEqual([PAID_PACK_ID]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { json: { data: Array<{ id: string }>; meta: { nextCursor: string | null } } } = await service.http(
        "GET",
        `/v1/evals/packs?limit=1${cursor ? `&cursor=${cursor}` : ""}`,
      );
      seen.push(...page.json.data.map((p) => p.id));
      cursor = page.json.meta.nextCursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining([FREE_PACK_ID, PAID_PACK_ID]));

    expect((await service.http("GET", "/v1/evals/packs?cursor=nonsense!")).status).toBe(400);
    expect((await service.http("GET", "/v1/evals/packs?isFree=maybe")).status).toBe(400);
    const unknown = await service.http("GET", "/v1/evals/packs?price=5");
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toContain("property price should not exist");
  });
});

describe("GET /v1/evals/packs/:id", () => {
  it("shows the questions and choices by id or slug, never the answers", async () => {
    const byId = await service.http("GET", `/v1/evals/packs/${FREE_PACK_ID}`);
    expect(byId.status).toBe(200);
    expect(byId.json.data).toMatchObject({ id: FREE_PACK_ID, isFree: true, payment: null, questionCount: 5 });
    expect(byId.json.data.questions).toHaveLength(5);
    for (const q of byId.json.data.questions) {
      expect(Object.keys(q).sort()).toEqual(["choices", "id", "position", "prompt"]);
      expect(q.choices.length).toBeGreaterThanOrEqual(2);
      for (const c of q.choices) expect(Object.keys(c).sort()).toEqual(["id", "text"]);
    }
    expect(JSON.stringify(byId.json)).not.toMatch(/"answer"|"correct"/);
    const bySlug = await service.http("GET", "/v1/evals/packs/marketplace-basics");
    expect(bySlug.json.data.questions).toEqual(byId.json.data.questions);

    expect((await service.http("GET", "/v1/evals/packs/no-such-pack")).status).toBe(404);
    const unknown = await service.http("GET", "/v1/evals/packs/00000000-0000-4000-8000-000000000000");
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ statusCode: 404, error: "Not Found", code: "NOT_FOUND" });
  });

  it("a paid pack shows its payment instructions from the configuration, and refuses to check a payment while the chain cannot be reached (503)", async () => {
    const detail = await service.http("GET", `/v1/evals/packs/${PAID_PACK_ID}`);
    expect(detail.status).toBe(200);
    expect(detail.json.data).toMatchObject({
      isFree: false,
      priceUsdc: "5",
      payment: { payTo: "0x4444444444444444444444444444444444444444", amountUsdc: "5" },
    });
    const agent = await newAgent(service);
    expect((await start(agent.apiKey, PAID_PACK_ID)).status).toBe(402);
    const res = await service.http("POST", `/v1/evals/packs/${PAID_PACK_ID}/attempts`, {
      token: agent.apiKey,
      body: { txHash: `0x${"ab".repeat(32)}`, signature: `0x${"cd".repeat(65)}` },
    });
    expect(res.status).toBe(503);
    expect(res.json.code).toBe("CHAIN_UNAVAILABLE");
    expect(
      await service.db.selectFrom("eval_attempts").select("id").where("agent_id", "=", agent.id).execute(),
    ).toHaveLength(0);
  });
});

describe("free pack attempts", () => {
  it("fail, retry, pass: a certification; no retake once certified", async () => {
    const agent = await newAgent(service);
    const first = await start(agent.apiKey, FREE_PACK_ID);
    expect(first.status).toBe(201);
    expect(first.json.data).toMatchObject({
      packId: FREE_PACK_ID,
      agentId: agent.id,
      status: "IN_PROGRESS",
      paid: false,
      paymentTxHash: null,
      amountUsdc: null,
      score: null,
      passed: null,
      questionCount: 5,
      passScore: 4,
      certificationId: null,
      submittedAt: null,
      pack: { id: FREE_PACK_ID, slug: "marketplace-basics", title: "Marketplace basics" },
    });

    const again = await start(agent.apiKey, FREE_PACK_ID);
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ code: "ATTEMPT_IN_PROGRESS", existingAttemptId: first.json.data.id });

    const failed = await answer(agent.apiKey, first.json.data.id, await answersScoring(service, FREE_PACK_ID, 3));
    expect(failed.status).toBe(200);
    // A failure's score is not told: results differing by one answer would reveal that answer.
    expect(failed.json.data).toMatchObject({ status: "FAILED", score: null, passed: false, certificationId: null });
    expect(failed.json.data.submittedAt).not.toBeNull();
    expect(JSON.stringify(failed.json)).not.toMatch(/"answer"|"correct"/);

    const twice = await answer(agent.apiKey, first.json.data.id, await answersScoring(service, FREE_PACK_ID, 5));
    expect(twice.status).toBe(409);
    expect(twice.json.code).toBe("ATTEMPT_ALREADY_SUBMITTED");
    expect(
      (await service.http("GET", `/v1/evals/attempts/${first.json.data.id}`, { token: agent.apiKey })).json.data,
    ).toMatchObject({ status: "FAILED", score: null });
    expect((await service.http("GET", `/v1/agents/${agent.id}/certifications`)).json.data).toEqual([]);

    const before = (await service.http("GET", `/v1/evals/packs/${FREE_PACK_ID}`)).json.data.certifiedCount;
    await letTimePass(service, agent.id, FREE_PACK_ID);
    const retry = await start(agent.apiKey, FREE_PACK_ID);
    expect(retry.status).toBe(201);
    expect(retry.json.data.id).not.toBe(first.json.data.id);
    const passed = await answer(agent.apiKey, retry.json.data.id, await answersScoring(service, FREE_PACK_ID, 4));
    expect(passed.status).toBe(200);
    expect(passed.json.data).toMatchObject({ status: "PASSED", score: 4, passed: true });
    expect(passed.json.data.certificationId).toEqual(expect.any(String));

    const certs = await service.http("GET", `/v1/agents/${agent.id}/certifications`);
    expect(certs.status).toBe(200);
    expect(certs.json.data).toEqual([
      expect.objectContaining({
        id: passed.json.data.certificationId,
        agentId: agent.id,
        packId: FREE_PACK_ID,
        attemptId: retry.json.data.id,
        score: 4,
        questionCount: 5,
        passScore: 4,
        pack: expect.objectContaining({ slug: "marketplace-basics" }),
      }),
    ]);
    const after = (await service.http("GET", `/v1/evals/packs/${FREE_PACK_ID}`)).json.data.certifiedCount;
    expect(after).toBe(before + 1);

    const retake = await start(agent.apiKey, FREE_PACK_ID);
    expect(retake.status).toBe(409);
    expect(retake.json).toMatchObject({ code: "ALREADY_CERTIFIED", certificationId: passed.json.data.certificationId });
  });

  it("starts by slug too; refuses a txHash on a free pack and unknown packs", async () => {
    const agent = await newAgent(service);
    const withHash = await start(agent.apiKey, FREE_PACK_ID, { txHash: `0x${"ab".repeat(32)}` });
    expect(withHash.status).toBe(400);
    expect(withHash.json.code).toBe("VALIDATION_FAILED");
    const badHash = await start(agent.apiKey, FREE_PACK_ID, { txHash: "0x1234" });
    expect(badHash.status).toBe(400);
    const extra = await start(agent.apiKey, FREE_PACK_ID, { score: 5 });
    expect(extra.status).toBe(400);
    expect(extra.json.message).toContain("property score should not exist");
    expect((await start(agent.apiKey, "no-such-pack")).status).toBe(404);
    expect(
      await service.db.selectFrom("eval_attempts").select("id").where("agent_id", "=", agent.id).execute(),
    ).toHaveLength(0);

    const bySlug = await start(agent.apiKey, "marketplace-basics", { agentId: agent.id });
    expect(bySlug.status).toBe(201);
    expect(bySlug.json.data.packId).toBe(FREE_PACK_ID);
  });

  it("refuses incomplete, unknown, repeated and impossible answers and leaves the attempt open", async () => {
    const agent = await newAgent(service);
    const attempt = (await start(agent.apiKey, FREE_PACK_ID)).json.data;
    const key = await answerKey(service, FREE_PACK_ID);
    const right = key.map((q) => ({ questionId: q.questionId, choice: q.choice }));

    const cases: Array<[string, unknown, RegExp]> = [
      ["missing", right.slice(1), /must answer question mb-1/],
      ["unknown", [...right.slice(1), { questionId: "lg-1", choice: "a" }], /lg-1 is not a question of this pack/],
      ["repeated", [...right, right[0]], /answered more than once/],
      ["impossible choice", [{ ...right[0], choice: "z" }, ...right.slice(1)], /choice must be one of a, b, c, d/],
      ["empty", [], /must contain an answer/],
      ["extra property", [{ ...right[0], confidence: 1 }, ...right.slice(1)], /should not exist/],
      ["not an array", "abcd", /answers/],
    ];
    for (const [name, answers, message] of cases) {
      const res = await answer(agent.apiKey, attempt.id, answers);
      expect(res.status, name).toBe(400);
      expect(res.json.messages.join(" "), name).toMatch(message);
    }
    expect(
      (await service.http("GET", `/v1/evals/attempts/${attempt.id}`, { token: agent.apiKey })).json.data,
    ).toMatchObject({ status: "IN_PROGRESS", score: null });
    const ok = await answer(agent.apiKey, attempt.id, right);
    expect(ok.json.data).toMatchObject({ status: "PASSED", score: 5 });
  });

  it("unknown and malformed attempt ids", async () => {
    const agent = await newAgent(service);
    expect((await service.http("GET", "/v1/evals/attempts/not-a-uuid", { token: agent.apiKey })).status).toBe(400);
    expect(
      (await service.http("GET", "/v1/evals/attempts/00000000-0000-4000-8000-000000000000", { token: agent.apiKey }))
        .status,
    ).toBe(404);
    expect(
      (await answer(agent.apiKey, "00000000-0000-4000-8000-000000000000", [{ questionId: "mb-1", choice: "a" }]))
        .status,
    ).toBe(404);
  });

  it("parallel starts give one attempt; parallel submissions score it once", async () => {
    const agent = await newAgent(service);
    const starts = await Promise.all(Array.from({ length: 8 }, () => start(agent.apiKey, FREE_PACK_ID)));
    expect(starts.filter((r) => r.status === 201)).toHaveLength(1);
    expect(starts.filter((r) => r.status === 409).every((r) => r.json.code === "ATTEMPT_IN_PROGRESS")).toBe(true);
    const id = starts.find((r) => r.status === 201)!.json.data.id;
    const right = await answersScoring(service, FREE_PACK_ID, 5);
    const submits = await Promise.all(Array.from({ length: 6 }, () => answer(agent.apiKey, id, right)));
    expect(submits.filter((r) => r.status === 200)).toHaveLength(1);
    expect(submits.filter((r) => r.status === 409).every((r) => r.json.code === "ATTEMPT_ALREADY_SUBMITTED")).toBe(
      true,
    );
    expect(
      await service.db.selectFrom("eval_certifications").select("id").where("agent_id", "=", agent.id).execute(),
    ).toHaveLength(1);
  });
});

describe("who may take and read attempts", () => {
  it("an agent key acts for its own agent only; others get 403, anonymous 401", async () => {
    const agent = await newAgent(service);
    const other = await newAgent(service);
    const attempt = (await start(agent.apiKey, FREE_PACK_ID)).json.data;

    const forOther = await start(agent.apiKey, FREE_PACK_ID, { agentId: other.id });
    expect(forOther.status).toBe(403);
    expect((await service.http("GET", `/v1/evals/attempts/${attempt.id}`, { token: other.apiKey })).status).toBe(403);
    const steal = await answer(other.apiKey, attempt.id, await answersScoring(service, FREE_PACK_ID, 5));
    expect(steal.status).toBe(403);
    expect((await service.http("GET", `/v1/evals/attempts/${attempt.id}`)).status).toBe(401);
    expect((await service.http("POST", `/v1/evals/packs/${FREE_PACK_ID}/attempts`, { body: {} })).status).toBe(401);
    expect(
      (await service.http("GET", `/v1/evals/attempts/${attempt.id}`, { token: agent.apiKey })).json.data.status,
    ).toBe("IN_PROGRESS");
  });

  it("the owner's session takes a pack for its agent by naming agentId and reads its attempts", async () => {
    const { agent, owner } = await claimedAgent(service);
    const stranger = await newUser(service);

    const noAgent = await start(owner.token, FREE_PACK_ID);
    expect(noAgent.status).toBe(400);
    expect(noAgent.json.message).toContain("agentId should not be empty");
    expect((await start(stranger.token, FREE_PACK_ID, { agentId: agent.id })).status).toBe(403);
    expect((await start(owner.token, FREE_PACK_ID, { agentId: "no-such-agent" })).status).toBe(404);

    const attempt = await start(owner.token, FREE_PACK_ID, { agentId: agent.id });
    expect(attempt.status).toBe(201);
    expect(attempt.json.data.agentId).toBe(agent.id);
    expect(
      (await service.http("GET", `/v1/evals/attempts/${attempt.json.data.id}`, { token: stranger.token })).status,
    ).toBe(403);
    const passed = await answer(owner.token, attempt.json.data.id, await answersScoring(service, FREE_PACK_ID, 5));
    expect(passed.json.data.status).toBe("PASSED");
    // The agent's own key sees what its owner did.
    expect(
      (await service.http("GET", `/v1/evals/attempts/${attempt.json.data.id}`, { token: agent.apiKey })).json.data
        .status,
    ).toBe("PASSED");
  });

  it("GET /v1/evals/attempts lists one agent's attempts, newest first, by cursor", async () => {
    const { agent, owner } = await claimedAgent(service);
    const a1 = (await start(agent.apiKey, FREE_PACK_ID)).json.data;
    await answer(agent.apiKey, a1.id, await answersScoring(service, FREE_PACK_ID, 0));
    await letTimePass(service, agent.id, FREE_PACK_ID);
    const a2 = (await start(agent.apiKey, FREE_PACK_ID)).json.data;

    const own = await service.http("GET", "/v1/evals/attempts", { token: agent.apiKey });
    expect(own.status).toBe(200);
    expect(own.json.data.map((a: { id: string }) => a.id)).toEqual([a2.id, a1.id]);
    const paged = await service.http("GET", "/v1/evals/attempts?limit=1", { token: agent.apiKey });
    expect(paged.json.meta.hasMore).toBe(true);
    const next = await service.http("GET", `/v1/evals/attempts?limit=1&cursor=${paged.json.meta.nextCursor}`, {
      token: agent.apiKey,
    });
    expect(next.json.data.map((a: { id: string }) => a.id)).toEqual([a1.id]);
    const failedOnly = await service.http("GET", `/v1/evals/attempts?status=FAILED&packId=${FREE_PACK_ID}`, {
      token: agent.apiKey,
    });
    expect(failedOnly.json.data.map((a: { id: string }) => a.id)).toEqual([a1.id]);

    const byOwner = await service.http("GET", `/v1/evals/attempts?agentId=${agent.id}`, { token: owner.token });
    expect(byOwner.json.data).toHaveLength(2);
    expect((await service.http("GET", "/v1/evals/attempts", { token: owner.token })).status).toBe(400);
    const other = await newAgent(service);
    expect((await service.http("GET", `/v1/evals/attempts?agentId=${agent.id}`, { token: other.apiKey })).status).toBe(
      403,
    );
  });

  it("certifications are public; an unknown agent is a 404", async () => {
    expect((await service.http("GET", "/v1/agents/no-such-agent/certifications")).status).toBe(404);
    const agent = await newAgent(service);
    const res = await service.http("GET", `/v1/agents/${agent.id}/certifications`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: [] });
  });
});

describe("jobs with requiredPackId", () => {
  it("POST /v1/jobs: requiredPackId must name an existing pack (400 otherwise, nothing created); a slug is stored as the id", async () => {
    const poster = await newUser(service);
    for (const requiredPackId of ["00000000-0000-4000-8000-000000000000", "no-such-pack"]) {
      const res = await service.http("POST", "/v1/jobs", { token: poster.token, body: jobInput({ requiredPackId }) });
      expect(res.status, requiredPackId).toBe(400);
      expect(res.json.code).toBe("PACK_NOT_FOUND");
      expect(res.json.messages.join(" ")).toContain(requiredPackId);
    }
    expect(await service.db.selectFrom("jobs").select("id").where("poster_id", "=", poster.id).execute()).toHaveLength(
      0,
    );

    const byId = await service.http("POST", "/v1/jobs", {
      token: poster.token,
      body: jobInput({ requiredPackId: FREE_PACK_ID }),
    });
    expect(byId.status).toBe(201);
    expect(byId.json.data.requiredPackId).toBe(FREE_PACK_ID);
    const bySlug = await service.http("POST", "/v1/jobs", {
      token: poster.token,
      body: jobInput({ requiredPackId: "lead-generation-verified" }),
    });
    expect(bySlug.status).toBe(201);
    expect(bySlug.json.data.requiredPackId).toBe(PAID_PACK_ID);
    const plain = await service.http("POST", "/v1/jobs", { token: poster.token, body: jobInput() });
    expect(plain.json.data.requiredPackId).toBeNull();
  });

  it("bids from uncertified agents are refused with PACK_REQUIRED; after passing the free pack the bid is placed", async () => {
    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput({ requiredPackId: FREE_PACK_ID }) })).data;
    const agent = await newAgent(service);
    const bid = () =>
      service.http("POST", `/v1/jobs/${job.id}/bids`, {
        token: agent.apiKey,
        body: { agentId: agent.id, proposedUsdc: "40" },
      });

    const refused = await bid();
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({
      statusCode: 403,
      error: "Forbidden",
      code: "PACK_REQUIRED",
      requiredPackId: FREE_PACK_ID,
      requiredPack: { id: FREE_PACK_ID, slug: "marketplace-basics", title: "Marketplace basics" },
    });
    expect(refused.json.message).toContain("Marketplace basics");
    expect(await service.db.selectFrom("bids").select("id").where("job_id", "=", job.id).execute()).toHaveLength(0);

    // A failed attempt does not open the gate.
    const failed = (await start(agent.apiKey, FREE_PACK_ID)).json.data;
    await answer(agent.apiKey, failed.id, await answersScoring(service, FREE_PACK_ID, 3));
    expect((await bid()).json.code).toBe("PACK_REQUIRED");
    await letTimePass(service, agent.id, FREE_PACK_ID);

    // A certification of another pack does not either.
    const otherJob = (await poster.client.createJob({ body: jobInput({ requiredPackId: PAID_PACK_ID }) })).data;

    const attempt = (await start(agent.apiKey, FREE_PACK_ID)).json.data;
    expect(
      (await answer(agent.apiKey, attempt.id, await answersScoring(service, FREE_PACK_ID, 5))).json.data.status,
    ).toBe("PASSED");
    const placed = await bid();
    expect(placed.status).toBe(201);
    expect(placed.json.data).toMatchObject({ jobId: job.id, agentId: agent.id, status: "PENDING" });

    const wrongPack = await service.http("POST", `/v1/jobs/${otherJob.id}/bids`, {
      token: agent.apiKey,
      body: { agentId: agent.id, proposedUsdc: "40" },
    });
    expect(wrongPack.status).toBe(403);
    expect(wrongPack.json).toMatchObject({ code: "PACK_REQUIRED", requiredPack: { slug: "lead-generation-verified" } });
  });
});

describe("cooldown after failed attempts", () => {
  it("a failed attempt starts a cooldown that doubles with each failure in a row (429 PACK_COOLDOWN with retryAt), capped at a day; results never name the wrong answers", async () => {
    const agent = await newAgent(service);
    const attempts = async () =>
      (await service.db.selectFrom("eval_attempts").select("id").where("agent_id", "=", agent.id).execute()).length;
    const fail = async () => {
      const started = await start(agent.apiKey, FREE_PACK_ID);
      expect(started.status, JSON.stringify(started.json)).toBe(201);
      const failed = await answer(agent.apiKey, started.json.data.id, await answersScoring(service, FREE_PACK_ID, 3));
      expect(failed.json.data).toMatchObject({ status: "FAILED", score: null, passScore: 4, questionCount: 5 });
      // The pass mark, never the failure's score nor which answers were wrong.
      expect(JSON.stringify(failed.json)).not.toMatch(/"answer"|"correct"|"choice"|"questionId"/);
      return failed.json.data as { id: string; submittedAt: string; retryAt: string; failedAttemptsInARow: number };
    };
    const waitOf = (a: { submittedAt: string; retryAt: string }) =>
      (Date.parse(a.retryAt) - Date.parse(a.submittedAt)) / 1000;

    const first = await fail();
    expect(first.failedAttemptsInARow).toBe(1);
    expect(waitOf(first)).toBe(600);
    const refused = await start(agent.apiKey, FREE_PACK_ID);
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({
      statusCode: 429,
      code: "PACK_COOLDOWN",
      retryAt: first.retryAt,
      failedAttempts: 1,
    });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(590);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(600);
    expect(await attempts()).toBe(1);
    // Reading the attempt (its own key or the list) tells the same wait, and still no answer key.
    const read = (await service.http("GET", `/v1/evals/attempts/${first.id}`, { token: agent.apiKey })).json.data;
    expect(read).toMatchObject({ retryAt: first.retryAt, failedAttemptsInARow: 1 });

    // Nine minutes later: still waiting.
    await letTimePass(service, agent.id, FREE_PACK_ID, 540);
    expect((await start(agent.apiKey, FREE_PACK_ID)).json.code).toBe("PACK_COOLDOWN");
    await letTimePass(service, agent.id, FREE_PACK_ID, 61);
    const second = await fail();
    expect(second.failedAttemptsInARow).toBe(2);
    expect(waitOf(second)).toBe(1200);
    await letTimePass(service, agent.id, FREE_PACK_ID, 1140);
    expect((await start(agent.apiKey, FREE_PACK_ID)).status).toBe(429);
    await letTimePass(service, agent.id, FREE_PACK_ID, 61);
    const third = await fail();
    expect(waitOf(third)).toBe(2400);

    // Many failures in a row wait a day at most.
    await service.db.updateTable("eval_attempts").set({ failure_streak: 20 }).where("id", "=", third.id).execute();
    const capped = (await service.http("GET", `/v1/evals/attempts/${third.id}`, { token: agent.apiKey })).json.data;
    expect(waitOf(capped)).toBe(86_400);
    await letTimePass(service, agent.id, FREE_PACK_ID, 86_401);
    const passed = await start(agent.apiKey, FREE_PACK_ID);
    expect(passed.status).toBe(201);
    const result = await answer(agent.apiKey, passed.json.data.id, await answersScoring(service, FREE_PACK_ID, 4));
    expect(result.json.data).toMatchObject({ status: "PASSED", retryAt: null, failedAttemptsInARow: 0 });
  });
});

describe("OpenAPI", () => {
  it("lists the eval routes and the bid gate", async () => {
    const doc = (await service.http("GET", "/v1/openapi.json")).json;
    for (const path of [
      "/v1/evals/packs",
      "/v1/evals/packs/{id}",
      "/v1/evals/packs/{id}/attempts",
      "/v1/evals/attempts/{id}/answers",
      "/v1/evals/attempts/{id}",
      "/v1/evals/attempts",
      "/v1/agents/{id}/certifications",
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(JSON.stringify(doc.paths["/v1/jobs/{id}/bids"])).toContain("PACK_REQUIRED");
  });
});
