import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentBidRow, Bid } from "@/lib/api/schemas/bids";
import {
  claimLinkFor,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
} from "../testing/harness";
import { expectError } from "../testing/expect-error";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

async function openJob(budget = "40") {
  const poster = await newUser(service);
  const job = (await poster.client.createJob({ body: jobInput({ budget }) })).data;
  return { poster, job };
}

const bid = (jobId: string, agent: TestAgent, body: Record<string, unknown> = {}) =>
  service.http("POST", `/v1/jobs/${jobId}/bids`, {
    token: agent.apiKey,
    body: { agentId: agent.id, proposedUsdc: "40", ...body },
  });
const bidRows = (jobId: string) => service.db.selectFrom("bids").selectAll().where("job_id", "=", jobId).execute();
const jobDetail = async (jobId: string, token: string) =>
  (await service.http("GET", `/v1/jobs/${jobId}`, { token })).json.data;

describe("POST /v1/jobs/:id/bids: the request", () => {
  it('proposerUsdc and etaHours are refused: "property … should not exist"', async () => {
    const { job } = await openJob();
    const agent = await newAgent(service);
    for (const field of ["proposerUsdc", "etaHours"]) {
      const res = await bid(job.id, agent, { [field]: field === "etaHours" ? 4 : "40" });
      expect(expectError(res, 400, "VALIDATION_FAILED")).toContain(`property ${field} should not exist`);
    }
    const both = await bid(job.id, agent, { proposerUsdc: "40", etaHours: 4 });
    expect(expectError(both, 400, "VALIDATION_FAILED")).toEqual(
      expect.arrayContaining(["property proposerUsdc should not exist", "property etaHours should not exist"]),
    );
    expect(await bidRows(job.id)).toHaveLength(0);
  });

  it("agentId is required and proposedUsdc must be a decimal string", async () => {
    const { job } = await openJob();
    const agent = await newAgent(service);
    const noAgent = await service.http("POST", `/v1/jobs/${job.id}/bids`, {
      token: agent.apiKey,
      body: { proposedUsdc: "40" },
    });
    expect(expectError(noAgent, 400, "VALIDATION_FAILED")).toContain("agentId should not be empty");
    const noAmount = await service.http("POST", `/v1/jobs/${job.id}/bids`, {
      token: agent.apiKey,
      body: { agentId: agent.id },
    });
    expect(expectError(noAmount, 400, "VALIDATION_FAILED")).toContain("proposedUsdc should not be empty");
    for (const proposedUsdc of [12, "12.1234567", "abc", "-1", "1e3", ""]) {
      const res = await bid(job.id, agent, { proposedUsdc });
      expect(expectError(res, 400, "VALIDATION_FAILED").join(" "), JSON.stringify(proposedUsdc)).toMatch(
        /proposedUsdc/,
      );
    }
    expect(await bidRows(job.id)).toHaveLength(0);
    // Six decimals are fine, and the coverLetter is kept.
    const ok = await bid(job.id, agent, { proposedUsdc: "12.123456", coverLetter: "hello" });
    expect(ok.status).toBe(201);
    expect(ok.json.data).toMatchObject({ proposedUsdc: "12.123456", coverLetter: "hello" });
  });

  it("agentId of someone else's agent is 403 and places nothing", async () => {
    const { job } = await openJob();
    const me = await newAgent(service);
    const other = await newAgent(service);
    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/bids`, {
        token: me.apiKey,
        body: { agentId: other.id, proposedUsdc: "40" },
      }),
      403,
      "FORBIDDEN",
    );
    const human = await newUser(service);
    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/bids`, {
        token: human.token,
        body: { agentId: other.id, proposedUsdc: "40" },
      }),
      403,
      "FORBIDDEN",
    );
    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/bids`, { body: { agentId: other.id, proposedUsdc: "40" } }),
      401,
      "UNAUTHENTICATED",
    );
    expect(await bidRows(job.id)).toHaveLength(0);
  });

  it("a bid on an unknown job is 404; a malformed job id is 400", async () => {
    const agent = await newAgent(service);
    expectError(await bid("4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a11", agent), 404, "NOT_FOUND");
    expectError(await bid("not-a-job", agent), 400, "VALIDATION_FAILED");
  });
});

describe("POST /v1/jobs/:id/bids: the rules", () => {
  it("the first bid is PENDING; a second by the same agent is 409 BID_ALREADY_PLACED", async () => {
    const { job } = await openJob();
    const agent = await newAgent(service);
    const first = await bid(job.id, agent, { coverLetter: "hello" });
    expect(first.status).toBe(201);
    Bid.parse(first.json.data);
    expect(first.json.data).toMatchObject({
      status: "PENDING",
      agentId: agent.id,
      jobId: job.id,
      proposedUsdc: "40",
      coverLetter: "hello",
    });
    expectError(await bid(job.id, agent, { proposedUsdc: "35" }), 409, "BID_ALREADY_PLACED");
    const rows = await bidRows(job.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.proposed_usdc).toMatch(/^40(\.0+)?$/);
  });

  it("stays refused after the first bid was WITHDRAWN, REJECTED or EXPIRED (cancelled job)", async () => {
    // WITHDRAWN
    const w = await openJob();
    const withdrawer = await newAgent(service);
    const wBid = (await bid(w.job.id, withdrawer)).json.data;
    expect(
      (await service.http("POST", `/v1/agents/${withdrawer.id}/bids/${wBid.id}/withdraw`, { token: withdrawer.apiKey }))
        .json.data.status,
    ).toBe("WITHDRAWN");
    expectError(await bid(w.job.id, withdrawer, { proposedUsdc: "30" }), 409, "BID_ALREADY_PLACED");

    // REJECTED
    const r = await openJob();
    const rejected = await newAgent(service);
    const rBid = (await bid(r.job.id, rejected)).json.data;
    expect(
      (await service.http("POST", `/v1/jobs/${r.job.id}/bids/${rBid.id}/reject`, { token: r.poster.token })).json.data
        .status,
    ).toBe("REJECTED");
    expectError(await bid(r.job.id, rejected), 409, "BID_ALREADY_PLACED");

    // EXPIRED: the job was cancelled (the repeat says BID_ALREADY_PLACED, the more specific answer)
    const e = await openJob();
    const expired = await newAgent(service);
    const eBid = (await bid(e.job.id, expired)).json.data;
    await e.poster.client.cancelJob({ params: { id: e.job.id } });
    expect(
      (await expired.client.listAgentBids({ params: { id: expired.id } })).data.find((b) => b.id === eBid.id)?.status,
    ).toBe("EXPIRED");
    expectError(await bid(e.job.id, expired), 409, "BID_ALREADY_PLACED");

    for (const { job } of [w, r, e]) expect(await bidRows(job.id)).toHaveLength(1);
  });

  it("a CANCELLED or COMPLETED job takes no bid (409)", async () => {
    const agent = await newAgent(service);
    const cancelled = await openJob();
    await cancelled.poster.client.cancelJob({ params: { id: cancelled.job.id } });
    expectError(await bid(cancelled.job.id, agent), 409, "JOB_NOT_OPEN");

    const completed = await openJob();
    await service.db
      .updateTable("jobs")
      .set({ status: "COMPLETED", completed_at: new Date() })
      .where("id", "=", completed.job.id)
      .execute();
    expectError(await bid(completed.job.id, agent), 409, "JOB_NOT_OPEN");
    expect(await bidRows(cancelled.job.id)).toHaveLength(0);
    expect(await bidRows(completed.job.id)).toHaveLength(0);
  });

  it("an agent before its first heartbeat gets 409 AGENT_NOT_ACTIVE; after it, the bid goes in", async () => {
    const { job } = await openJob();
    const pending = await newAgent(service, { active: false });
    expect(expectError(await bid(job.id, pending), 409, "AGENT_NOT_ACTIVE").join(" ")).toMatch(/heartbeat/);
    expect(await bidRows(job.id)).toHaveLength(0);
    await pending.client.heartbeat({});
    expect((await bid(job.id, pending)).status).toBe(201);
  });

  it("an agent cannot bid on its own job (409)", async () => {
    const agent = await newAgent(service);
    const job = (await agent.client.createJob({ body: jobInput() })).data;
    expectError(await bid(job.id, agent), 409, "OWN_JOB");
    expect(await bidRows(job.id)).toHaveLength(0);
  });

  it("on a funded job proposedUsdc must equal the locked gross budget", async () => {
    const { job } = await openJob("40");
    await service.db
      .updateTable("jobs")
      .set({ escrow_tx_hash: `0x${randomBytes(32).toString("hex")}` })
      .where("id", "=", job.id)
      .execute();
    const a = await newAgent(service);
    expectError(await bid(job.id, a, { proposedUsdc: "39.99" }), 409, "BID_AMOUNT_MISMATCH");
    const b = await newAgent(service);
    expect((await bid(job.id, b, { proposedUsdc: "40.000000" })).status).toBe(201);
  });
});

describe("the poster's side", () => {
  it("GET /v1/jobs/:jobId/bids is the poster's: a bidder 403, anonymous 401", async () => {
    const { poster, job } = await openJob();
    const agent = await newAgent(service);
    await bid(job.id, agent, { coverLetter: "pick me" });
    expectError(await service.http("GET", `/v1/jobs/${job.id}/bids`, { token: agent.apiKey }), 403, "FORBIDDEN");
    expectError(
      await service.http("GET", `/v1/jobs/${job.id}/bids`, { token: (await newUser(service)).token }),
      403,
      "FORBIDDEN",
    );
    expectError(await service.http("GET", `/v1/jobs/${job.id}/bids`), 401, "UNAUTHENTICATED");
    const res = await service.http("GET", `/v1/jobs/${job.id}/bids`, { token: poster.token });
    expect(res.status).toBe(200);
    expect(res.json.data).toHaveLength(1);
    Bid.parse(res.json.data[0]);
    expect(res.json.data[0]).toMatchObject({
      agentId: agent.id,
      proposedUsdc: "40",
      coverLetter: "pick me",
      status: "PENDING",
    });
    expect(res.json.meta).toMatchObject({ nextCursor: null, hasMore: false });
  });

  it("accept assigns the job (IN_PROGRESS, agentId, claimedAt), the bid is ACCEPTED and the other pending bids REJECTED", async () => {
    const { poster, job } = await openJob();
    const a = await newAgent(service);
    const b = await newAgent(service);
    const c = await newAgent(service);
    const bidA = (await bid(job.id, a)).json.data;
    const bidB = (await bid(job.id, b, { proposedUsdc: "38" })).json.data;
    const bidC = (await bid(job.id, c)).json.data;
    await service.http("POST", `/v1/agents/${c.id}/bids/${bidC.id}/withdraw`, { token: c.apiKey });

    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/bids/${bidA.id}/accept`, { token: a.apiKey }),
      403,
      "FORBIDDEN",
    );
    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/bids/${bidA.id}/accept`, {
        token: (await newUser(service)).token,
      }),
      403,
      "FORBIDDEN",
    );
    expectError(await service.http("POST", `/v1/jobs/${job.id}/bids/${bidA.id}/accept`), 401, "UNAUTHENTICATED");
    expect((await jobDetail(job.id, poster.token)).status).toBe("OPEN");

    const res = await service.http("POST", `/v1/jobs/${job.id}/bids/${bidA.id}/accept`, { token: poster.token });
    expect(res.status).toBe(200);
    expect(res.json.data.job).toMatchObject({ id: job.id, status: "IN_PROGRESS", agentId: a.id, agent: { id: a.id } });
    expect(Math.abs(Date.parse(res.json.data.job.claimedAt) - Date.now())).toBeLessThan(60_000);
    expect(res.json.data.bid).toMatchObject({ id: bidA.id, status: "ACCEPTED" });

    const detail = await jobDetail(job.id, a.apiKey);
    expect(detail).toMatchObject({ status: "IN_PROGRESS", agentId: a.id, claimedAt: res.json.data.job.claimedAt });
    const statuses = Object.fromEntries(
      (await poster.client.listJobBids({ params: { jobId: job.id } })).data.map((x) => [x.id, x.status]),
    );
    expect(statuses).toEqual({ [bidA.id]: "ACCEPTED", [bidB.id]: "REJECTED", [bidC.id]: "WITHDRAWN" });
    expect((await a.client.getMyAgent({})).data.activeJobs).toBe(1);

    // The job is taken: no second acceptance, and no new bids.
    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/bids/${bidB.id}/accept`, { token: poster.token }),
      409,
      "JOB_NOT_OPEN",
    );
    expectError(await bid(job.id, await newAgent(service)), 409, "JOB_NOT_OPEN");
  });

  it("accepting a bid that is not PENDING is 409 BID_NOT_PENDING; an unknown bid is 404", async () => {
    const { poster, job } = await openJob();
    const agent = await newAgent(service);
    const withdrawn = (await bid(job.id, agent)).json.data;
    await service.http("POST", `/v1/agents/${agent.id}/bids/${withdrawn.id}/withdraw`, { token: agent.apiKey });
    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/bids/${withdrawn.id}/accept`, { token: poster.token }),
      409,
      "BID_NOT_PENDING",
    );
    const other = await newAgent(service);
    const rejected = (await bid(job.id, other)).json.data;
    await poster.client.rejectBid({ params: { jobId: job.id, bidId: rejected.id } });
    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/bids/${rejected.id}/accept`, { token: poster.token }),
      409,
      "BID_NOT_PENDING",
    );
    expect((await jobDetail(job.id, poster.token)).status).toBe("OPEN");
    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/bids/4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a11/accept`, {
        token: poster.token,
      }),
      404,
      "NOT_FOUND",
    );
  });

  it("maxActiveJobs: 0 pauses the agent, 1 allows one assignment at a time, null removes the cap", async () => {
    const agent = await newAgent(service);
    const jobs = [await openJob(), await openJob(), await openJob()];
    const bids: Array<{ id: string }> = [];
    for (const { job } of jobs) bids.push((await bid(job.id, agent)).json.data);
    const accept = (i: number) =>
      service.http("POST", `/v1/jobs/${jobs[i]!.job.id}/bids/${bids[i]!.id}/accept`, { token: jobs[i]!.poster.token });

    await agent.client.updateAgent({ params: { id: agent.id }, body: { maxActiveJobs: 0 } });
    expect(expectError(await accept(0), 409, "AGENT_AT_CAPACITY").join(" ")).toMatch(/paused/);
    expect((await jobDetail(jobs[0]!.job.id, agent.apiKey)).status).toBe("OPEN");
    expect(
      (await agent.client.listAgentBids({ params: { id: agent.id } })).data.every((b) => b.status === "PENDING"),
    ).toBe(true);

    await agent.client.updateAgent({ params: { id: agent.id }, body: { maxActiveJobs: 1 } });
    expect((await accept(0)).status).toBe(200);
    expect(expectError(await accept(1), 409, "AGENT_AT_CAPACITY").join(" ")).toMatch(/limit/);
    expect((await jobDetail(jobs[1]!.job.id, agent.apiKey)).status).toBe("OPEN");

    await agent.client.updateAgent({ params: { id: agent.id }, body: { maxActiveJobs: null } });
    expect((await accept(1)).status).toBe(200);
    expect((await accept(2)).status).toBe(200);
    expect((await agent.client.getMyAgent({})).data.activeJobs).toBe(3);

    // Lowering the cap under the current load refuses new work but keeps the jobs it has.
    await agent.client.updateAgent({ params: { id: agent.id }, body: { maxActiveJobs: 2 } });
    const extra = await openJob();
    const extraBid = (await bid(extra.job.id, agent)).json.data;
    expectError(
      await service.http("POST", `/v1/jobs/${extra.job.id}/bids/${extraBid.id}/accept`, { token: extra.poster.token }),
      409,
      "AGENT_AT_CAPACITY",
    );
  });

  it("reject: poster only (403), PENDING → REJECTED, then 409; withdraw: the agent or its owner (403 otherwise), then 409", async () => {
    const { poster, job } = await openJob();
    const agent = await newAgent(service);
    const theBid = (await bid(job.id, agent)).json.data;
    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/bids/${theBid.id}/reject`, { token: agent.apiKey }),
      403,
      "FORBIDDEN",
    );
    const stranger = await newAgent(service);
    expectError(
      await service.http("POST", `/v1/agents/${agent.id}/bids/${theBid.id}/withdraw`, { token: stranger.apiKey }),
      403,
      "FORBIDDEN",
    );
    expectError(
      await service.http("POST", `/v1/agents/${agent.id}/bids/${theBid.id}/withdraw`, { token: poster.token }),
      403,
      "FORBIDDEN",
    );
    const rejected = await service.http("POST", `/v1/jobs/${job.id}/bids/${theBid.id}/reject`, { token: poster.token });
    expect(rejected.status).toBe(200);
    expect(rejected.json.data).toMatchObject({ id: theBid.id, status: "REJECTED" });
    expectError(
      await service.http("POST", `/v1/jobs/${job.id}/bids/${theBid.id}/reject`, { token: poster.token }),
      409,
      "BID_NOT_PENDING",
    );
    expectError(
      await service.http("POST", `/v1/agents/${agent.id}/bids/${theBid.id}/withdraw`, { token: agent.apiKey }),
      409,
      "BID_NOT_PENDING",
    );

    // The owner's session may withdraw for its agent.
    const ownerEmail = `withdraw-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
    const owned = await newAgent(service, { ownerEmail });
    const owner = await newUser(service);
    await owner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
    const second = await openJob();
    const ownedBid = (await bid(second.job.id, owned)).json.data;
    const byOwner = await service.http("POST", `/v1/agents/${owned.id}/bids/${ownedBid.id}/withdraw`, {
      token: owner.token,
    });
    expect(byOwner.status).toBe(200);
    expect(byOwner.json.data.status).toBe("WITHDRAWN");
    expect(await bidRows(second.job.id)).toHaveLength(1);
  });
});

describe("GET /v1/agents/:id/bids", () => {
  async function siblings() {
    const owner = await newUser(service);
    const emails = [0, 1].map((i) => `sib${i}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`);
    const a = await newAgent(service, { ownerEmail: emails[0] });
    const b = await newAgent(service, { ownerEmail: emails[1] });
    for (const to of emails) await owner.client.claimAgent({ params: { token: await claimLinkFor(service, to) } });
    return { owner, a, b };
  }

  it("an agent key reads only its own agent, not a sibling of the same owner (403); the owner's session reads both", async () => {
    const { owner, a, b } = await siblings();
    const { job } = await openJob();
    await bid(job.id, a);
    expectError(await service.http("GET", `/v1/agents/${a.id}/bids`, { token: b.apiKey }), 403, "FORBIDDEN");
    expectError(await service.http("GET", `/v1/agents/${b.id}/bids`, { token: a.apiKey }), 403, "FORBIDDEN");
    expectError(await service.http("GET", `/v1/agents/${a.id}/bids`), 401, "UNAUTHENTICATED");
    expectError(
      await service.http("GET", `/v1/agents/${a.id}/bids`, { token: (await newUser(service)).token }),
      403,
      "FORBIDDEN",
    );
    expectError(await service.http("GET", "/v1/agents/no-such-agent-000/bids", { token: a.apiKey }), 404, "NOT_FOUND");

    const own = await service.http("GET", `/v1/agents/${a.id}/bids`, { token: a.apiKey });
    expect(own.status).toBe(200);
    expect(own.json.data).toHaveLength(1);
    const byOwner = await service.http("GET", `/v1/agents/${a.id}/bids`, { token: owner.token });
    expect(byOwner.status).toBe(200);
    expect(byOwner.json.data.map((r: { id: string }) => r.id)).toEqual(own.json.data.map((r: { id: string }) => r.id));
    expect((await service.http("GET", `/v1/agents/${b.id}/bids`, { token: owner.token })).status).toBe(200);

    // The agent's own key needs jobs:read.
    await service.db
      .updateTable("api_keys")
      .set({ scopes: ["jobs:write"] })
      .where("agent_id", "=", a.id)
      .execute();
    expectError(await service.http("GET", `/v1/agents/${a.id}/bids`, { token: a.apiKey }), 403, "MISSING_SCOPE");
  });

  it("rows carry the bid status, the job status and the funded flag; status filters; the cursor pages", async () => {
    const agent = await newAgent(service);
    const made: Array<{ jobId: string; bidId: string; poster: Awaited<ReturnType<typeof newUser>> }> = [];
    for (let i = 0; i < 5; i++) {
      const { poster, job } = await openJob();
      made.push({ jobId: job.id, bidId: (await bid(job.id, agent)).json.data.id, poster });
    }
    // 0: withdrawn; 1: accepted (job IN_PROGRESS); 2: job funded; 3: job cancelled (bid EXPIRED); 4: pending.
    await service.http("POST", `/v1/agents/${agent.id}/bids/${made[0]!.bidId}/withdraw`, { token: agent.apiKey });
    await made[1]!.poster.client.acceptBid({ params: { jobId: made[1]!.jobId, bidId: made[1]!.bidId } });
    await service.db
      .updateTable("jobs")
      .set({ escrow_tx_hash: `0x${randomBytes(32).toString("hex")}` })
      .where("id", "=", made[2]!.jobId)
      .execute();
    await made[3]!.poster.client.cancelJob({ params: { id: made[3]!.jobId } });

    const res = await service.http("GET", `/v1/agents/${agent.id}/bids`, { token: agent.apiKey });
    expect(res.status).toBe(200);
    const byBid = new Map((res.json.data as Array<Record<string, any>>).map((row) => [row.id, row]));
    for (const row of byBid.values()) AgentBidRow.parse(row);
    const view = (i: number) => {
      const row = byBid.get(made[i]!.bidId)!;
      return { status: row.status, jobStatus: row.jobStatus, funded: row.funded, jobId: row.jobId };
    };
    expect(view(0)).toEqual({ status: "WITHDRAWN", jobStatus: "OPEN", funded: false, jobId: made[0]!.jobId });
    expect(view(1)).toEqual({ status: "ACCEPTED", jobStatus: "IN_PROGRESS", funded: false, jobId: made[1]!.jobId });
    expect(view(2)).toEqual({ status: "PENDING", jobStatus: "OPEN", funded: true, jobId: made[2]!.jobId });
    expect(view(3)).toEqual({ status: "EXPIRED", jobStatus: "CANCELLED", funded: false, jobId: made[3]!.jobId });
    expect(view(4)).toEqual({ status: "PENDING", jobStatus: "OPEN", funded: false, jobId: made[4]!.jobId });

    const only = async (status: string) =>
      (
        (await service.http("GET", `/v1/agents/${agent.id}/bids?status=${status}`, { token: agent.apiKey })).json
          .data as Array<{ id: string }>
      )
        .map((r) => r.id)
        .sort();
    expect(await only("WITHDRAWN")).toEqual([made[0]!.bidId]);
    expect(await only("ACCEPTED")).toEqual([made[1]!.bidId]);
    expect(await only("EXPIRED")).toEqual([made[3]!.bidId]);
    expect(await only("PENDING")).toEqual([made[2]!.bidId, made[4]!.bidId].sort());
    expect(await only("REJECTED")).toEqual([]);
    expectError(
      await service.http("GET", `/v1/agents/${agent.id}/bids?status=LOST`, { token: agent.apiKey }),
      400,
      "VALIDATION_FAILED",
    );

    const page1 = await service.http("GET", `/v1/agents/${agent.id}/bids?limit=3`, { token: agent.apiKey });
    expect(page1.json.data).toHaveLength(3);
    expect(page1.json.meta).toMatchObject({ hasMore: true, limit: 3, nextCursor: expect.any(String) });
    const page2 = await service.http(
      "GET",
      `/v1/agents/${agent.id}/bids?limit=3&cursor=${page1.json.meta.nextCursor}`,
      { token: agent.apiKey },
    );
    expect(page2.json.data).toHaveLength(2);
    expect(page2.json.meta).toMatchObject({ hasMore: false, nextCursor: null });
    const ids = [...page1.json.data, ...page2.json.data].map((r: { id: string }) => r.id);
    expect(new Set(ids).size).toBe(5);
    expect(new Set(ids)).toEqual(new Set(made.map((m) => m.bidId)));
    // Newest first.
    expect(ids[0]).toBe(made[4]!.bidId);
    expectError(
      await service.http("GET", `/v1/agents/${agent.id}/bids?cursor=abc`, { token: agent.apiKey }),
      400,
      "VALIDATION_FAILED",
    );
  });
});
