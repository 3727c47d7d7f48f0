import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimLinkFor, jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";

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

const bidPath = (jobId: string) => `/v1/jobs/${jobId}/bids`;

describe("POST /v1/jobs/:id/bids validation", () => {
  it("rejects proposerUsdc and etaHours as properties that should not exist", async () => {
    const { job } = await openJob();
    const agent = await newAgent(service);
    const res = await service.http("POST", bidPath(job.id), { token: agent.apiKey, body: { agentId: agent.id, proposedUsdc: "40", proposerUsdc: "40", etaHours: 4 } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ statusCode: 400, error: "Bad Request" });
    expect(res.json.message).toEqual(expect.arrayContaining(["property proposerUsdc should not exist", "property etaHours should not exist"]));
  });

  it("requires agentId and a decimal-string proposedUsdc", async () => {
    const { job } = await openJob();
    const agent = await newAgent(service);
    const noAgent = await service.http("POST", bidPath(job.id), { token: agent.apiKey, body: { proposedUsdc: "40" } });
    expect(noAgent.status).toBe(400);
    expect(noAgent.json.message).toContain("agentId should not be empty");
    for (const proposedUsdc of [40, "12.1234567", "abc", "-1"]) {
      const res = await service.http("POST", bidPath(job.id), { token: agent.apiKey, body: { agentId: agent.id, proposedUsdc } });
      expect(res.status, String(proposedUsdc)).toBe(400);
    }
    const rows = await service.db.selectFrom("bids").selectAll().where("job_id", "=", job.id).execute();
    expect(rows).toHaveLength(0);
  });

  it("refuses someone else's agentId (identity comes from the key)", async () => {
    const { job } = await openJob();
    const me = await newAgent(service);
    const other = await newAgent(service);
    const res = await service.http("POST", bidPath(job.id), { token: me.apiKey, body: { agentId: other.id, proposedUsdc: "40" } });
    expect(res.status).toBe(403);
  });
});

describe("bid rules", () => {
  it("one bid per agent per job, also after WITHDRAWN, REJECTED or EXPIRED", async () => {
    const { poster, job } = await openJob();
    const agent = await newAgent(service);
    const first = await service.http("POST", bidPath(job.id), { token: agent.apiKey, body: { agentId: agent.id, proposedUsdc: "40", coverLetter: "hello" } });
    expect(first.status).toBe(201);
    expect(first.json.data).toMatchObject({ status: "PENDING", agentId: agent.id, jobId: job.id, proposedUsdc: "40", coverLetter: "hello" });
    const second = await service.http("POST", bidPath(job.id), { token: agent.apiKey, body: { agentId: agent.id, proposedUsdc: "35" } });
    expect(second.status).toBe(409);
    expect(second.json.code).toBe("BID_ALREADY_PLACED");

    // WITHDRAWN
    await agent.client.withdrawBid({ params: { id: agent.id, bidId: first.json.data.id } });
    const afterWithdraw = await service.http("POST", bidPath(job.id), { token: agent.apiKey, body: { agentId: agent.id, proposedUsdc: "30" } });
    expect(afterWithdraw.json.code).toBe("BID_ALREADY_PLACED");

    // REJECTED
    const other = await newAgent(service);
    const otherBid = (await other.client.placeBid({ params: { id: job.id }, body: { agentId: other.id, proposedUsdc: "40" } })).data;
    await poster.client.rejectBid({ params: { jobId: job.id, bidId: otherBid.id } });
    const afterReject = await service.http("POST", bidPath(job.id), { token: other.apiKey, body: { agentId: other.id, proposedUsdc: "40" } });
    expect(afterReject.status).toBe(409);
    expect(afterReject.json.code).toBe("BID_ALREADY_PLACED");

    // EXPIRED (the job was cancelled)
    const second2 = await openJob();
    const third = await newAgent(service);
    await third.client.placeBid({ params: { id: second2.job.id }, body: { agentId: third.id, proposedUsdc: "40" } });
    await second2.poster.client.cancelJob({ params: { id: second2.job.id } });
    const afterExpire = await service.http("POST", bidPath(second2.job.id), { token: third.apiKey, body: { agentId: third.id, proposedUsdc: "40" } });
    expect(afterExpire.json.code).toBe("BID_ALREADY_PLACED");
    const rows = await service.db.selectFrom("bids").selectAll().where("job_id", "=", job.id).where("agent_id", "=", agent.id).execute();
    expect(rows).toHaveLength(1);
  });

  it("is refused on CANCELLED and COMPLETED jobs and before heartbeat activation", async () => {
    const cancelled = await openJob();
    await cancelled.poster.client.cancelJob({ params: { id: cancelled.job.id } });
    const agent = await newAgent(service);
    const onCancelled = await service.http("POST", bidPath(cancelled.job.id), { token: agent.apiKey, body: { agentId: agent.id, proposedUsdc: "40" } });
    expect(onCancelled.status).toBe(409);
    expect(onCancelled.json.code).toBe("JOB_NOT_OPEN");

    const completed = await openJob();
    await service.db.updateTable("jobs").set({ status: "COMPLETED" }).where("id", "=", completed.job.id).execute();
    const onCompleted = await service.http("POST", bidPath(completed.job.id), { token: agent.apiKey, body: { agentId: agent.id, proposedUsdc: "40" } });
    expect(onCompleted.status).toBe(409);

    const open = await openJob();
    const pending = await newAgent(service, { active: false });
    const early = await service.http("POST", bidPath(open.job.id), { token: pending.apiKey, body: { agentId: pending.id, proposedUsdc: "40" } });
    expect(early.status).toBe(409);
    expect(early.json.code).toBe("AGENT_NOT_ACTIVE");
  });

  it("an agent cannot bid on its own job", async () => {
    const agent = await newAgent(service);
    const job = (await agent.client.createJob({ body: jobInput() })).data;
    const res = await service.http("POST", bidPath(job.id), { token: agent.apiKey, body: { agentId: agent.id, proposedUsdc: "40" } });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe("OWN_JOB");
  });
});

describe("the poster's side", () => {
  it("only the poster reads a job's bids (a bidder gets 403, anonymous 401)", async () => {
    const { poster, job } = await openJob();
    const agent = await newAgent(service);
    await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40", coverLetter: "pick me" } });
    expect((await service.http("GET", bidPath(job.id), { token: agent.apiKey })).status).toBe(403);
    expect((await service.http("GET", bidPath(job.id))).status).toBe(401);
    const res = await poster.client.listJobBids({ params: { jobId: job.id } });
    expect(res.data).toHaveLength(1);
    expect(res.data[0]).toMatchObject({ agentId: agent.id, proposedUsdc: "40", coverLetter: "pick me", status: "PENDING" });
  });

  it("accept assigns the job, answers the other bids, and only the poster may do it", async () => {
    const { poster, job } = await openJob();
    const a = await newAgent(service);
    const b = await newAgent(service);
    const bidA = (await a.client.placeBid({ params: { id: job.id }, body: { agentId: a.id, proposedUsdc: "40" } })).data;
    const bidB = (await b.client.placeBid({ params: { id: job.id }, body: { agentId: b.id, proposedUsdc: "38" } })).data;
    expect((await service.http("POST", `/v1/jobs/${job.id}/bids/${bidA.id}/accept`, { token: a.apiKey })).status).toBe(403);
    const res = await poster.client.acceptBid({ params: { jobId: job.id, bidId: bidA.id } });
    expect(res.data.job).toMatchObject({ status: "IN_PROGRESS", agentId: a.id });
    expect(res.data.job.claimedAt).not.toBeNull();
    expect(res.data.bid.status).toBe("ACCEPTED");
    const bRows = await b.client.listAgentBids({ params: { id: b.id } });
    expect(bRows.data.find((r) => r.id === bidB.id)?.status).toBe("REJECTED");
    const again = await service.http("POST", `/v1/jobs/${job.id}/bids/${bidB.id}/accept`, { token: poster.token });
    expect(again.status).toBe(409);
  });

  it("maxActiveJobs 0 pauses the agent and 1 allows one assignment at a time; null removes the cap", async () => {
    const agent = await newAgent(service);
    await agent.client.updateAgent({ params: { id: agent.id }, body: { maxActiveJobs: 0 } });
    const first = await openJob();
    const bid1 = (await agent.client.placeBid({ params: { id: first.job.id }, body: { agentId: agent.id, proposedUsdc: "40" } })).data;
    const paused = await service.http("POST", `/v1/jobs/${first.job.id}/bids/${bid1.id}/accept`, { token: first.poster.token });
    expect(paused.status).toBe(409);
    expect(paused.json.code).toBe("AGENT_AT_CAPACITY");
    expect(paused.json.message).toMatch(/paused|maxActiveJobs/);
    const unchanged = await service.client().getPublicJob({ params: { id: first.job.id } });
    expect(unchanged.data.status).toBe("OPEN");

    await agent.client.updateAgent({ params: { id: agent.id }, body: { maxActiveJobs: 1 } });
    expect((await service.http("POST", `/v1/jobs/${first.job.id}/bids/${bid1.id}/accept`, { token: first.poster.token })).status).toBe(200);
    const second = await openJob();
    const bid2 = (await agent.client.placeBid({ params: { id: second.job.id }, body: { agentId: agent.id, proposedUsdc: "40" } })).data;
    const full = await service.http("POST", `/v1/jobs/${second.job.id}/bids/${bid2.id}/accept`, { token: second.poster.token });
    expect(full.status).toBe(409);
    expect(full.json.message).toContain("maxActiveJobs");

    await agent.client.updateAgent({ params: { id: agent.id }, body: { maxActiveJobs: null } });
    expect((await service.http("POST", `/v1/jobs/${second.job.id}/bids/${bid2.id}/accept`, { token: second.poster.token })).status).toBe(200);
    expect((await agent.client.getMyAgent({})).data.activeJobs).toBe(2);
  });

  it("reject and withdraw only move PENDING bids", async () => {
    const { poster, job } = await openJob();
    const agent = await newAgent(service);
    const bid = (await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } })).data;
    expect((await service.http("POST", `/v1/jobs/${job.id}/bids/${bid.id}/reject`, { token: agent.apiKey })).status).toBe(403);
    const stranger = await newAgent(service);
    expect((await service.http("POST", `/v1/agents/${agent.id}/bids/${bid.id}/withdraw`, { token: stranger.apiKey })).status).toBe(403);
    expect((await poster.client.rejectBid({ params: { jobId: job.id, bidId: bid.id } })).data.status).toBe("REJECTED");
    const withdraw = await service.http("POST", `/v1/agents/${agent.id}/bids/${bid.id}/withdraw`, { token: agent.apiKey });
    expect(withdraw.status).toBe(409);
    expect(withdraw.json.code).toBe("BID_NOT_PENDING");
  });
});

describe("GET /v1/agents/:id/bids", () => {
  it("reads only the key's own agent (not a sibling of the same owner); the owner reads any of theirs", async () => {
    const ownerEmail = `sib-${Date.now()}@example.test`;
    const owner = await newUser(service);
    const a = await newAgent(service, { ownerEmail });
    const b = await newAgent(service, { ownerEmail });
    const mails = await service.db.selectFrom("mail_outbox").select("text").where("to_address", "=", ownerEmail).execute();
    for (const mail of mails) await owner.client.claimAgent({ params: { token: /\/claim\/(\S+)/.exec(mail.text)![1]! } });
    void claimLinkFor;

    const { job } = await openJob();
    await a.client.placeBid({ params: { id: job.id }, body: { agentId: a.id, proposedUsdc: "40" } });
    expect((await service.http("GET", `/v1/agents/${a.id}/bids`, { token: b.apiKey })).status).toBe(403);
    expect((await service.http("GET", `/v1/agents/${a.id}/bids`)).status).toBe(401);
    const own = await service.http("GET", `/v1/agents/${a.id}/bids`, { token: a.apiKey });
    expect(own.status).toBe(200);
    expect(own.json.data[0]).toMatchObject({ status: "PENDING", jobStatus: "OPEN", funded: false, jobId: job.id });
    const byOwner = await service.http("GET", `/v1/agents/${a.id}/bids`, { token: owner.token });
    expect(byOwner.status).toBe(200);
  });

  it("filters by status and pages by cursor", async () => {
    const agent = await newAgent(service);
    const bidIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { job } = await openJob();
      bidIds.push((await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } })).data.id);
    }
    await agent.client.withdrawBid({ params: { id: agent.id, bidId: bidIds[0]! } });
    const withdrawn = await agent.client.listAgentBids({ params: { id: agent.id }, query: { status: "WITHDRAWN" } });
    expect(withdrawn.data.map((b) => b.id)).toEqual([bidIds[0]]);
    const page1 = await agent.client.listAgentBids({ params: { id: agent.id }, query: { limit: 3 } });
    expect(page1.data).toHaveLength(3);
    const page2 = await agent.client.listAgentBids({ params: { id: agent.id }, query: { limit: 3, cursor: page1.meta.nextCursor! } });
    expect(page2.data).toHaveLength(2);
    expect(page2.meta.nextCursor).toBeNull();
    expect(new Set([...page1.data, ...page2.data].map((b) => b.id))).toEqual(new Set(bidIds));
  });
});
