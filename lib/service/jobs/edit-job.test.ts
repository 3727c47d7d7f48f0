import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobInput, newAgent, newUser, startTestService, type TestService, type TestUser } from "../testing/harness";
import { expectError } from "../testing/expect-error";
import { fakeTxHash } from "../testing/records-support";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

async function postJob(poster: TestUser, overrides: Record<string, unknown> = {}) {
  const res = await service.http("POST", "/v1/jobs", { token: poster.token, body: jobInput(overrides) });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data as { id: string; description: string };
}

const patch = (token: string, jobId: string, body: unknown) =>
  service.http("PATCH", `/v1/jobs/${jobId}`, { token, body });
const bid = async (jobId: string, budget = "40") => {
  const agent = await newAgent(service);
  const res = await service.http("POST", `/v1/jobs/${jobId}/bids`, {
    token: agent.apiKey,
    body: { agentId: agent.id, proposedUsdc: budget },
  });
  return { agent, res };
};
const fundDirectly = (jobId: string) =>
  service.db
    .updateTable("jobs")
    .set({
      escrow_tx_hash: fakeTxHash(),
      escrow_payer: "0x00000000000000000000000000000000000000aa",
      funded_at: new Date(),
    })
    .where("id", "=", jobId)
    .execute();

describe("PATCH /v1/jobs/:id: the poster edits a job", () => {
  it("before the first bid every field changes; the board and the search read the new brief", async () => {
    const poster = await newUser(service);
    const job = await postJob(poster);
    const deadline = new Date(Date.now() + 5 * 86_400_000).toISOString();
    const res = await patch(poster.token, job.id, {
      title: "Collect 80 B2B leads in insurtech",
      description: "Find 80 decision makers at European insurtech companies, with verified emails and titles.",
      acceptanceCriteria: [
        "A CSV with 80 rows",
        { description: "Answers HTTP 200", check: { type: "http_status", equals: 200 } },
      ],
      budget: "55",
      proofContentMarker: "awm-insurtech-1",
      proofHoldHours: 24,
      deadlineAt: deadline,
      requiredSkills: ["research"],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({
      title: "Collect 80 B2B leads in insurtech",
      budgetUsdc: expect.stringMatching(/^55(\.0+)?$/),
      deadlineAt: deadline,
      requiredSkills: ["research"],
      acceptanceCriteria: [
        { id: "ac-1", description: "A CSV with 80 rows", check: { type: "manual" } },
        { id: "ac-2", description: "Answers HTTP 200", check: { type: "http_status", equals: 200 } },
      ],
      inputData: {
        proofHoldHours: 24,
        proofContentMarker: "awm-insurtech-1",
        generalDescription: expect.stringContaining("insurtech"),
      },
    });
    const found = await service.http("GET", `/v1/jobs?q=insurtech&posterId=${poster.id}`);
    expect(found.json.data.map((j: { id: string }) => j.id)).toEqual([job.id]);
    // The marker can be taken away again before bids.
    const cleared = await patch(poster.token, job.id, { proofContentMarker: null });
    expect(cleared.json.data.inputData.proofContentMarker).toBeUndefined();
  });

  it("only the poster edits; bad input is a 400 that changes nothing; a closed job takes no edit", async () => {
    const poster = await newUser(service);
    const job = await postJob(poster);
    const stranger = await newUser(service);
    expectError(await patch(stranger.token, job.id, { title: "Hijacked title here" }), 403, "FORBIDDEN");
    const agent = await newAgent(service);
    expectError(await patch(agent.apiKey, job.id, { title: "Hijacked title here" }), 403, "FORBIDDEN");
    expectError(await patch(poster.token, job.id, {}), 400, "VALIDATION_FAILED");
    expectError(await patch(poster.token, job.id, { status: "COMPLETED" }), 400, "VALIDATION_FAILED");
    expectError(await patch(poster.token, job.id, { proofHoldHours: 10_000 }), 400, "VALIDATION_FAILED");
    expectError(
      await patch(poster.token, "00000000-0000-4000-8000-000000000000", { title: "Nobody's job at all" }),
      404,
      "NOT_FOUND",
    );
    const unchanged = await service.http("GET", `/v1/jobs/${job.id}`, { token: poster.token });
    expect(unchanged.json.data.title).toBe(jobInput().title);

    await service.http("POST", `/v1/jobs/${job.id}/cancel`, { token: poster.token });
    expectError(await patch(poster.token, job.id, { title: "Too late for this" }), 409, "INVALID_STATE");
  });

  it("a funded budget is locked; other fields of a funded job without bids still change", async () => {
    const poster = await newUser(service);
    const job = await postJob(poster);
    await fundDirectly(job.id);
    const refused = await patch(poster.token, job.id, { budget: "60" });
    expectError(refused, 409, "JOB_EDIT_NOT_ALLOWED");
    expect(refused.json.fields).toEqual(["budget"]);
    expect((await patch(poster.token, job.id, { title: "A clearer title for it" })).status).toBe(200);
  });

  it("after a bid only additions pass, and every pending bidder is told", async () => {
    const poster = await newUser(service);
    const deadline = new Date(Date.now() + 3 * 86_400_000);
    const job = await postJob(poster, { deadlineAt: deadline.toISOString() });
    const { agent } = await bid(job.id);

    const taken = await patch(poster.token, job.id, {
      title: "Something else entirely",
      budget: "10",
      deadlineAt: new Date(Date.now() + 86_400_000).toISOString(),
      proofHoldHours: 500,
    });
    expectError(taken, 409, "JOB_EDIT_NOT_ALLOWED");
    expect(taken.json.fields.sort()).toEqual(["budget", "deadlineAt", "proofHoldHours", "title"]);
    expectError(
      await patch(poster.token, job.id, { description: "A different brief that drops the original text." }),
      409,
      "JOB_EDIT_NOT_ALLOWED",
    );
    expectError(
      await patch(poster.token, job.id, { acceptanceCriteria: ["Only one criterion now"] }),
      409,
      "JOB_EDIT_NOT_ALLOWED",
    );
    // The same values sent back (a whole form resubmitted) change nothing and are no error.
    const same = jobInput();
    expect(
      (
        await patch(poster.token, job.id, {
          title: same.title,
          description: same.description,
          budget: same.budget,
          acceptanceCriteria: same.acceptanceCriteria,
        })
      ).status,
    ).toBe(200);

    const later = new Date(deadline.getTime() + 2 * 86_400_000).toISOString();
    const added = await patch(poster.token, job.id, {
      description: `${job.description}\n\nUpdate: German companies count too.`,
      acceptanceCriteria: [...jobInput().acceptanceCriteria, "Rows are deduplicated"],
      deadlineAt: later,
      proofHoldHours: 12,
    });
    expect(added.status, JSON.stringify(added.json)).toBe(200);
    expect(added.json.data).toMatchObject({ deadlineAt: later, inputData: { proofHoldHours: 12 } });
    expect(added.json.data.acceptanceCriteria).toHaveLength(3);

    const events = await service.db
      .selectFrom("domain_events")
      .select(["type", "recipient_ids", "data"])
      .where("job_id", "=", job.id)
      .where("type", "=", "job.updated")
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0]!.recipient_ids).toEqual([agent.id]);
    expect((events[0]!.data as { fields: string[] }).fields.sort()).toEqual([
      "acceptanceCriteria",
      "deadlineAt",
      "description",
      "proofHoldHours",
    ]);
  });

  it("the proof hold can be shortened while the work is under way, never lengthened, and the brief stays settled", async () => {
    const poster = await newUser(service);
    const job = await postJob(poster, { inputData: { budgetType: "bid", proofHoldHours: 168 } });
    const { agent, res } = await bid(job.id);
    await service.http("POST", `/v1/jobs/${job.id}/bids/${res.json.data.id}/accept`, { token: poster.token });
    expectError(await patch(poster.token, job.id, { title: "A new title for the work" }), 409, "INVALID_STATE");
    expectError(await patch(poster.token, job.id, { proofHoldHours: 200 }), 409, "JOB_EDIT_NOT_ALLOWED");
    const shorter = await patch(poster.token, job.id, { proofHoldHours: 2 });
    expect(shorter.status).toBe(200);
    expect(shorter.json.data.inputData.proofHoldHours).toBe(2);
    const viewer = (await service.http("GET", `/v1/jobs/${job.id}`, { token: poster.token })).json.data.viewer.can;
    expect(viewer).toMatchObject({ edit: false, shortenHold: true });
    const agentView = (await service.http("GET", `/v1/jobs/${job.id}`, { token: agent.apiKey })).json.data.viewer.can;
    expect(agentView).toMatchObject({ edit: false, shortenHold: false });
  });

  it("a bounty follows the same rule: once claimed, and after delivery, its proof hold is shortened, never lengthened", async () => {
    const poster = await newUser(service);
    const job = await postJob(poster, {
      participationMode: "BOUNTY",
      claimWindowMinutes: 60,
      inputData: { budgetType: "fixed", proofHoldHours: 24 },
    });
    const agent = await newAgent(service);
    const claimed = await service.http("POST", `/v1/jobs/${job.id}/claim`, {
      token: agent.apiKey,
      body: { agentId: agent.id },
    });
    expect(claimed.status, JSON.stringify(claimed.json)).toBe(200);
    const longer = await patch(poster.token, job.id, { proofHoldHours: 720 });
    expectError(longer, 409, "JOB_EDIT_NOT_ALLOWED");
    expect(longer.json.fields).toEqual(["proofHoldHours"]);
    expect(longer.json.message).toContain("never lengthened");
    // Delivered: the work is under review, the hold may still only be shortened.
    await service.db
      .updateTable("jobs")
      .set({ status: "REVIEW", submitted_at: new Date(), proof_check_status: "LIVE" })
      .where("id", "=", job.id)
      .execute();
    expectError(await patch(poster.token, job.id, { proofHoldHours: 720 }), 409, "JOB_EDIT_NOT_ALLOWED");
    const shorter = await patch(poster.token, job.id, { proofHoldHours: 1 });
    expect(shorter.status, JSON.stringify(shorter.json)).toBe(200);
    expect(shorter.json.data.inputData.proofHoldHours).toBe(1);
  });
});

describe("deadlines are acted on", () => {
  it("a job past its deadline takes no bid and no acceptance until the poster moves it", async () => {
    const poster = await newUser(service);
    const job = await postJob(poster, { deadlineAt: new Date(Date.now() + 86_400_000).toISOString() });
    const { res: first } = await bid(job.id);
    expect(first.status).toBe(201);
    await service.db
      .updateTable("jobs")
      .set({ deadline_at: new Date(Date.now() - 60_000) })
      .where("id", "=", job.id)
      .execute();

    expectError((await bid(job.id)).res, 409, "DEADLINE_PASSED");
    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/bids/${first.json.data.id}/accept`, { token: poster.token }),
      409,
      "DEADLINE_PASSED",
    );

    // Moving the deadline later is an addition bidders are told about; then the job goes on.
    expect(
      (await patch(poster.token, job.id, { deadlineAt: new Date(Date.now() + 86_400_000).toISOString() })).status,
    ).toBe(200);
    expect(
      (await service.http("POST", `/v1/jobs/${job.id}/bids/${first.json.data.id}/accept`, { token: poster.token }))
        .status,
    ).toBe(200);
  });

  it("accepting a bid on an unfunded job makes its price the budget, and the poster can still fund it (no dead end)", async () => {
    const poster = await newUser(service);
    const job = await postJob(poster, { budget: "30" });
    const agent = await newAgent(service);
    const placed = await service.http("POST", `/v1/jobs/${job.id}/bids`, {
      token: agent.apiKey,
      body: { agentId: agent.id, proposedUsdc: "25" },
    });
    const accepted = await service.http("POST", `/v1/jobs/${job.id}/bids/${placed.json.data.id}/accept`, {
      token: poster.token,
    });
    expect(accepted.status, JSON.stringify(accepted.json)).toBe(200);
    const read = (await service.http("GET", `/v1/jobs/${job.id}`, { token: poster.token })).json.data;
    expect(read).toMatchObject({
      status: "IN_PROGRESS",
      funded: false,
      budgetUsdc: expect.stringMatching(/^25(\.0+)?$/),
    });
    expect(read.viewer.can).toMatchObject({ fund: true, cancel: true });
    // The agent is told why it cannot deliver yet, in words, never an API path.
    const submit = await service.http("POST", `/v1/jobs/${job.id}/submit`, {
      token: agent.apiKey,
      body: { outputData: { url: "https://example.com/work" } },
    });
    const [message] = expectError(submit, 409, "JOB_NOT_FUNDED");
    expect(message).not.toMatch(/\/v1\//);
  });

  it("an assigned job can be cancelled when it was never funded, or when it is late with nothing delivered, and the agent is told", async () => {
    const poster = await newUser(service);
    // Unfunded and assigned: no dead end, the poster cancels and the agent's place is free.
    const unfunded = await postJob(poster);
    const { agent, res } = await bid(unfunded.id);
    await service.http("POST", `/v1/jobs/${unfunded.id}/bids/${res.json.data.id}/accept`, { token: poster.token });
    expect(
      (await service.http("GET", `/v1/jobs/${unfunded.id}`, { token: poster.token })).json.data.viewer.can.cancel,
    ).toBe(true);
    const cancelled = await service.http("POST", `/v1/jobs/${unfunded.id}/cancel`, { token: poster.token });
    expect(cancelled.status, JSON.stringify(cancelled.json)).toBe(200);
    expect(cancelled.json.data.status).toBe("CANCELLED");
    const told = await service.db
      .selectFrom("domain_events")
      .select("recipient_ids")
      .where("job_id", "=", unfunded.id)
      .where("type", "=", "job.cancelled")
      .executeTakeFirstOrThrow();
    expect(told.recipient_ids).toContain(agent.id);

    // Funded, assigned and on time: not cancellable (dispute instead); late: cancellable.
    const funded = await postJob(poster, { deadlineAt: new Date(Date.now() + 86_400_000).toISOString() });
    const second = await bid(funded.id);
    await service.http("POST", `/v1/jobs/${funded.id}/bids/${second.res.json.data.id}/accept`, { token: poster.token });
    await fundDirectly(funded.id);
    expectError(
      await service.http("POST", `/v1/jobs/${funded.id}/cancel`, { token: poster.token }),
      409,
      "INVALID_STATE",
    );
    expect(
      (await service.http("GET", `/v1/jobs/${funded.id}`, { token: poster.token })).json.data.viewer.can.cancel,
    ).toBe(false);
    await service.db
      .updateTable("jobs")
      .set({ deadline_at: new Date(Date.now() - 60_000) })
      .where("id", "=", funded.id)
      .execute();
    expect(
      (await service.http("GET", `/v1/jobs/${funded.id}`, { token: poster.token })).json.data.viewer.can.cancel,
    ).toBe(true);
    // Delivered work is never cancelled, late or not.
    await service.db
      .updateTable("jobs")
      .set({ submitted_at: new Date(), status: "REVIEW" })
      .where("id", "=", funded.id)
      .execute();
    expectError(
      await service.http("POST", `/v1/jobs/${funded.id}/cancel`, { token: poster.token }),
      409,
      "INVALID_STATE",
    );
  });
});

describe("a job's budget has a floor", () => {
  it("a budget under 1 USDC is a 400 at creation and at edit (each payment is a transfer whose gas the marketplace pays)", async () => {
    const poster = await newUser(service);
    const dust = await service.http("POST", "/v1/jobs", {
      token: poster.token,
      body: jobInput({ budget: "0.000001" }),
    });
    expect(expectError(dust, 400, "VALIDATION_FAILED").join(" ")).toMatch(/at least 1 USDC/);
    expect(
      (await service.http("POST", "/v1/jobs", { token: poster.token, body: jobInput({ budget: "1" }) })).status,
    ).toBe(201);
    const job = await postJob(poster);
    expectError(await patch(poster.token, job.id, { budget: "0.5" }), 400, "VALIDATION_FAILED");
  });
});

describe("deadlines are ahead when written", () => {
  const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
  const part = (title: string, amountUsdc: string, deadlineAt?: string) => ({
    title,
    amountUsdc,
    acceptanceCriteria: `The ${title} is delivered as a CSV file`,
    ...(deadlineAt ? { deadlineAt } : {}),
  });

  it("a job's deadline in the past or under an hour ahead is a 400 VALIDATION_FAILED at creation and in an edit; the same deadline sent back is no change", async () => {
    const poster = await newUser(service);
    for (const deadlineAt of [inMinutes(-60 * 24), inMinutes(-1), inMinutes(30)]) {
      const res = await service.http("POST", "/v1/jobs", { token: poster.token, body: jobInput({ deadlineAt }) });
      expectError(res, 400, "VALIDATION_FAILED");
      expect(res.json.message).toMatch(/deadlineAt must be at least 60 minutes from now/);
    }
    expect((await service.http("GET", `/v1/jobs?posterId=${poster.id}`)).json.data).toEqual([]);

    const deadline = inMinutes(120);
    const job = await postJob(poster, { deadlineAt: deadline });
    for (const deadlineAt of [inMinutes(-5), inMinutes(20)]) {
      const res = await patch(poster.token, job.id, { deadlineAt });
      expectError(res, 400, "VALIDATION_FAILED");
      expect(res.json.message).toMatch(/deadlineAt must be at least 60 minutes from now/);
    }
    // The deadline draws near (as time passes): the whole form sent back with it edits the title.
    const near = new Date(Date.now() + 10 * 60_000);
    await service.db.updateTable("jobs").set({ deadline_at: near }).where("id", "=", job.id).execute();
    const titled = await patch(poster.token, job.id, {
      title: "Collect 60 B2B leads in fintech",
      deadlineAt: near.toISOString(),
    });
    expect(titled.status, JSON.stringify(titled.json)).toBe(200);
    expect(titled.json.data).toMatchObject({
      title: "Collect 60 B2B leads in fintech",
      deadlineAt: near.toISOString(),
    });
    // Moving it later, at least an hour ahead, or removing it, is fine.
    expect((await patch(poster.token, job.id, { deadlineAt: inMinutes(90) })).status).toBe(200);
    expect((await patch(poster.token, job.id, { deadlineAt: null })).status).toBe(200);
  });

  it("a part's deadline in the past is a 400 in the job's plan, in an edit of the plan and in a bid's plan", async () => {
    const poster = await newUser(service);
    const past = inMinutes(-30);
    const created = await service.http("POST", "/v1/jobs", {
      token: poster.token,
      body: jobInput({ milestones: [part("first half", "20", inMinutes(60 * 24)), part("second half", "20", past)] }),
    });
    expectError(created, 400, "VALIDATION_FAILED");
    expect(created.json.message).toMatch(/milestones\.1\.deadlineAt must be in the future/);

    const job = await postJob(poster, {
      milestones: [part("first half", "20", inMinutes(60 * 24)), part("second half", "20")],
    });
    const edited = await patch(poster.token, job.id, {
      milestones: [part("first half", "20", past), part("second half", "20")],
    });
    expectError(edited, 400, "VALIDATION_FAILED");
    expect(edited.json.message).toMatch(/milestones\.0\.deadlineAt must be in the future/);

    const agent = await newAgent(service);
    const offer = await service.http("POST", `/v1/jobs/${job.id}/bids`, {
      token: agent.apiKey,
      body: {
        agentId: agent.id,
        proposedUsdc: "40",
        milestones: [part("all of it", "40", past)],
      },
    });
    expectError(offer, 400, "VALIDATION_FAILED");
    expect(offer.json.message).toMatch(/milestones\.0\.deadlineAt must be in the future/);
  });
});
