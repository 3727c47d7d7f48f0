import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENEROUS_BUDGETS, jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import { claimLapseWorker } from "./worker";
import { lapseExpiredClaims } from "../jobs/read-job";
import {
  bountyInput,
  claim,
  claimPath,
  expireClaim,
  openBounty,
  ownerWithTwoAgents,
} from "../testing/job-modes-support";

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
});
afterAll(() => service.stop());

const claimsOf = (jobId: string) =>
  service.db.selectFrom("job_claims").selectAll().where("job_id", "=", jobId).orderBy("created_at").execute();

describe("POST /v1/jobs/:id/claim", () => {
  it("assigns an OPEN bounty to the claiming agent for claimWindowMinutes", async () => {
    const { poster, job } = await openBounty(service, { claimWindowMinutes: 45 });
    expect(job).toMatchObject({
      participationMode: "BOUNTY",
      claimWindowMinutes: 45,
      status: "OPEN",
      claimedAt: null,
      claimExpiresAt: null,
    });
    const agent = await newAgent(service);
    const res = await claim(service, agent, job.id);
    expect(res.status).toBe(200);
    const claimed = res.json.data;
    expect(claimed).toMatchObject({ status: "IN_PROGRESS", agentId: agent.id, agent: { id: agent.id } });
    expect(Date.parse(claimed.claimExpiresAt) - Date.parse(claimed.claimedAt)).toBe(45 * 60_000);
    expect(Math.abs(Date.parse(claimed.claimedAt) - Date.now())).toBeLessThan(60_000);
    // Both sides read the same assignment; it holds one of the agent's places.
    expect((await poster.client.getJob({ params: { id: job.id } })).data).toMatchObject({
      status: "IN_PROGRESS",
      agentId: agent.id,
    });
    expect((await agent.client.getMyAgent({})).data.activeJobs).toBe(1);
    const history = await claimsOf(job.id);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ agent_id: agent.id, ended_at: null, outcome: null });
  });

  it("claimWindowMinutes is 1 to 10080 minutes, 120 when a bounty leaves it out", async () => {
    const poster = await newUser(service);
    for (const bad of [0, 10081, 1.5, -5]) {
      const res = await service.http("POST", "/v1/jobs", {
        token: poster.token,
        body: bountyInput({ claimWindowMinutes: bad }),
      });
      expect(res.status, `claimWindowMinutes ${JSON.stringify(bad)}`).toBe(400);
      expect(res.json.messages.join(" ")).toContain("claimWindowMinutes");
    }
    expect(
      (await poster.client.createJob({ body: bountyInput({ claimWindowMinutes: 1 }) })).data.claimWindowMinutes,
    ).toBe(1);
    const withoutWindow: Record<string, unknown> = bountyInput();
    delete withoutWindow.claimWindowMinutes;
    const created = await service.http("POST", "/v1/jobs", { token: poster.token, body: withoutWindow });
    expect(created.json.data.claimWindowMinutes).toBe(120);
  });

  it("validates the body and the caller: 400, 401, 403 for someone else's agent, 404", async () => {
    const { job } = await openBounty(service);
    const agent = await newAgent(service);
    const other = await newAgent(service);
    const noAgent = await service.http("POST", claimPath(job.id), { token: agent.apiKey, body: {} });
    expect(noAgent.status).toBe(400);
    expect(noAgent.json.message).toContain("agentId should not be empty");
    const extra = await service.http("POST", claimPath(job.id), {
      token: agent.apiKey,
      body: { agentId: agent.id, proposedUsdc: "40" },
    });
    expect(extra.status).toBe(400);
    expect(extra.json.message).toContain("property proposedUsdc should not exist");
    expect((await service.http("POST", claimPath(job.id), { body: { agentId: agent.id } })).status).toBe(401);
    const notMine = await service.http("POST", claimPath(job.id), { token: agent.apiKey, body: { agentId: other.id } });
    expect(notMine.status).toBe(403);
    expect(
      (await service.http("POST", claimPath(job.id), { token: agent.apiKey, body: { agentId: "no-such-agent" } }))
        .status,
    ).toBe(403);
    expect(
      (
        await service.http("POST", claimPath("4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a11"), {
          token: agent.apiKey,
          body: { agentId: agent.id },
        })
      ).status,
    ).toBe(404);
    expect(
      (await service.http("POST", claimPath("not-a-uuid"), { token: agent.apiKey, body: { agentId: agent.id } }))
        .status,
    ).toBe(400);
    // Nothing changed.
    expect((await service.client().getPublicJob({ params: { id: job.id } })).data).toMatchObject({
      status: "OPEN",
      agentId: null,
    });
  });

  it("a second claim is refused with 409 ALREADY_CLAIMED, by another agent or by the holder", async () => {
    const { job } = await openBounty(service);
    const first = await newAgent(service);
    const second = await newAgent(service);
    expect((await claim(service, first, job.id)).status).toBe(200);
    const again = await claim(service, second, job.id);
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ statusCode: 409, code: "ALREADY_CLAIMED" });
    expect(again.json.claimExpiresAt).toEqual(expect.any(String));
    const twice = await claim(service, first, job.id);
    expect(twice.status).toBe(409);
    expect(twice.json.code).toBe("ALREADY_CLAIMED");
    expect((await service.client().getPublicJob({ params: { id: job.id } })).data.agentId).toBe(first.id);
  });

  it("refuses BID jobs (JOB_NOT_CLAIMABLE), the poster's own bounty (OWN_JOB), inactive agents, closed bounties", async () => {
    const poster = await newUser(service);
    const bidJob = (await poster.client.createJob({ body: jobInput() })).data;
    const agent = await newAgent(service);
    const notBounty = await claim(service, agent, bidJob.id);
    expect(notBounty.status).toBe(409);
    expect(notBounty.json.code).toBe("JOB_NOT_CLAIMABLE");

    const agentPoster = await newAgent(service);
    const own = (await agentPoster.client.createJob({ body: { ...jobInput(), participationMode: "BOUNTY" } })).data;
    const ownClaim = await claim(service, agentPoster, own.id);
    expect(ownClaim.status).toBe(409);
    expect(ownClaim.json.code).toBe("OWN_JOB");

    const { job } = await openBounty(service);
    const pending = await newAgent(service, { active: false });
    const inactive = await claim(service, pending, job.id);
    expect(inactive.status).toBe(409);
    expect(inactive.json.code).toBe("AGENT_NOT_ACTIVE");

    const closed = await openBounty(service);
    await closed.poster.client.cancelJob({ params: { id: closed.job.id } });
    const cancelled = await claim(service, agent, closed.job.id);
    expect(cancelled.status).toBe(409);
    expect(cancelled.json.code).toBe("JOB_NOT_OPEN");
  });

  it("bidding on a BOUNTY is 409 JOB_NOT_BIDDABLE", async () => {
    const { job } = await openBounty(service);
    const agent = await newAgent(service);
    const res = await service.http("POST", `/v1/jobs/${job.id}/bids`, {
      token: agent.apiKey,
      body: { agentId: agent.id, proposedUsdc: "40" },
    });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe("JOB_NOT_BIDDABLE");
    expect(res.json.message).toMatch(/claim/);
  });

  it("enforces maxActiveJobs like bid acceptance: AGENT_AT_CAPACITY, and 0 pauses", async () => {
    const agent = await newAgent(service);
    await agent.client.updateAgent({ params: { id: agent.id }, body: { maxActiveJobs: 1 } });
    const a = await openBounty(service);
    const b = await openBounty(service);
    expect((await claim(service, agent, a.job.id)).status).toBe(200);
    const full = await claim(service, agent, b.job.id);
    expect(full.status).toBe(409);
    expect(full.json).toMatchObject({ code: "AGENT_AT_CAPACITY", maxActiveJobs: 1, activeJobs: 1 });

    const paused = await newAgent(service);
    await paused.client.updateAgent({ params: { id: paused.id }, body: { maxActiveJobs: 0 } });
    const res = await claim(service, paused, b.job.id);
    expect(res.status).toBe(409);
    expect(res.json.code).toBe("AGENT_AT_CAPACITY");
    expect((await service.client().getPublicJob({ params: { id: b.job.id } })).data.status).toBe("OPEN");
  });

  it("the owner's session claims for its agent; a sibling agent of the same owner cannot be named by the other's key", async () => {
    const { owner, first, second } = await ownerWithTwoAgents(service);
    const { job } = await openBounty(service);
    const bySibling = await service.http("POST", claimPath(job.id), {
      token: second.apiKey,
      body: { agentId: first.id },
    });
    expect(bySibling.status).toBe(403);
    const res = await service.http("POST", claimPath(job.id), { token: owner.token, body: { agentId: first.id } });
    expect(res.status).toBe(200);
    expect(res.json.data.agentId).toBe(first.id);
  });

  it("a required certification pack gates claims too (403 PACK_REQUIRED)", async () => {
    const { job } = await openBounty(service, { requiredPackId: "5e0c3a52-8a1f-4c4e-9a53-0b6f2d1c7e01" });
    const agent = await newAgent(service);
    const res = await claim(service, agent, job.id);
    expect(res.status).toBe(403);
    expect(res.json.code).toBe("PACK_REQUIRED");
  });
});

describe("claim lapses", () => {
  it("a read past claimExpiresAt sees the job reopened, and the agent's place is free again", async () => {
    const { poster, job } = await openBounty(service);
    const agent = await newAgent(service);
    await agent.client.updateAgent({ params: { id: agent.id }, body: { maxActiveJobs: 1 } });
    expect((await claim(service, agent, job.id)).status).toBe(200);
    await expireClaim(service, job.id);

    const detail = (await poster.client.getJob({ params: { id: job.id } })).data;
    expect(detail).toMatchObject({ status: "OPEN", agentId: null, agent: null, claimedAt: null, claimExpiresAt: null });
    expect((await agent.client.getMyAgent({})).data.activeJobs).toBe(0);
    const history = await claimsOf(job.id);
    expect(history[0]).toMatchObject({ agent_id: agent.id, outcome: "LAPSED" });
    expect(history[0]!.ended_at).not.toBeNull();

    // Anyone may claim it now, the same agent included.
    const other = await newAgent(service);
    expect((await claim(service, other, job.id)).status).toBe(200);
    expect((await claimsOf(job.id)).map((c) => c.outcome)).toEqual(["LAPSED", null]);
  });

  it("the public detail and a claim also see the lapse (the service clock decides)", async () => {
    const { job } = await openBounty(service, { claimWindowMinutes: 5 });
    const first = await newAgent(service);
    const second = await newAgent(service);
    expect((await claim(service, first, job.id)).status).toBe(200);
    const realNow = service.ctx.now;
    service.ctx.now = () => new Date(Date.now() + 6 * 60_000);
    try {
      // The lapse happens inside the claim: no read in between.
      const res = await claim(service, second, job.id);
      expect(res.status).toBe(200);
      expect(res.json.data.agentId).toBe(second.id);
    } finally {
      service.ctx.now = realNow;
    }
    const { job: other } = await openBounty(service, { claimWindowMinutes: 5 });
    expect((await claim(service, first, other.id)).status).toBe(200);
    service.ctx.now = () => new Date(Date.now() + 6 * 60_000);
    try {
      const pub = await service.http("GET", `/v1/jobs/${other.id}/public`);
      expect(pub.json.data).toMatchObject({ status: "OPEN", agentId: null });
    } finally {
      service.ctx.now = realNow;
    }
  });

  it("an agent's own expired claim does not count against its cap when it claims again", async () => {
    const agent = await newAgent(service);
    await agent.client.updateAgent({ params: { id: agent.id }, body: { maxActiveJobs: 1 } });
    const a = await openBounty(service);
    const b = await openBounty(service);
    expect((await claim(service, agent, a.job.id)).status).toBe(200);
    await expireClaim(service, a.job.id);
    expect((await claim(service, agent, b.job.id)).status).toBe(200);
    expect(
      await service.db
        .selectFrom("jobs")
        .select(["status", "agent_id"])
        .where("id", "=", a.job.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ status: "OPEN", agent_id: null });
  });

  it("the worker lapses expired claims and leaves submitted work, BID assignments and live claims alone", async () => {
    const agent = await newAgent(service);
    const expired = await openBounty(service);
    const submitted = await openBounty(service);
    const live = await openBounty(service);
    for (const j of [expired, submitted, live]) expect((await claim(service, agent, j.job.id)).status).toBe(200);
    // A bid assignment has claimedAt but no claim window.
    const bidPoster = await newUser(service);
    const bidJob = (await bidPoster.client.createJob({ body: jobInput() })).data;
    const bid = (
      await agent.client.placeBid({ params: { id: bidJob.id }, body: { agentId: agent.id, proposedUsdc: "40" } })
    ).data;
    await bidPoster.client.acceptBid({ params: { jobId: bidJob.id, bidId: bid.id } });

    await expireClaim(service, expired.job.id);
    await expireClaim(service, submitted.job.id);
    // Submission (the deliverables domain) moves the job to REVIEW and stamps submittedAt.
    await service.db
      .updateTable("jobs")
      .set({
        status: "REVIEW",
        submitted_at: new Date(),
        output_data: JSON.stringify({ url: "https://example.com/leads.csv" }),
      })
      .where("id", "=", submitted.job.id)
      .execute();

    await claimLapseWorker.run(service.ctx);

    const rows = await service.db
      .selectFrom("jobs")
      .select(["id", "status", "agent_id"])
      .where("id", "in", [expired.job.id, submitted.job.id, live.job.id, bidJob.id])
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(expired.job.id)).toMatchObject({ status: "OPEN", agent_id: null });
    expect(byId.get(submitted.job.id)).toMatchObject({ status: "REVIEW", agent_id: agent.id });
    expect(byId.get(live.job.id)).toMatchObject({ status: "IN_PROGRESS", agent_id: agent.id });
    expect(byId.get(bidJob.id)).toMatchObject({ status: "IN_PROGRESS", agent_id: agent.id });
    expect((await claimsOf(submitted.job.id))[0]).toMatchObject({ outcome: "SUBMITTED" });
    expect((await claimsOf(live.job.id))[0]).toMatchObject({ outcome: null, ended_at: null });
    // Nothing left to lapse for these jobs.
    expect(await lapseExpiredClaims(service.ctx, { jobId: expired.job.id })).toEqual([]);
  });

  it("a lapse clears what the previous claimant left: proof-check fields and criterion results", async () => {
    const { poster, job } = await openBounty(service);
    const agent = await newAgent(service);
    expect((await claim(service, agent, job.id)).status).toBe(200);
    await service.db
      .updateTable("jobs")
      .set({ proof_check_status: "LOGIN_REQUIRED", proof_check_reason: "sign-in page", proof_checked_at: new Date() })
      .where("id", "=", job.id)
      .execute();
    expect(
      (await service.http("PUT", `/v1/jobs/${job.id}/criteria/ac-1`, { token: poster.token, body: { ticked: true } }))
        .status,
    ).toBe(200);
    await expireClaim(service, job.id);
    const detail = (await poster.client.getJob({ params: { id: job.id } })).data;
    expect(detail).toMatchObject({
      status: "OPEN",
      proofCheckStatus: null,
      proofCheckReason: null,
      proofCheckedAt: null,
    });
    expect(
      await service.db.selectFrom("job_criteria_results").selectAll().where("job_id", "=", job.id).execute(),
    ).toHaveLength(0);
  });
});

describe("POST /v1/jobs/:id/release-claim", () => {
  it("the claimant gives the bounty back early; strangers may not; twice is 409 NOT_CLAIMED", async () => {
    const { job } = await openBounty(service);
    const agent = await newAgent(service);
    const stranger = await newAgent(service);
    expect((await claim(service, agent, job.id)).status).toBe(200);
    expect((await service.http("POST", `/v1/jobs/${job.id}/release-claim`, { token: stranger.apiKey })).status).toBe(
      403,
    );
    expect((await service.http("POST", `/v1/jobs/${job.id}/release-claim`)).status).toBe(401);
    const res = await service.http("POST", `/v1/jobs/${job.id}/release-claim`, { token: agent.apiKey });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ status: "OPEN", agentId: null, claimedAt: null, claimExpiresAt: null });
    expect((await agent.client.getMyAgent({})).data.activeJobs).toBe(0);
    expect((await claimsOf(job.id))[0]).toMatchObject({ outcome: "RELEASED" });
    const twice = await service.http("POST", `/v1/jobs/${job.id}/release-claim`, { token: agent.apiKey });
    expect(twice.status).toBe(409);
    expect(twice.json.code).toBe("NOT_CLAIMED");
    // Reopened: another agent can claim it.
    expect((await claim(service, stranger, job.id)).status).toBe(200);
  });

  it("is for bounties only, and not once the work is submitted", async () => {
    const poster = await newUser(service);
    const agent = await newAgent(service);
    const bidJob = (await poster.client.createJob({ body: jobInput() })).data;
    const bid = (
      await agent.client.placeBid({ params: { id: bidJob.id }, body: { agentId: agent.id, proposedUsdc: "40" } })
    ).data;
    await poster.client.acceptBid({ params: { jobId: bidJob.id, bidId: bid.id } });
    const notBounty = await service.http("POST", `/v1/jobs/${bidJob.id}/release-claim`, { token: agent.apiKey });
    expect(notBounty.status).toBe(409);
    expect(notBounty.json.code).toBe("JOB_NOT_CLAIMABLE");

    const { job } = await openBounty(service);
    expect((await claim(service, agent, job.id)).status).toBe(200);
    await service.db
      .updateTable("jobs")
      .set({ status: "REVIEW", submitted_at: new Date() })
      .where("id", "=", job.id)
      .execute();
    const submitted = await service.http("POST", `/v1/jobs/${job.id}/release-claim`, { token: agent.apiKey });
    expect(submitted.status).toBe(409);
    expect(submitted.json.code).toBe("NOT_CLAIMED");
  });
});

describe("contract", () => {
  it("/v1/openapi.json lists the job-mode routes with their error codes", async () => {
    const doc = (await service.http("GET", "/v1/openapi.json")).json;
    const paths = [
      ["post", "/v1/jobs/{id}/claim"],
      ["post", "/v1/jobs/{id}/release-claim"],
      ["get", "/v1/jobs/{id}/children"],
      ["post", "/v1/jobs/{id}/share"],
      ["get", "/v1/jobs/{id}/share-card"],
      ["get", "/v1/jobs/{id}/criteria"],
      ["post", "/v1/jobs/{id}/criteria/evaluate"],
      ["put", "/v1/jobs/{id}/criteria/{criterionId}"],
      ["post", "/v1/jobs/{id}/criteria/{criterionId}/override"],
    ] as const;
    for (const [method, path] of paths) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    expect(doc.paths["/v1/jobs/{id}/claim"].post.responses["409"].description).toMatch(/ALREADY_CLAIMED/);
    expect(doc.paths["/v1/jobs/{id}/share"].post.responses["404"].description).toMatch(/JOB_NOT_SHAREABLE/);
  });
});
