import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Job } from "@/lib/api/schemas/jobs";
import { jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";

// Interop: every field the interface documents for a request is taken by that request. A client
// that sends the documented fields, or sends back what the service itself returned (a job's own
// inputData), must not get "should not exist". One test per documented request, each with every
// documented field; unknown fields stay refused.

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

type Res = Awaited<ReturnType<TestService["http"]>>;
const ok = (res: Res, status = 200) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json;
};
const refused = (res: Res) => {
  expect(res.status, JSON.stringify(res.json)).toBe(400);
  expect(res.json.code).toBe("VALIDATION_FAILED");
  return (res.json.messages as string[]).join(" | ");
};

const DESCRIPTION = "Find 50 decision makers at European fintech companies with verified emails.";
const postJob = (token: string, body: unknown) => service.http("POST", "/v1/jobs", { token, body });
const jobsOf = async (agentId: string) =>
  service.db
    .selectFrom("jobs")
    .innerJoin("agents", "agents.principal_id", "jobs.poster_id")
    .select("jobs.id")
    .where("agents.id", "=", agentId)
    .execute();

describe("POST /v1/jobs takes every documented inputData field", () => {
  it("posts a job with every documented inputData field", async () => {
    const poster = await newAgent(service);
    const inputData = {
      budgetType: "bid",
      proofHoldHours: 720,
      participationMode: "BID",
      generalDescription: DESCRIPTION,
      acceptanceCriteria: [{ description: "A CSV with 50 rows" }, { description: "Each row has a verified email" }],
      forumRewardCampaignId: "campaign-copied-from-a-slot",
      proofContentMarker: "awm-interop-marker",
      evaluatorAddress: "0x00000000000000000000000000000000000000Ab",
    };
    const job = ok(await postJob(poster.apiKey, jobInput({ inputData })), 201).data;
    Job.parse(job);
    expect(job).toMatchObject({
      participationMode: "BID",
      description: DESCRIPTION,
      forumRewardSlot: null,
      status: "OPEN",
      funded: false,
    });
    // The inputData copy fills the top-level evaluatorAddress (stored lower-case, like session addresses).
    expect(job.evaluatorAddress).toBe("0x00000000000000000000000000000000000000ab");
    inputData.evaluatorAddress = "0x00000000000000000000000000000000000000ab";
    // A job posted here is never a forum reward slot: the campaign id is taken and not kept.
    const { forumRewardCampaignId: _notKept, ...kept } = inputData;
    expect(job.inputData).toEqual({ ...kept, stallAfterHours: 24 });
    expect(job.acceptanceCriteria).toEqual([
      { id: "ac-1", check: { type: "manual" }, description: "A CSV with 50 rows" },
      { id: "ac-2", check: { type: "manual" }, description: "Each row has a verified email" },
    ]);
  });

  it("posts a job's own inputData back (GET a job, then POST its inputData as a new job's inputData)", async () => {
    const poster = await newAgent(service);
    const first = ok(
      await postJob(
        poster.apiKey,
        jobInput({
          participationMode: "BOUNTY",
          claimWindowMinutes: 30,
          inputData: { budgetType: "fixed", proofHoldHours: 24, proofContentMarker: "awm-roundtrip-1" },
        }),
      ),
      201,
    ).data;
    const original = ok(await service.http("GET", `/v1/jobs/${first.id}`, { token: poster.apiKey })).data;

    // The same job again: its own inputData and its own acceptanceCriteria (ids and checks included).
    const same = ok(
      await postJob(poster.apiKey, {
        templateId: "custom-v1",
        title: original.title,
        description: original.description,
        acceptanceCriteria: original.acceptanceCriteria,
        inputData: original.inputData,
        budget: original.budgetUsdc,
      }),
      201,
    ).data;
    expect(same.id).not.toBe(original.id);
    expect(same.inputData).toEqual(original.inputData);
    expect(same.acceptanceCriteria).toEqual(original.acceptanceCriteria);
    expect(same.participationMode).toBe("BOUNTY");

    // A similar job with a new description: the copied generalDescription disagrees, the top level wins.
    const newDescription = "Find 20 decision makers at Nordic fintech companies with verified emails.";
    const similar = ok(
      await postJob(
        poster.apiKey,
        jobInput({ title: "Nordic fintech leads", description: newDescription, inputData: original.inputData }),
      ),
      201,
    ).data;
    expect(similar.inputData).toEqual({
      ...original.inputData,
      generalDescription: newDescription,
      acceptanceCriteria: [{ description: "A CSV with 50 rows" }, { description: "Each row has a verified email" }],
    });
    expect(similar.description).toBe(newDescription);
  });

  it("a subcontract posts its parent's inputData back", async () => {
    const poster = await newAgent(service);
    const worker = await newAgent(service);
    const parent = ok(
      await postJob(
        poster.apiKey,
        jobInput({
          allowSubcontracting: true,
          inputData: { budgetType: "bid", proofHoldHours: 168, proofContentMarker: "awm-parent-marker" },
        }),
      ),
      201,
    ).data;
    const bid = ok(
      await service.http("POST", `/v1/jobs/${parent.id}/bids`, {
        token: worker.apiKey,
        body: { agentId: worker.id, proposedUsdc: "40" },
      }),
      201,
    ).data;
    ok(await service.http("POST", `/v1/jobs/${parent.id}/bids/${bid.id}/accept`, { token: poster.apiKey }));
    const fetched = ok(await service.http("GET", `/v1/jobs/${parent.id}`, { token: worker.apiKey })).data;
    const child = ok(
      await postJob(
        worker.apiKey,
        jobInput({
          title: "Verify half of the emails",
          description: "Verify 25 of the collected emails with an SMTP check.",
          budget: "10",
          parentJobId: parent.id,
          inputData: fetched.inputData,
        }),
      ),
      201,
    ).data;
    expect(child).toMatchObject({ parentJobId: parent.id, participationMode: "BID" });
    expect(child.inputData).toMatchObject({
      budgetType: "bid",
      proofHoldHours: 168,
      proofContentMarker: "awm-parent-marker",
      generalDescription: "Verify 25 of the collected emails with an SMTP check.",
    });
  });

  it("a forum reward slot's inputData: posted back with participationMode BID it is an ordinary job; alone it is a clear 400", async () => {
    const sponsor = await newUser(service);
    const campaign = ok(
      await service.http("POST", "/v1/forum/reward-campaigns", {
        token: sponsor.token,
        body: { kind: "REPLY", slots: 1, funding: "SPONSOR" },
      }),
      201,
    ).data;
    const slots = ok(
      await service.http("GET", `/v1/jobs?participationMode=AUTOMATIC_FORUM_REWARD&posterId=${sponsor.id}`),
    ).data;
    const slot = ok(await service.http("GET", `/v1/jobs/${slots[0].id}`, { token: sponsor.token })).data;
    expect(slot.inputData).toMatchObject({
      participationMode: "AUTOMATIC_FORUM_REWARD",
      forumRewardCampaignId: campaign.id,
    });

    const poster = await newAgent(service);
    const alone = refused(await postJob(poster.apiKey, jobInput({ inputData: slot.inputData })));
    expect(alone).toContain(
      "inputData.participationMode AUTOMATIC_FORUM_REWARD is not posted here: forum reward slots are created by POST /v1/forum/reward-campaigns",
    );
    expect(refused(await postJob(poster.apiKey, jobInput({ participationMode: "AUTOMATIC_FORUM_REWARD" })))).toContain(
      "participationMode AUTOMATIC_FORUM_REWARD is not posted here",
    );
    expect(await jobsOf(poster.id)).toHaveLength(0);

    const job = ok(
      await postJob(poster.apiKey, jobInput({ participationMode: "BID", inputData: slot.inputData })),
      201,
    ).data;
    expect(job).toMatchObject({ participationMode: "BID", forumRewardSlot: null });
    expect(job.inputData).toEqual({
      budgetType: "fixed",
      proofHoldHours: 0,
      stallAfterHours: 24,
      participationMode: "BID",
      generalDescription: jobInput().description,
      acceptanceCriteria: [{ description: "A CSV with 50 rows" }, { description: "Each row has a verified email" }],
    });
  });

  it("twins: the top-level field wins, the inputData copy fills an omitted one, and neither is a clear 400", async () => {
    const poster = await newAgent(service);
    const modes = ok(
      await postJob(
        poster.apiKey,
        jobInput({ participationMode: "BOUNTY", inputData: { budgetType: "bid", participationMode: "BID" } }),
      ),
      201,
    ).data;
    expect(modes).toMatchObject({ participationMode: "BOUNTY", inputData: { participationMode: "BOUNTY" } });

    const fromCopies = {
      templateId: "custom-v1",
      title: "Only inputData carries the words",
      budget: "5",
      inputData: {
        participationMode: "BOUNTY",
        generalDescription: DESCRIPTION,
        acceptanceCriteria: [{ description: "Fifty rows" }],
      },
    };
    const filled = ok(await postJob(poster.apiKey, fromCopies), 201).data;
    expect(filled).toMatchObject({
      description: DESCRIPTION,
      participationMode: "BOUNTY",
      acceptanceCriteria: [{ id: "ac-1", check: { type: "manual" }, description: "Fifty rows" }],
    });
    expect(filled.inputData).toEqual({
      budgetType: "bid",
      proofHoldHours: 168,
      stallAfterHours: 24,
      participationMode: "BOUNTY",
      generalDescription: DESCRIPTION,
      acceptanceCriteria: [{ description: "Fifty rows" }],
    });

    const before = (await jobsOf(poster.id)).length;
    const neither = refused(
      await postJob(poster.apiKey, { templateId: "custom-v1", title: "No words at all here", budget: "5" }),
    );
    expect(neither).toContain("description should not be empty (send description or inputData.generalDescription)");
    expect(neither).toContain(
      "acceptanceCriteria should not be empty (send acceptanceCriteria or inputData.acceptanceCriteria)",
    );
    // A copy obeys the rules of the field it copies.
    expect(
      refused(await postJob(poster.apiKey, { ...fromCopies, inputData: { generalDescription: "too short" } })),
    ).toMatch(/inputData\.generalDescription must be at least 20 characters/);
    expect(await jobsOf(poster.id)).toHaveLength(before);
  });

  it("unknown fields stay refused, in inputData and in its criteria", async () => {
    const poster = await newAgent(service);
    expect(
      refused(await postJob(poster.apiKey, jobInput({ inputData: { budgetType: "bid", surprise: 1 } }))),
    ).toContain("property inputData.surprise should not exist");
    expect(
      refused(
        await postJob(
          poster.apiKey,
          jobInput({ inputData: { acceptanceCriteria: [{ description: "Fifty rows", weight: 2 }] } }),
        ),
      ),
    ).toContain("property inputData.acceptanceCriteria.0.weight should not exist");
    expect(
      refused(
        await postJob(poster.apiKey, jobInput({ acceptanceCriteria: [{ description: "Fifty rows", score: 1 }] })),
      ),
    ).toContain("property acceptanceCriteria.0.score should not exist");
    expect(await jobsOf(poster.id)).toHaveLength(0);
  });

  it("the rule is in /v1/openapi.json: on the operation and on the inputData schema", async () => {
    const doc = ok(await service.http("GET", "/v1/openapi.json")) as any;
    const op = doc.paths["/v1/jobs"].post;
    expect(op.description).toContain("the top-level field wins");
    const inputData = op.requestBody.content["application/json"].schema.properties.inputData;
    expect(inputData.description).toContain("the top-level field wins");
    expect(Object.keys(inputData.properties).sort()).toEqual([
      "acceptanceCriteria",
      "budgetType",
      "evaluatorAddress",
      "forumRewardCampaignId",
      "generalDescription",
      "participationMode",
      "proofContentMarker",
      "proofHoldHours",
      "stallAfterHours",
    ]);
  });
});

// ── The rest of the interface, request by request, each with every documented field ───────────

describe("every other documented request takes its documented fields", () => {
  it("POST /v1/agent-signups {ownerEmail, referralCode}; GET /v1/referrals/my-code gives the code", async () => {
    const referrer = await newAgent(service);
    const { code, shareUrl } = ok(await service.http("GET", "/v1/referrals/my-code", { token: referrer.apiKey })).data;
    expect(typeof shareUrl).toBe("string");
    const signup = ok(
      await service.http("POST", "/v1/agent-signups", {
        body: { ownerEmail: `interop-${Date.now()}@example.test`, referralCode: code },
      }),
      201,
    ).data;
    expect(signup.apiKey).toEqual(expect.any(String));
    expect(
      refused(
        await service.http("POST", "/v1/agent-signups", {
          body: { ownerEmail: `interop-x-${Date.now()}@example.test`, isAdmin: true },
        }),
      ),
    ).toContain("property isAdmin should not exist");
  });

  it("PATCH /v1/agents/:id {maxActiveJobs: integer or null}", async () => {
    const agent = await newAgent(service);
    for (const maxActiveJobs of [0, 1, null]) {
      expect(
        ok(await service.http("PATCH", `/v1/agents/${agent.id}`, { token: agent.apiKey, body: { maxActiveJobs } })).data
          .maxActiveJobs,
      ).toBe(maxActiveJobs);
    }
  });

  it("GET /v1/jobs ?status&funded&excludeBidBy&limit&cursor, followed to the end", async () => {
    const agent = await newAgent(service);
    const seen = new Set<string>();
    let cursor: string | null = null;
    for (let page = 0; page < 3; page++) {
      const query = new URLSearchParams({
        status: "OPEN",
        funded: "false",
        excludeBidBy: agent.id,
        limit: "50",
        ...(cursor ? { cursor } : {}),
      });
      const res = ok(await service.http("GET", `/v1/jobs?${query}`, { token: agent.apiKey }));
      for (const row of res.data) {
        expect(row).toMatchObject({ status: "OPEN", funded: false });
        seen.add(row.id);
      }
      expect(res.meta).toMatchObject({ limit: 50, hasMore: expect.any(Boolean) });
      cursor = res.meta.nextCursor;
      if (!cursor) break;
    }
    expect(seen.size).toBeGreaterThan(0);
  });

  it("PATCH /v1/jobs/:id/escrow takes txHash, or escrowTxHash (the Job field it sets); both must agree", async () => {
    const poster = await newAgent(service);
    const job = ok(await postJob(poster.apiKey, jobInput()), 201).data;
    const hash = (digit: string) => `0x${digit.repeat(64)}`;
    const patch = (body: unknown) => service.http("PATCH", `/v1/jobs/${job.id}/escrow`, { token: poster.apiKey, body });
    // Past validation, each reaches the chain check (the test chain is offline: 503, not 400).
    for (const body of [
      { txHash: hash("a") },
      { escrowTxHash: hash("a") },
      { txHash: hash("a"), escrowTxHash: hash("a") },
    ]) {
      const res = await patch(body);
      expect(res.status, JSON.stringify(res.json)).not.toBe(400);
    }
    expect(refused(await patch({ txHash: hash("a"), escrowTxHash: hash("b") }))).toContain(
      "txHash and escrowTxHash disagree",
    );
    expect(refused(await patch({}))).toContain("txHash should not be empty (send txHash, or escrowTxHash)");
    expect(refused(await patch({ hash: hash("a") }))).toContain("property hash should not exist");
  });

  it("POST /v1/jobs/:id/bids {agentId, proposedUsdc, coverLetter}; GET /v1/jobs/:jobId/bids; accept; GET /v1/agents/:id/bids ?status&limit&cursor", async () => {
    const poster = await newAgent(service);
    const bidder = await newAgent(service);
    const job = ok(await postJob(poster.apiKey, jobInput()), 201).data;
    const bid = ok(
      await service.http("POST", `/v1/jobs/${job.id}/bids`, {
        token: bidder.apiKey,
        body: { agentId: bidder.id, proposedUsdc: "38.5", coverLetter: "I have done this before." },
      }),
      201,
    ).data;
    expect(bid).toMatchObject({
      agentId: bidder.id,
      proposedUsdc: "38.5",
      coverLetter: "I have done this before.",
      status: "PENDING",
    });
    expect(
      ok(await service.http("GET", `/v1/jobs/${job.id}/bids`, { token: poster.apiKey })).data.map(
        (b: { id: string }) => b.id,
      ),
    ).toEqual([bid.id]);
    ok(await service.http("POST", `/v1/jobs/${job.id}/bids/${bid.id}/accept`, { token: poster.apiKey }));
    const inbox = ok(
      await service.http("GET", `/v1/agents/${bidder.id}/bids?status=ACCEPTED&limit=50`, { token: bidder.apiKey }),
    );
    expect(inbox.data).toEqual([
      expect.objectContaining({ id: bid.id, status: "ACCEPTED", jobStatus: "IN_PROGRESS", funded: false }),
    ]);
    expect(inbox.meta.nextCursor).toBeNull();
  });

  it("forum: threads, replies, edits, votes, answer, read, job link, follow, reputation, me, each with its documented fields", async () => {
    const author = await newUser(service);
    const reader = await newUser(service);
    const words = (s: string) =>
      `${s} ${Date.now()} — a body long enough to pass the twenty character minimum of the forum.`;
    const thread = ok(
      await service.http("POST", "/v1/forum/threads", {
        token: author.token,
        headers: { "idempotency-key": `interop-thread-${Date.now()}` },
        body: {
          title: `Interop thread ${Date.now()}`,
          body: words("Opening"),
          category: "api-integration",
          intent: "question",
        },
      }),
      201,
    ).data;
    expect(thread).toMatchObject({ category: "api-integration", intent: "question" });

    const query = new URLSearchParams({
      q: "Interop",
      category: "api-integration",
      intent: "question",
      sort: "activity",
      filter: "unanswered",
      limit: "20",
      since: new Date(Date.now() - 60_000).toISOString(),
    });
    ok(await service.http("GET", `/v1/forum/threads?${query}`));

    const reply = ok(
      await service.http("POST", `/v1/forum/threads/${thread.slug}/replies`, {
        token: reader.token,
        headers: { "idempotency-key": `interop-reply-${Date.now()}` },
        body: { body: words("A reply") },
      }),
      201,
    ).data;
    ok(await service.http("GET", `/v1/forum/threads/${thread.slug}/replies?limit=20`));
    ok(await service.http("GET", `/v1/forum/replies/${reply.id}`));

    ok(
      await service.http("PATCH", `/v1/forum/threads/${thread.id}`, {
        token: author.token,
        body: { title: `Interop thread edited ${Date.now()}`, body: words("Edited"), category: "tools-models" },
      }),
    );
    ok(
      await service.http("PATCH", `/v1/forum/replies/${reply.id}`, {
        token: reader.token,
        body: { body: words("Edited reply") },
      }),
    );
    ok(
      await service.http("PUT", `/v1/forum/threads/${thread.id}/vote`, {
        token: reader.token,
        body: { helpful: true },
      }),
    );
    ok(
      await service.http("PUT", `/v1/forum/replies/${reply.id}/vote`, {
        token: author.token,
        body: { helpful: false },
      }),
    );
    ok(
      await service.http("PUT", `/v1/forum/threads/${thread.id}/answer`, {
        token: author.token,
        body: { replyId: reply.id },
      }),
    );
    ok(
      await service.http("PUT", `/v1/forum/threads/${thread.id}/answer`, {
        token: author.token,
        body: { replyId: null },
      }),
    );
    ok(await service.http("PUT", `/v1/forum/threads/${thread.slug}/follow`, { token: reader.token }));
    ok(
      await service.http("PUT", `/v1/forum/threads/${thread.slug}/read`, {
        token: reader.token,
        body: { through: new Date().toISOString() },
      }),
    );
    const job = ok(await postJob(author.token, jobInput()), 201).data;
    ok(
      await service.http("PUT", `/v1/forum/threads/${thread.id}/job`, { token: author.token, body: { jobId: job.id } }),
    );
    ok(await service.http("GET", "/v1/forum/reputation?agentIds=agent-a,agent-b"));
    ok(await service.http("GET", `/v1/forum/me`, { token: reader.token }));
  });

  it("PUT /v1/forum/me/payout {address}", async () => {
    const owner = await newUser(service);
    const address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    expect(
      ok(await service.http("PUT", "/v1/forum/me/payout", { token: owner.token, body: { address } })).data,
    ).toMatchObject({ address });
  });

  it("GET /v1/evals/packs ?isFree", async () => {
    const free = ok(await service.http("GET", "/v1/evals/packs?isFree=true"));
    for (const pack of free.data) expect(pack.isFree).toBe(true);
  });
});
