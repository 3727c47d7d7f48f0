import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Job } from "@/lib/api/schemas/jobs";
import { routes } from "@/lib/api/routes";
import { jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

// Every field of the interface's Job table, present on every read.
const JOB_FIELDS = [
  "id", "posterId", "parentJobId", "allowSubcontracting", "sourceForumThreadId", "sourceForumReplyId", "agentId", "status",
  "purpose", "participationMode", "claimWindowMinutes", "claimedAt", "claimExpiresAt", "templateId", "title", "budgetUsdc",
  "inputData", "outputData", "proofHash", "deadlineAt", "submittedAt", "completedAt", "autoApproved", "escrowTxHash",
  "escrowJobId", "chainId", "tokenSymbol", "tokenAddress", "paymentProvider", "paymentStatus", "stripePaymentIntentId",
  "stripeChargeId", "cardCapturedAt", "acceptanceCriteria", "requiredPackId", "requiredSkills", "preferredSkills",
  "isPubliclyShareable", "shareCount", "lastSharedAt", "createdAt", "updatedAt", "poster", "agent", "forumRewardSlot", "funded",
];

function expectInterfaceJob(job: Record<string, unknown>) {
  for (const field of JOB_FIELDS) expect(job, `field ${field}`).toHaveProperty(field);
  Job.parse(job);
  const escrowJobId = job.escrowJobId as Record<string, number>;
  expect(Object.keys(escrowJobId).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 32 }, (_, i) => String(i)));
  for (const byte of Object.values(escrowJobId)) expect(byte).toBeGreaterThanOrEqual(0), expect(byte).toBeLessThanOrEqual(255);
  expect(job).toMatchObject({ chainId: 31337, tokenSymbol: "USDC", paymentProvider: "ON_CHAIN_USDC" });
  expect(job.tokenAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
}

describe("POST /v1/jobs", () => {
  it("creates an OPEN, unfunded custom-v1 job with every field of the interface", async () => {
    const poster = await newAgent(service);
    const res = await service.http("POST", "/v1/jobs", { token: poster.apiKey, body: jobInput({ inputData: { budgetType: "bid", proofHoldHours: 720, proofContentMarker: "awm-proof-1234" } }) });
    expect(res.status).toBe(201);
    const job = res.json.data;
    expectInterfaceJob(job);
    expect(job).toMatchObject({ status: "OPEN", funded: false, escrowTxHash: null, templateId: "custom-v1", participationMode: "BID", budgetUsdc: "40", agentId: null });
    expect(job.inputData).toMatchObject({ budgetType: "bid", proofHoldHours: 720, participationMode: "BID", proofContentMarker: "awm-proof-1234" });
    expect(job.acceptanceCriteria[0]).toMatchObject({ id: "ac-1", check: { type: "manual" }, description: "A CSV with 50 rows" });
    expect(job.poster.id).toBe(job.posterId);
  });

  it("validates the payload: template, title, budget, marker length", async () => {
    const poster = await newAgent(service);
    const post = (body: unknown) => service.http("POST", "/v1/jobs", { token: poster.apiKey, body });
    expect((await post(jobInput({ templateId: "other" }))).status).toBe(400);
    const noTitle = await post({ ...jobInput(), title: undefined });
    expect(noTitle.status).toBe(400);
    expect(noTitle.json.message).toContain("title should not be empty");
    expect((await post(jobInput({ budget: "abc" }))).status).toBe(400);
    expect((await post(jobInput({ budget: "0" }))).status).toBe(400);
    expect((await post(jobInput({ inputData: { budgetType: "bid", proofContentMarker: "x".repeat(7) } }))).status).toBe(400);
    expect((await post(jobInput({ inputData: { budgetType: "bid", proofContentMarker: "x".repeat(201) } }))).status).toBe(400);
    expect((await post(jobInput({ inputData: { budgetType: "bid", proofContentMarker: "x".repeat(8) } }))).status).toBe(201);
    expect((await post(jobInput({ inputData: { budgetType: "bid", proofContentMarker: "x".repeat(200) } }))).status).toBe(201);
  });

  it("needs a credential with jobs:write", async () => {
    expect((await service.http("POST", "/v1/jobs", { body: jobInput() })).status).toBe(401);
    const bad = await service.http("POST", "/v1/jobs", { token: "awm_sk_nope", body: jobInput() });
    expect(bad.status).toBe(401);
    expect(bad.json).toMatchObject({ statusCode: 401, error: "Unauthorized" });
  });

  it("lets a signed-in human post too", async () => {
    const user = await newUser(service);
    const res = await user.client.createJob({ body: jobInput() });
    expect(res.data.posterId).toBe(user.id);
  });
});

describe("reading jobs", () => {
  it("detail needs authentication; public detail does not and omits the proof-check fields", async () => {
    const poster = await newAgent(service);
    const { data: job } = await poster.client.createJob({ body: jobInput() });
    expect((await service.http("GET", `/v1/jobs/${job.id}`)).status).toBe(401);
    const detail = await service.http("GET", `/v1/jobs/${job.id}`, { token: poster.apiKey });
    expect(detail.status).toBe(200);
    expectInterfaceJob(detail.json.data);
    for (const field of ["proofCheckedAt", "proofCheckStatus", "proofCheckReason"]) expect(detail.json.data).toHaveProperty(field);
    const pub = await service.http("GET", `/v1/jobs/${job.id}/public`);
    expect(pub.status).toBe(200);
    expectInterfaceJob(pub.json.data);
    expect(pub.json.data).not.toHaveProperty("proofCheckStatus");
  });

  it("answers 400 for a malformed id and 404 for an unknown one, never 500", async () => {
    expect((await service.http("GET", "/v1/jobs/not-a-uuid/public")).status).toBe(400);
    const unknown = await service.http("GET", "/v1/jobs/4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a11/public");
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ statusCode: 404, error: "Not Found", code: "NOT_FOUND" });
  });

  it("lists with funded and participationMode on every row, filters, and follows cursors without duplicates", async () => {
    const poster = await newUser(service);
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push((await poster.client.createJob({ body: jobInput({ title: `Cursor job number ${i}` }) })).data.id);
    const anonymous = service.client();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await anonymous.listJobs({ query: { posterId: poster.id, limit: 10, ...(cursor ? { cursor } : {}) } });
      pages += 1;
      expect(page.meta.limit).toBe(10);
      expect(page.meta.hasMore).toBe(page.meta.nextCursor !== null);
      for (const row of page.data) {
        expect(row).toHaveProperty("funded");
        expect(row).toHaveProperty("participationMode");
        seen.push(row.id);
      }
      cursor = page.meta.nextCursor ?? undefined;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());

    const all: string[] = [];
    for await (const job of anonymous.paginate(routes.listJobs, { query: { posterId: poster.id, limit: 7 } })) all.push(job.id);
    expect(new Set(all).size).toBe(25);

    const funded = await anonymous.listJobs({ query: { posterId: poster.id, funded: true } });
    expect(funded.data).toHaveLength(0);
    const unfunded = await anonymous.listJobs({ query: { posterId: poster.id, funded: false, limit: 100 } });
    expect(unfunded.data).toHaveLength(25);
    expect((await service.http("GET", "/v1/jobs?funded=maybe")).status).toBe(400);
    expect((await service.http("GET", "/v1/jobs?status=NOPE")).status).toBe(400);
    expect((await service.http("GET", "/v1/jobs?limit=0")).status).toBe(400);
  });

  it("excludeBidBy hides the jobs that agent already bid on", async () => {
    const poster = await newUser(service);
    const bidder = await newAgent(service);
    const a = (await poster.client.createJob({ body: jobInput({ title: "Exclude test job A" }) })).data;
    const b = (await poster.client.createJob({ body: jobInput({ title: "Exclude test job B" }) })).data;
    await bidder.client.placeBid({ params: { id: a.id }, body: { agentId: bidder.id, proposedUsdc: "40" } });
    const res = await service.client().listJobs({ query: { posterId: poster.id, excludeBidBy: bidder.id } });
    expect(res.data.map((j) => j.id)).toEqual([b.id]);
  });

  it("refuses malformed cursors with 400", async () => {
    const garbage = Buffer.from("garbage").toString("base64url");
    const notUuid = Buffer.from(JSON.stringify(["2026-01-01T00:00:00.000Z", "x'; drop table jobs; --"])).toString("base64url");
    for (const cursor of ["abc", garbage, notUuid, "%%%"]) {
      const res = await service.http("GET", `/v1/jobs?cursor=${encodeURIComponent(cursor)}`);
      expect(res.status, cursor).toBe(400);
      expect(res.json.code).toBe("VALIDATION_FAILED");
    }
  });
});

describe("POST /v1/jobs/:id/cancel", () => {
  it("is for the poster; OPEN becomes CANCELLED and pending bids expire; twice is 409", async () => {
    const poster = await newUser(service);
    const bidder = await newAgent(service);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const bid = await bidder.client.placeBid({ params: { id: job.id }, body: { agentId: bidder.id, proposedUsdc: "40" } });
    expect((await service.http("POST", `/v1/jobs/${job.id}/cancel`, { token: bidder.apiKey })).status).toBe(403);
    const res = await service.http("POST", `/v1/jobs/${job.id}/cancel`, { token: poster.token });
    expect(res.status).toBe(200);
    expect(res.json.data.status).toBe("CANCELLED");
    const rows = await bidder.client.listAgentBids({ params: { id: bidder.id } });
    expect(rows.data.find((r) => r.id === bid.data.id)).toMatchObject({ status: "EXPIRED", jobStatus: "CANCELLED" });
    expect((await service.http("POST", `/v1/jobs/${job.id}/cancel`, { token: poster.token })).status).toBe(409);
  });
});
