import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOB_LIMITS, Job } from "@/lib/api/schemas/jobs";
import { routes } from "@/lib/api/routes";
import { jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import { expectError } from "../testing/expect-error";
import { claimedAgent } from "../testing/evals-support";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

// ── The interface's Job table, field by field, with the type each must have ─────────────────────
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isString = (v: unknown) => typeof v === "string";
const isUuid = (v: unknown) => typeof v === "string" && UUID.test(v);
const isBool = (v: unknown) => typeof v === "boolean";
const isInt = (v: unknown) => Number.isInteger(v);
const isTimestamp = (v: unknown) =>
  typeof v === "string" &&
  /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(v) &&
  !Number.isNaN(Date.parse(v));
const isObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
const nullable = (check: (v: unknown) => boolean) => (v: unknown) => v === null || check(v);
const oneOf =
  (...values: string[]) =>
  (v: unknown) =>
    values.includes(v as string);

const JOB_FIELD_TYPES: Record<string, (v: unknown) => boolean> = {
  id: isUuid,
  posterId: isUuid,
  parentJobId: nullable(isString),
  allowSubcontracting: isBool,
  sourceForumThreadId: nullable(isString),
  sourceForumReplyId: nullable(isString),
  agentId: nullable(isString),
  status: oneOf("OPEN", "IN_PROGRESS", "COMPLETED", "CANCELLED", "REVIEW", "DISPUTED"),
  purpose: oneOf("MARKETPLACE", "PLATFORM_REFERRAL"),
  participationMode: oneOf("BOUNTY", "BID", "AUTOMATIC_FORUM_REWARD"),
  claimWindowMinutes: nullable(isInt),
  claimedAt: nullable(isTimestamp),
  claimExpiresAt: nullable(isTimestamp),
  templateId: isString,
  title: isString,
  budgetUsdc: (v) => typeof v === "string" && /^\d+(\.\d+)?$/.test(v),
  inputData: isObject,
  outputData: nullable(isObject),
  proofHash: nullable(isString),
  deadlineAt: nullable(isTimestamp),
  submittedAt: nullable(isTimestamp),
  completedAt: nullable(isTimestamp),
  autoApproved: isBool,
  escrowTxHash: nullable(isString),
  escrowJobId: isObject,
  chainId: isInt,
  tokenSymbol: isString,
  tokenAddress: isString,
  paymentProvider: isString,
  paymentStatus: nullable(isString),
  stripePaymentIntentId: nullable(isString),
  stripeChargeId: nullable(isString),
  cardCapturedAt: nullable(isTimestamp),
  acceptanceCriteria: Array.isArray,
  requiredPackId: nullable(isString),
  requiredSkills: Array.isArray,
  preferredSkills: Array.isArray,
  isPubliclyShareable: isBool,
  shareCount: isInt,
  lastSharedAt: nullable(isTimestamp),
  createdAt: isTimestamp,
  updatedAt: isTimestamp,
  poster: isObject,
  agent: nullable(isObject),
  forumRewardSlot: nullable(isObject),
  funded: isBool,
};
const PROOF_CHECK_FIELDS: Record<string, (v: unknown) => boolean> = {
  proofCheckedAt: nullable(isTimestamp),
  proofCheckStatus: nullable(isString),
  proofCheckReason: nullable(isString),
};

/** Every field of the interface with its type, and the values a fresh custom job must have. */
function expectInterfaceJob(job: Record<string, any>, where: string) {
  Job.parse(job);
  for (const [field, check] of Object.entries(JOB_FIELD_TYPES)) {
    expect(job, `${where}: field ${field}`).toHaveProperty(field);
    expect(check(job[field]), `${where}: ${field} = ${JSON.stringify(job[field])}`).toBe(true);
  }
  // escrowJobId: a 32-byte id as an object with keys "0" to "31", each a byte.
  expect(Object.keys(job.escrowJobId).sort((a, b) => Number(a) - Number(b))).toEqual(
    Array.from({ length: 32 }, (_, i) => String(i)),
  );
  for (const byte of Object.values(job.escrowJobId)) {
    expect(Number.isInteger(byte) && (byte as number) >= 0 && (byte as number) <= 255, `byte ${byte}`).toBe(true);
  }
  expect(Object.values(job.escrowJobId).some((b) => b !== 0)).toBe(true);
  expect(job.chainId).toBe(31337);
  expect(job.tokenSymbol).toBe("USDC");
  expect(job.tokenAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
  expect(job.paymentProvider).toBe("ON_CHAIN_USDC");
  // address: a person's wallet beside the display name; null when an agent posted.
  expect(job.poster).toEqual({
    id: job.posterId,
    displayName: expect.any(String),
    avatarUrl: null,
    address: job.poster.address === null ? null : expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
  });
  for (const c of job.acceptanceCriteria)
    expect(c).toEqual({ id: expect.any(String), check: expect.any(Object), description: expect.any(String) });
  expect(job.inputData).toMatchObject({
    budgetType: expect.any(String),
    proofHoldHours: expect.any(Number),
    participationMode: job.participationMode,
    generalDescription: expect.any(String),
    acceptanceCriteria: expect.any(Array),
  });
}

function expectFreshJob(job: Record<string, any>) {
  expect(job).toMatchObject({
    status: "OPEN",
    funded: false,
    escrowTxHash: null,
    agentId: null,
    agent: null,
    templateId: "custom-v1",
    purpose: "MARKETPLACE",
  });
}

const post = (token: string, body: unknown) => service.http("POST", "/v1/jobs", { token, body });

describe("POST /v1/jobs", () => {
  it("creates an OPEN, unfunded custom-v1 job with every field of the interface", async () => {
    const poster = await newAgent(service);
    const res = await post(
      poster.apiKey,
      jobInput({ inputData: { budgetType: "bid", proofHoldHours: 720, proofContentMarker: "awm-proof-1234" } }),
    );
    expect(res.status).toBe(201);
    const job = res.json.data;
    expectInterfaceJob(job, "create");
    expectFreshJob(job);
    expect(job).toMatchObject({ participationMode: "BID", budgetUsdc: "40", title: jobInput().title });
    expect(job.inputData).toMatchObject({
      budgetType: "bid",
      proofHoldHours: 720,
      participationMode: "BID",
      proofContentMarker: "awm-proof-1234",
      generalDescription: jobInput().description,
      acceptanceCriteria: [{ description: "A CSV with 50 rows" }, { description: "Each row has a verified email" }],
    });
    expect(job.acceptanceCriteria).toEqual([
      { id: "ac-1", check: { type: "manual" }, description: "A CSV with 50 rows" },
      { id: "ac-2", check: { type: "manual" }, description: "Each row has a verified email" },
    ]);
    const principal = await service.db
      .selectFrom("agents")
      .select("principal_id")
      .where("id", "=", poster.id)
      .executeTakeFirstOrThrow();
    expect(job.posterId).toBe(principal.principal_id);
  });

  it("validates the payload: template, title, budget, marker length (7 and 201 refused, 8 and 200 taken)", async () => {
    const poster = await newAgent(service);
    expect(
      expectError(await post(poster.apiKey, jobInput({ templateId: "other" })), 400, "VALIDATION_FAILED").join(" "),
    ).toMatch(/templateId/);
    expect(
      expectError(await post(poster.apiKey, { ...jobInput(), title: undefined }), 400, "VALIDATION_FAILED"),
    ).toContain("title should not be empty");
    expect(
      expectError(await post(poster.apiKey, jobInput({ budget: "abc" })), 400, "VALIDATION_FAILED").join(" "),
    ).toMatch(/budget/);
    expectError(await post(poster.apiKey, jobInput({ budget: 40 })), 400, "VALIDATION_FAILED");
    expectError(await post(poster.apiKey, jobInput({ surprise: 1 })), 400, "VALIDATION_FAILED");
    for (const length of [7, 201]) {
      const res = await post(
        poster.apiKey,
        jobInput({ inputData: { budgetType: "bid", proofContentMarker: "x".repeat(length) } }),
      );
      expect(expectError(res, 400, "VALIDATION_FAILED").join(" "), `marker of ${length}`).toMatch(/proofContentMarker/);
    }
    const rows = await service.db
      .selectFrom("jobs")
      .innerJoin("agents", "agents.principal_id", "jobs.poster_id")
      .select("jobs.id")
      .where("agents.id", "=", poster.id)
      .execute();
    expect(rows).toHaveLength(0);
    for (const length of [8, 200]) {
      const res = await post(
        poster.apiKey,
        jobInput({ inputData: { budgetType: "bid", proofContentMarker: "m".repeat(length) } }),
      );
      expect(res.status, `marker of ${length}`).toBe(201);
      expect(res.json.data.inputData.proofContentMarker).toBe("m".repeat(length));
    }
  });

  it("needs a credential (401) holding jobs:write (403 MISSING_SCOPE)", async () => {
    expectError(await service.http("POST", "/v1/jobs", { body: jobInput() }), 401, "UNAUTHENTICATED");
    expectError(await post("awm_sk_nope", jobInput()), 401, "INVALID_CREDENTIALS");
    const reader = await newAgent(service);
    await service.db
      .updateTable("api_keys")
      .set({ scopes: ["jobs:read"] })
      .where("agent_id", "=", reader.id)
      .execute();
    expectError(await post(reader.apiKey, jobInput()), 403, "MISSING_SCOPE");
  });

  it("lets a signed-in human post too", async () => {
    const user = await newUser(service);
    const res = await post(user.token, jobInput());
    expect(res.status).toBe(201);
    expect(res.json.data.posterId).toBe(user.id);
    expect(res.json.data.poster.id).toBe(user.id);
  });
});

describe("reading a job", () => {
  it("every read shows every interface field: create, list row, detail (with proof-check fields for the poster) and public detail (without)", async () => {
    const poster = await newUser(service);
    const created = (await post(poster.token, jobInput())).json.data;
    const reader = await newAgent(service);

    const list = await service.http("GET", `/v1/jobs?posterId=${poster.id}`);
    expect(list.status).toBe(200);
    expect(list.json.data).toHaveLength(1);
    expectInterfaceJob(list.json.data[0], "list row");
    expectFreshJob(list.json.data[0]);

    expectError(await service.http("GET", `/v1/jobs/${created.id}`), 401, "UNAUTHENTICATED");
    // The proof-check fields are the parties' (job-viewer.test.ts): the poster reads them, another
    // signed-in caller reads the detail without them.
    const detail = await service.http("GET", `/v1/jobs/${created.id}`, { token: poster.token });
    expect(detail.status).toBe(200);
    expectInterfaceJob(detail.json.data, "detail");
    expectFreshJob(detail.json.data);
    for (const [field, check] of Object.entries(PROOF_CHECK_FIELDS)) {
      expect(detail.json.data, `detail: ${field}`).toHaveProperty(field);
      expect(check(detail.json.data[field])).toBe(true);
    }
    const byReader = await service.http("GET", `/v1/jobs/${created.id}`, { token: reader.apiKey });
    expect(byReader.status).toBe(200);
    expectInterfaceJob(byReader.json.data, "detail of a non-party");
    for (const field of Object.keys(PROOF_CHECK_FIELDS))
      expect(byReader.json.data, `non-party detail: ${field}`).not.toHaveProperty(field);

    const pub = await service.http("GET", `/v1/jobs/${created.id}/public`);
    expect(pub.status).toBe(200);
    expectInterfaceJob(pub.json.data, "public detail");
    expectFreshJob(pub.json.data);
    for (const field of Object.keys(PROOF_CHECK_FIELDS))
      expect(pub.json.data, `public: ${field}`).not.toHaveProperty(field);

    // The same job everywhere.
    for (const view of [list.json.data[0], detail.json.data, pub.json.data]) {
      expect(view.id).toBe(created.id);
      expect(view.escrowJobId).toEqual(created.escrowJobId);
      expect(view.createdAt).toBe(created.createdAt);
    }
  });

  it("a malformed id is 400 and an unknown one 404, on both detail routes, never 500", async () => {
    const reader = await newAgent(service);
    for (const id of ["not-a-uuid", "4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a1", "'%20or%201=1"]) {
      expect(
        expectError(await service.http("GET", `/v1/jobs/${id}/public`), 400, "VALIDATION_FAILED").join(" "),
      ).toMatch(/id/);
      expectError(await service.http("GET", `/v1/jobs/${id}`, { token: reader.apiKey }), 400, "VALIDATION_FAILED");
    }
    const unknown = "4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a11";
    expectError(await service.http("GET", `/v1/jobs/${unknown}/public`), 404, "NOT_FOUND");
    expectError(await service.http("GET", `/v1/jobs/${unknown}`, { token: reader.apiKey }), 404, "NOT_FOUND");
  });
});

describe("GET /v1/jobs filters", () => {
  it("status, funded, participationMode and excludeBidBy narrow the list; bad values are 400", async () => {
    const poster = await newUser(service);
    const create = async (overrides: Record<string, unknown> = {}) =>
      (await post(poster.token, jobInput(overrides))).json.data.id as string;
    const open = await create({ title: "Filter job open" });
    const cancelled = await create({ title: "Filter job cancelled" });
    const bounty = await create({ title: "Filter job bounty", participationMode: "BOUNTY" });
    expect((await service.http("POST", `/v1/jobs/${cancelled}/cancel`, { token: poster.token })).status).toBe(200);
    // Funding needs a chain; the filter only reads escrowTxHash, so register one in the database.
    await service.db
      .updateTable("jobs")
      .set({ escrow_tx_hash: `0x${randomBytes(32).toString("hex")}` })
      .where("id", "=", open)
      .execute();

    const ids = async (query: string, token?: string) => {
      const res = await service.http("GET", `/v1/jobs?posterId=${poster.id}&${query}`, { token });
      expect(res.status, query).toBe(200);
      for (const row of res.json.data) {
        expect(row).toHaveProperty("funded");
        expect(row).toHaveProperty("participationMode");
      }
      return (res.json.data as Array<{ id: string }>).map((j) => j.id);
    };
    expect(await ids("")).toEqual([bounty, cancelled, open]);
    expect(await ids("status=CANCELLED")).toEqual([cancelled]);
    expect(await ids("status=OPEN")).toEqual([bounty, open]);
    expect(await ids("funded=true")).toEqual([open]);
    expect(await ids("funded=false")).toEqual([bounty, cancelled]);
    expect(await ids("participationMode=BOUNTY")).toEqual([bounty]);
    expect(await ids("participationMode=BID")).toEqual([cancelled, open]);
    expect(await ids("status=OPEN&funded=false")).toEqual([bounty]);
    const rows = (await service.http("GET", `/v1/jobs?posterId=${poster.id}`)).json.data as Array<{
      id: string;
      funded: boolean;
      escrowTxHash: string | null;
    }>;
    expect(rows.find((r) => r.id === open)).toMatchObject({
      funded: true,
      escrowTxHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });

    const bidder = await newAgent(service);
    const other = await newAgent(service);
    const openUnfunded = await create({ title: "Filter job bid target" });
    expect(
      (await bidder.client.placeBid({ params: { id: openUnfunded }, body: { agentId: bidder.id, proposedUsdc: "40" } }))
        .data.status,
    ).toBe("PENDING");
    expect(await ids(`excludeBidBy=${bidder.id}`, bidder.apiKey)).toEqual([bounty, cancelled, open]);
    expect(await ids("excludeBidBy=me", bidder.apiKey)).toEqual([bounty, cancelled, open]);
    expect(await ids(`excludeBidBy=${other.id}`, other.apiKey)).toEqual([openUnfunded, bounty, cancelled, open]);

    for (const query of [
      "funded=maybe",
      "status=NOPE",
      "participationMode=AUCTION",
      "limit=0",
      "limit=101",
      "limit=abc",
      "unknown=1",
    ]) {
      expectError(await service.http("GET", `/v1/jobs?${query}`), 400, "VALIDATION_FAILED");
    }
  });
});

describe("proofHoldHours on the board: when a job pays, for anyone, and as a filter", () => {
  it("every job shows its proof hold publicly; maxProofHoldHours keeps the jobs that pay within that many hours of delivery", async () => {
    const poster = await newUser(service);
    const withHold = async (hours: number | undefined) =>
      (
        await post(
          poster.token,
          jobInput({
            title: `Pays after ${hours ?? "the default"} hours`,
            inputData: { budgetType: "bid", ...(hours === undefined ? {} : { proofHoldHours: hours }) },
          }),
        )
      ).json.data.id as string;
    const now = await withHold(0);
    const hour = await withHold(1);
    const day = await withHold(24);
    const week = await withHold(undefined);

    const board = await service.http("GET", `/v1/jobs?posterId=${poster.id}`);
    expect(board.status).toBe(200);
    const holds = Object.fromEntries(
      (board.json.data as Array<{ id: string; proofHoldHours: number }>).map((j) => [j.id, j.proofHoldHours]),
    );
    expect(holds).toEqual({ [now]: 0, [hour]: 1, [day]: 24, [week]: JOB_LIMITS.proofHoldHoursDefault });
    const page = await service.http("GET", `/v1/jobs/${hour}/public`);
    expect(page.json.data.proofHoldHours).toBe(1);

    const within = async (hours: string) => {
      const res = await service.http("GET", `/v1/jobs?posterId=${poster.id}&maxProofHoldHours=${hours}`);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return (res.json.data as Array<{ id: string }>).map((j) => j.id);
    };
    expect(await within("0")).toEqual([now]);
    expect(await within("1")).toEqual([hour, now]);
    expect(await within("24")).toEqual([day, hour, now]);
    expect(await within(String(JOB_LIMITS.proofHoldHoursMax))).toEqual([week, day, hour, now]);
    for (const bad of ["-1", String(JOB_LIMITS.proofHoldHoursMax + 1), "soon", "1.5"])
      expectError(
        await service.http("GET", `/v1/jobs?posterId=${poster.id}&maxProofHoldHours=${bad}`),
        400,
        "VALIDATION_FAILED",
      );

    // The OpenAPI document says what the field and the filter mean.
    const doc = (await service.http("GET", "/v1/openapi.json")).json;
    const list = doc.paths["/v1/jobs"].get;
    const filter = list.parameters.find((p: { name: string }) => p.name === "maxProofHoldHours");
    expect(filter.description ?? filter.schema.description).toMatch(/proof hold/);
    expect(JSON.stringify(doc.components.schemas)).toMatch(/The proof hold, in hours/);
  });
});

describe("GET /v1/jobs?excludeBidBy: the caller's own bids only", () => {
  it("anyone else's agent id, or no credential, is a 400 that tells nothing; me and an owned agent's id work", async () => {
    const poster = await newUser(service);
    const job = (await post(poster.token, jobInput({ title: "Which jobs did this agent bid on" }))).json.data.id;
    const { agent: bidder, owner } = await claimedAgent(service);
    const [bidderId, bidderKey] = [bidder.id, bidder.apiKey];
    expect(
      (
        await service.http("POST", `/v1/jobs/${job}/bids`, {
          token: bidderKey,
          body: { agentId: bidderId, proposedUsdc: "40" },
        })
      ).status,
    ).toBe(201);
    const list = (query: string, token?: string) =>
      service.http("GET", `/v1/jobs?posterId=${poster.id}&${query}`, { token });

    // A stranger (anonymous, another agent, another person) cannot learn where the bidder bid.
    const stranger = await newAgent(service);
    for (const [who, token] of [
      ["anonymous", undefined],
      ["another agent", stranger.apiKey],
      ["another person", poster.token],
    ] as const) {
      const res = await list(`excludeBidBy=${bidderId}`, token);
      expectError(res, 400, "VALIDATION_FAILED");
      expect(res.json.message, who).toMatch(/excludeBidBy/);
    }
    expectError(await list("excludeBidBy=me"), 400, "VALIDATION_FAILED");
    expectError(await list("excludeBidBy=me", poster.token), 400, "VALIDATION_FAILED");

    // The bidder itself, by "me" or by its id, and its owner by its id: the job is left out.
    const ids = async (res: Awaited<ReturnType<typeof list>>) => {
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return (res.json.data as Array<{ id: string }>).map((j) => j.id);
    };
    expect(await ids(await list("excludeBidBy=me", bidderKey))).toEqual([]);
    expect(await ids(await list(`excludeBidBy=${bidderId}`, bidderKey))).toEqual([]);
    expect(await ids(await list(`excludeBidBy=${bidderId}`, owner.token))).toEqual([]);
    expect(await ids(await list("excludeBidBy=me", stranger.apiKey))).toEqual([job]);
  });
});

describe("GET /v1/jobs cursor pagination", () => {
  it("25 jobs in pages of 10: newest first, meta tells hasMore/limit/nextCursor, no duplicates, ends with null", async () => {
    const poster = await newUser(service);
    const created: string[] = [];
    for (let i = 0; i < 25; i++)
      created.push((await post(poster.token, jobInput({ title: `Cursor job number ${i}` }))).json.data.id);

    const ip = "127.9.9.9";
    const seen: Array<{ id: string; createdAt: string }> = [];
    const metas: Array<Record<string, unknown>> = [];
    let cursor: string | null = null;
    do {
      const res = await service.http(
        "GET",
        `/v1/jobs?posterId=${poster.id}&limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        { ip },
      );
      expect(res.status).toBe(200);
      metas.push(res.json.meta);
      seen.push(...res.json.data);
      cursor = res.json.meta.nextCursor;
    } while (cursor !== null && metas.length < 10);

    expect(metas.map((m) => [m.limit, m.hasMore, typeof m.nextCursor])).toEqual([
      [10, true, "string"],
      [10, true, "string"],
      [10, false, "object"],
    ]);
    expect(metas[2]!.nextCursor).toBeNull();
    expect(metas[0]!.publicDetailRoute).toBe("/v1/jobs/:id/public");
    expect(seen).toHaveLength(25);
    expect(new Set(seen.map((j) => j.id)).size).toBe(25);
    expect(new Set(seen.map((j) => j.id))).toEqual(new Set(created));
    // Newest first: createdAt never increases along the list, and the last created comes first.
    for (let i = 1; i < seen.length; i++)
      expect(Date.parse(seen[i]!.createdAt)).toBeLessThanOrEqual(Date.parse(seen[i - 1]!.createdAt));
    expect(seen[0]!.id).toBe(created[24]);
    expect(seen[24]!.id).toBe(created[0]);

    // The default page size is 20.
    const first = await service.http("GET", `/v1/jobs?posterId=${poster.id}`);
    expect(first.json.meta).toMatchObject({ limit: 20, hasMore: true });
    expect(first.json.data).toHaveLength(20);

    // The typed client's paginate yields each id once.
    const all: string[] = [];
    for await (const job of service.client().paginate(routes.listJobs, { query: { posterId: poster.id, limit: 7 } }))
      all.push(job.id);
    expect(all).toHaveLength(25);
    expect(new Set(all)).toEqual(new Set(created));
  });

  it("a malformed cursor is 400, never a 500", async () => {
    const b64 = (value: string) => Buffer.from(value).toString("base64url");
    const uuid = "4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a11";
    const cursors = {
      abc: "abc",
      "base64 of garbage": b64("garbage \u0000\u00ff"),
      "id not a uuid": b64(JSON.stringify(["2026-01-01T00:00:00.000Z", "x'; drop table jobs; --"])),
      "not a timestamp": b64(JSON.stringify(["yesterday", uuid])),
      "timestamp out of range": b64(JSON.stringify([1e20, uuid])),
      "year 275760": b64(JSON.stringify(["+275760-09-13T00:00:00.000Z", uuid])),
      "an object": b64(JSON.stringify({ k: "2026-01-01T00:00:00.000Z", id: uuid })),
      "outside the alphabet": "%%%",
    };
    for (const [label, cursor] of Object.entries(cursors)) {
      const res = await service.http("GET", `/v1/jobs?cursor=${encodeURIComponent(cursor)}`);
      expect(res.status, label).toBe(400);
      expect(res.json, label).toMatchObject({ statusCode: 400, error: "Bad Request", code: "VALIDATION_FAILED" });
      expect(res.json.messages.join(" "), label).toMatch(/cursor/);
    }
  });
});

describe("POST /v1/jobs/:id/cancel", () => {
  it("the poster cancels an OPEN job: CANCELLED, pending bids EXPIRED; others 403; twice 409", async () => {
    const poster = await newUser(service);
    const bidder = await newAgent(service);
    const job = (await post(poster.token, jobInput())).json.data;
    const bid = await bidder.client.placeBid({
      params: { id: job.id },
      body: { agentId: bidder.id, proposedUsdc: "40" },
    });

    expectError(await service.http("POST", `/v1/jobs/${job.id}/cancel`), 401, "UNAUTHENTICATED");
    expectError(await service.http("POST", `/v1/jobs/${job.id}/cancel`, { token: bidder.apiKey }), 403, "FORBIDDEN");
    const otherHuman = await newUser(service);
    expectError(await service.http("POST", `/v1/jobs/${job.id}/cancel`, { token: otherHuman.token }), 403, "FORBIDDEN");
    expect((await service.http("GET", `/v1/jobs/${job.id}/public`)).json.data.status).toBe("OPEN");

    const res = await service.http("POST", `/v1/jobs/${job.id}/cancel`, { token: poster.token });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: job.id, status: "CANCELLED" });
    expect((await service.http("GET", `/v1/jobs/${job.id}/public`)).json.data.status).toBe("CANCELLED");
    const bids = await poster.client.listJobBids({ params: { jobId: job.id } });
    expect(bids.data.map((b) => [b.id, b.status])).toEqual([[bid.data.id, "EXPIRED"]]);
    const rows = await bidder.client.listAgentBids({ params: { id: bidder.id } });
    expect(rows.data.find((r) => r.id === bid.data.id)).toMatchObject({ status: "EXPIRED", jobStatus: "CANCELLED" });

    expectError(await service.http("POST", `/v1/jobs/${job.id}/cancel`, { token: poster.token }), 409, "INVALID_STATE");
    expectError(
      await service.http("POST", "/v1/jobs/4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a11/cancel", { token: poster.token }),
      404,
      "NOT_FOUND",
    );
    expectError(await service.http("POST", "/v1/jobs/nope/cancel", { token: poster.token }), 400, "VALIDATION_FAILED");
  });
});
