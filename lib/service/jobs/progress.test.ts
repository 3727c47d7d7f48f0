import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Job } from "@/lib/api/schemas/jobs";
import { JobDetail } from "@/lib/api/schemas/viewer";
import {
  claimLinkFor,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { expectError } from "../testing/expect-error";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const HOUR = 3_600_000;
const FAKE_ESCROW_TX = `0x${"ab".repeat(32)}`;

/** A BID job assigned to a fresh agent (maxActiveJobs 1): posted, bid on, accepted. */
async function assignedJob(inputData: Record<string, unknown> = {}, agentOptions: { ownerEmail?: string } = {}) {
  const poster = await newUser(service);
  const agent = await newAgent(service, agentOptions);
  expect(
    (await service.http("PATCH", `/v1/agents/${agent.id}`, { token: agent.apiKey, body: { maxActiveJobs: 1 } })).status,
  ).toBe(200);
  const job = (await poster.client.createJob({ body: jobInput({ inputData: { budgetType: "bid", ...inputData } }) }))
    .data;
  const bid = await service.http("POST", `/v1/jobs/${job.id}/bids`, {
    token: agent.apiKey,
    body: { agentId: agent.id, proposedUsdc: "40" },
  });
  expect(bid.status).toBe(201);
  const accepted = await service.http("POST", `/v1/jobs/${job.id}/bids/${bid.json.data.id}/accept`, {
    token: poster.token,
  });
  expect(accepted.status).toBe(200);
  return { poster, agent, job, bidId: bid.json.data.id as string };
}

const heartbeat = (jobId: string, token: string, body: unknown) =>
  service.http("POST", `/v1/jobs/${jobId}/heartbeat`, { token, body });
const reopen = (jobId: string, token: string) => service.http("POST", `/v1/jobs/${jobId}/reopen`, { token });
const detail = async (jobId: string, token?: string) => {
  const res = await service.http("GET", `/v1/jobs/${jobId}`, { token });
  expect(res.status).toBe(200);
  return JobDetail.parse(res.json.data);
};
/** Moves the job's stall clock back: both the assignment and the last report. */
async function ageJob(jobId: string, hours: number) {
  const then = new Date(Date.now() - hours * HOUR);
  await service.db.updateTable("jobs").set({ claimed_at: then }).where("id", "=", jobId).execute();
  await service.db
    .updateTable("jobs")
    .set({ last_heartbeat_at: then })
    .where("id", "=", jobId)
    .where("last_heartbeat_at", "is not", null)
    .execute();
}

describe("POST /v1/jobs/:id/heartbeat", () => {
  it("the assigned agent reports; the poster reads progress and the note; non-parties see neither", async () => {
    const { poster, agent, job } = await assignedJob();
    const res = await heartbeat(job.id, agent.apiKey, { progress: 0.4, note: "Found 20 of the 50 leads" });
    expect(res.status).toBe(200);
    Job.parse(res.json.data);
    expect(res.json.data).toMatchObject({ progress: 0.4, progressNote: "Found 20 of the 50 leads", stalled: false });

    const seen = await detail(job.id, poster.token);
    expect(seen).toMatchObject({ progress: 0.4, progressNote: "Found 20 of the 50 leads", stalled: false });
    expect(Date.now() - new Date(seen.lastHeartbeatAt!).getTime()).toBeLessThan(60_000);
    expect(seen.viewer?.can).toMatchObject({ reopen: false, reportProgress: false });
    expect((await detail(job.id, agent.apiKey)).viewer?.can.reportProgress).toBe(true);

    // A stranger, another agent, the public read (even with the poster's credential): no progress fields at all.
    const stranger = await newUser(service);
    const other = await newAgent(service);
    for (const token of [stranger.token, other.apiKey]) {
      const d = await detail(job.id, token);
      for (const field of ["progress", "progressNote", "lastHeartbeatAt", "stalled"])
        expect(d, field).not.toHaveProperty(field);
      expect(d.viewer?.can.reopen).toBe(false);
    }
    const pub = (await service.http("GET", `/v1/jobs/${job.id}/public`, { token: poster.token })).json.data;
    for (const field of ["progress", "progressNote", "lastHeartbeatAt", "stalled"])
      expect(pub, field).not.toHaveProperty(field);

    // A later report replaces the earlier one; an omitted note clears it.
    expect((await heartbeat(job.id, agent.apiKey, { progress: 1 })).json.data).toMatchObject({
      progress: 1,
      progressNote: null,
    });
  });

  it("the human who owns the assigned agent may report for it, and reads what it reported", async () => {
    const ownerEmail = `progress-owner-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
    const { poster, agent, job } = await assignedJob({}, { ownerEmail });
    const owner = await newUser(service);
    await owner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
    expect((await detail(job.id, owner.token)).viewer?.can.reportProgress).toBe(true);
    const res = await heartbeat(job.id, owner.token, { progress: 0.75, note: "Reported by the owner" });
    expect(res.status).toBe(200);
    expect(await detail(job.id, poster.token)).toMatchObject({ progress: 0.75, progressNote: "Reported by the owner" });
    expect(await detail(job.id, agent.apiKey)).toMatchObject({ progress: 0.75, progressNote: "Reported by the owner" });
  });

  it("a stranger, another agent or the poster is 403, and nothing changes", async () => {
    const { poster, job } = await assignedJob();
    const stranger = await newUser(service);
    const other = await newAgent(service);
    for (const token of [stranger.token, other.apiKey, poster.token])
      expectError(await heartbeat(job.id, token, { progress: 0.5, note: "mine" }), 403, "FORBIDDEN");
    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/heartbeat`, { body: { progress: 0.5 } }),
      401,
      "UNAUTHENTICATED",
    );
    const row = await service.db
      .selectFrom("jobs")
      .select(["progress", "progress_note", "last_heartbeat_at"])
      .where("id", "=", job.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ progress: null, progress_note: null, last_heartbeat_at: null });
  });

  it("bad progress or note is 400 and changes nothing; an OPEN job is 409", async () => {
    const { agent, job } = await assignedJob();
    for (const progress of [-0.1, 1.5, "x", "0.5", null]) {
      expect(
        expectError(await heartbeat(job.id, agent.apiKey, { progress, note: "n" }), 400, "VALIDATION_FAILED").join(" "),
        JSON.stringify(progress),
      ).toMatch(/progress/);
    }
    expectError(await heartbeat(job.id, agent.apiKey, { note: "no progress" }), 400, "VALIDATION_FAILED");
    expect(
      expectError(
        await heartbeat(job.id, agent.apiKey, { progress: 0.5, note: "x".repeat(1001) }),
        400,
        "VALIDATION_FAILED",
      ).join(" "),
    ).toMatch(/note/);
    expect(
      expectError(await heartbeat(job.id, agent.apiKey, { progress: 0.5, eta: 3 }), 400, "VALIDATION_FAILED"),
    ).toContain("property eta should not exist");
    const row = await service.db
      .selectFrom("jobs")
      .select(["progress", "last_heartbeat_at"])
      .where("id", "=", job.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ progress: null, last_heartbeat_at: null });

    const poster = await newUser(service);
    const open = (await poster.client.createJob({ body: jobInput() })).data;
    // Nobody is assigned to an OPEN job, so nobody may report on it.
    expectError(await heartbeat(open.id, agent.apiKey, { progress: 0.5 }), 403, "FORBIDDEN");
  });
});

describe("stalled jobs and POST /v1/jobs/:id/reopen", () => {
  it("inputData.stallAfterHours is kept (default 24) and checked (1 to 720)", async () => {
    const poster = await newUser(service);
    expect((await poster.client.createJob({ body: jobInput() })).data.inputData.stallAfterHours).toBe(24);
    expect(
      (await poster.client.createJob({ body: jobInput({ inputData: { budgetType: "bid", stallAfterHours: 6 } }) })).data
        .inputData.stallAfterHours,
    ).toBe(6);
    for (const stallAfterHours of [0, 721, 1.5, "soon"]) {
      const res = await service.http("POST", "/v1/jobs", {
        token: poster.token,
        body: jobInput({ inputData: { budgetType: "bid", stallAfterHours } }),
      });
      expect(expectError(res, 400, "VALIDATION_FAILED").join(" "), JSON.stringify(stallAfterHours)).toMatch(
        /stallAfterHours/,
      );
    }
  });

  it("a job with no report for longer than stallAfterHours is stalled to its poster; reopening frees the agent, keeps the bid and the escrow", async () => {
    const { poster, agent, job, bidId } = await assignedJob({ stallAfterHours: 6 });
    // Funded (the escrow's deposit is on record); reopening must not refund it.
    await service.db
      .updateTable("jobs")
      .set({ escrow_tx_hash: FAKE_ESCROW_TX, funded_at: new Date() })
      .where("id", "=", job.id)
      .execute();
    expect((await heartbeat(job.id, agent.apiKey, { progress: 0.3, note: "started" })).status).toBe(200);

    // Within the window: not stalled, and reopening is 409.
    await ageJob(job.id, 5);
    expect(await detail(job.id, poster.token)).toMatchObject({ stalled: false, viewer: { can: { reopen: false } } });
    expectError(await reopen(job.id, poster.token), 409, "JOB_NOT_STALLED");

    // Past it: stalled, to the poster and to the agent's side.
    await ageJob(job.id, 7);
    expect(await detail(job.id, poster.token)).toMatchObject({
      status: "IN_PROGRESS",
      stalled: true,
      progress: 0.3,
      progressNote: "started",
      viewer: { can: { reopen: true } },
    });
    expect(await detail(job.id, agent.apiKey)).toMatchObject({ stalled: true, viewer: { can: { reopen: false } } });

    // The agent is at its maxActiveJobs (1): another job cannot be given to it.
    const second = await bidAndAccept(agent);
    expectError(second.accept, 409, "AGENT_AT_CAPACITY");

    // Only the poster reopens.
    expectError(await reopen(job.id, agent.apiKey), 403, "FORBIDDEN");
    expectError(await reopen(job.id, (await newUser(service)).token), 403, "FORBIDDEN");

    const res = await reopen(job.id, poster.token);
    expect(res.status).toBe(200);
    Job.parse(res.json.data);
    expect(res.json.data).toMatchObject({
      status: "OPEN",
      agentId: null,
      agent: null,
      claimedAt: null,
      progress: null,
      progressNote: null,
      lastHeartbeatAt: null,
      stalled: false,
      funded: true,
      escrowTxHash: FAKE_ESCROW_TX,
      refundTxHash: null,
    });
    // Funds stay in escrow: no settlement (refund or release) was recorded.
    expect(
      await service.db.selectFrom("escrow_settlements").select("id").where("job_id", "=", job.id).execute(),
    ).toHaveLength(0);
    // The bid stays as a record, EXPIRED.
    const bids = (await service.http("GET", `/v1/jobs/${job.id}/bids`, { token: poster.token })).json.data;
    expect(bids).toEqual([expect.objectContaining({ id: bidId, agentId: agent.id, status: "EXPIRED" })]);
    // The agent's place is free: it takes the other job now.
    const again = await service.http("POST", `/v1/jobs/${second.jobId}/bids/${second.bidId}/accept`, {
      token: second.poster.token,
    });
    expect(again.status).toBe(200);
    // And the reopened job is OPEN for a new agent's bid.
    const newcomer = await newAgent(service);
    expect(
      (
        await service.http("POST", `/v1/jobs/${job.id}/bids`, {
          token: newcomer.apiKey,
          body: { agentId: newcomer.id, proposedUsdc: "40" },
        })
      ).status,
    ).toBe(201);
    // Reopening an OPEN job is 409.
    expectError(await reopen(job.id, poster.token), 409, "JOB_NOT_STALLED");
  });

  it("before the first report the clock runs from the assignment", async () => {
    const { poster, job } = await assignedJob();
    await ageJob(job.id, 23);
    expectError(await reopen(job.id, poster.token), 409, "JOB_NOT_STALLED");
    await ageJob(job.id, 25);
    expect((await detail(job.id, poster.token)).stalled).toBe(true);
    expect((await reopen(job.id, poster.token)).status).toBe(200);
  });
});

/** Posts a job, has `agent` bid on it, and the poster tries to accept the bid. */
async function bidAndAccept(agent: TestAgent) {
  const poster: TestUser = await newUser(service);
  const job = (await poster.client.createJob({ body: jobInput() })).data;
  const bid = await service.http("POST", `/v1/jobs/${job.id}/bids`, {
    token: agent.apiKey,
    body: { agentId: agent.id, proposedUsdc: "40" },
  });
  expect(bid.status).toBe(201);
  const accept = await service.http("POST", `/v1/jobs/${job.id}/bids/${bid.json.data.id}/accept`, {
    token: poster.token,
  });
  return { poster, jobId: job.id, bidId: bid.json.data.id as string, accept };
}
