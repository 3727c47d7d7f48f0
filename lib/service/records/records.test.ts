import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import { ageReviews, assignedJob, expectApiError, jobWithBid, settle } from "../testing/records-support";
import { claimedAgent } from "../testing/evals-support";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

describe("track records count only money released on chain", () => {
  it("a released job counts for agent and poster; an approved job whose release is pending, a refund and an unfunded job count for nothing", async () => {
    const poster = await newUser(service);
    const agent = await newAgent(service);
    const released = await assignedJob(service, { poster, agent });
    const now = Date.now();
    await settle(service, released.jobId, "RELEASED", {
      submittedAt: new Date(now - 10 * 3600_000),
      approvedAt: new Date(now - 6 * 3600_000),
      deadlineAt: new Date(now - 5 * 3600_000),
      netUnits: 38_000_000n,
      feeUnits: 2_000_000n,
    });
    const pending = await assignedJob(service, { poster, agent });
    await settle(service, pending.jobId, "RELEASE_PENDING");
    const refunded = await assignedJob(service, { poster, agent });
    await settle(service, refunded.jobId, "REFUNDED", { disputed: true });
    await assignedJob(service, { poster, agent }); // assigned, never funded

    const { data } = await service.client().getRecords({ query: { agentIds: agent.id, posterIds: poster.id } });
    const a = data.agents[0]!;
    expect(a).toMatchObject({
      agentId: agent.id,
      completedJobs: 1,
      earnedUsdc: "38",
      jobsWithDeadline: 1,
      onTimeJobs: 1,
      onTimeRate: 1,
    });
    // Three jobs reached a delivery; one was disputed and ended refunded.
    expect(a).toMatchObject({
      deliveredJobs: 3,
      disputedJobs: 1,
      disputeOutcomes: { released: 0, refunded: 1, split: 0, open: 0 },
    });
    const p = data.posters[0]!;
    expect(p).toMatchObject({ posterId: poster.id, completedJobs: 1, paidUsdc: "40", medianHoursToApprove: 4 });

    // The profile pages read the same record.
    const profile = await service.client().getAgentProfile({ params: { id: agent.id } });
    expect(profile.data.record).toEqual(a);
    const userProfile = await service.client().getUserProfile({ params: { id: poster.id } });
    expect(userProfile.data.asPoster).toEqual(p);
  });

  it("each outcome of a dispute is told as it ended: released, refunded, split, or still open", async () => {
    const poster = await newUser(service);
    const agent = await newAgent(service);
    await settle(service, (await assignedJob(service, { poster, agent })).jobId, "RELEASED", { disputed: true });
    await settle(service, (await assignedJob(service, { poster, agent })).jobId, "REFUNDED", { disputed: true });
    await settle(service, (await assignedJob(service, { poster, agent })).jobId, "SPLIT", { disputed: true });
    await settle(service, (await assignedJob(service, { poster, agent })).jobId, "RELEASE_PENDING", { disputed: true });
    const { data } = await service.client().getRecords({ query: { agentIds: agent.id, posterIds: poster.id } });
    const outcomes = { released: 1, refunded: 1, split: 1, open: 1 };
    expect(data.agents[0]).toMatchObject({ deliveredJobs: 4, disputedJobs: 4, disputeOutcomes: outcomes });
    expect(data.posters[0]).toMatchObject({ deliveredJobs: 4, disputedJobs: 4, disputeOutcomes: outcomes });
    // A split is not a completed job for the record: only a whole release is.
    expect(data.agents[0]).toMatchObject({ completedJobs: 1 });
    const profile = await service.client().getUserProfile({ params: { id: poster.id } });
    expect(profile.data.asPoster?.disputeOutcomes).toEqual(outcomes);
  });

  it("a late submission is not on time; a release recorded without a confirmed settlement does not count", async () => {
    const agent = await newAgent(service);
    const late = await assignedJob(service, { agent });
    const now = Date.now();
    await settle(service, late.jobId, "RELEASED", {
      submittedAt: new Date(now - 2 * 3600_000),
      deadlineAt: new Date(now - 3 * 3600_000),
    });
    const forged = await assignedJob(service, { agent });
    await settle(service, forged.jobId, "RELEASE_PENDING");
    // A job row claiming a release transaction whose settlement never confirmed earns nothing.
    await service.db
      .updateTable("jobs")
      .set({ release_tx_hash: `0x${"ab".repeat(32)}`, status: "COMPLETED" })
      .where("id", "=", forged.jobId)
      .execute();
    const { data } = await service.client().getRecords({ query: { agentIds: agent.id } });
    expect(data.agents[0]).toMatchObject({
      completedJobs: 1,
      earnedUsdc: "38",
      jobsWithDeadline: 1,
      onTimeJobs: 0,
      onTimeRate: 0,
    });
  });

  it("a job between one person's own accounts counts for neither side, deliveries and disputes included", async () => {
    const { agent, owner } = await claimedAgent(service);
    // The owner posts for its own agent: released, and a second one disputed and refunded.
    await settle(service, (await assignedJob(service, { poster: owner, agent })).jobId, "RELEASED");
    await settle(service, (await assignedJob(service, { poster: owner, agent })).jobId, "REFUNDED", { disputed: true });
    // One job for a stranger counts as usual.
    const poster = await newUser(service);
    await settle(service, (await assignedJob(service, { poster, agent })).jobId, "RELEASED");
    const { data } = await service
      .client()
      .getRecords({ query: { agentIds: agent.id, posterIds: `${owner.id},${poster.id}` } });
    expect(data.agents[0]).toMatchObject({ completedJobs: 1, earnedUsdc: "38", deliveredJobs: 1, disputedJobs: 0 });
    expect(data.posters[0]).toMatchObject({
      posterId: owner.id,
      completedJobs: 0,
      paidUsdc: "0",
      deliveredJobs: 0,
      disputedJobs: 0,
    });
    expect(data.posters[1]).toMatchObject({ posterId: poster.id, completedJobs: 1, paidUsdc: "40" });
  });

  it("unknown ids get empty records; the batch is bounded", async () => {
    const { data } = await service.client().getRecords({ query: { agentIds: "agt_nobody" } });
    expect(data.agents[0]).toMatchObject({
      agentId: "agt_nobody",
      completedJobs: 0,
      earnedUsdc: "0",
      onTimeRate: null,
      averageRating: null,
      ratingCount: 0,
    });
    const tooMany = Array.from({ length: 101 }, (_, i) => `agt_${i}`).join(",");
    expect((await service.http("GET", `/v1/records?agentIds=${tooMany}`)).status).toBe(400);
  });
});

describe("reviews", () => {
  it("no rating without a released escrow: 409 REVIEW_NOT_SETTLED (assigned, release pending, refunded)", async () => {
    const assigned = await assignedJob(service);
    await expectApiError(
      assigned.poster.client.createReview({ params: { id: assigned.jobId }, body: { rating: 5 } }),
      409,
      "REVIEW_NOT_SETTLED",
    );
    const pending = await assignedJob(service);
    await settle(service, pending.jobId, "RELEASE_PENDING");
    await expectApiError(
      pending.agent.client.createReview({ params: { id: pending.jobId }, body: { rating: 5 } }),
      409,
      "REVIEW_NOT_SETTLED",
    );
    const refunded = await assignedJob(service);
    await settle(service, refunded.jobId, "REFUNDED");
    await expectApiError(
      refunded.poster.client.createReview({ params: { id: refunded.jobId }, body: { rating: 1 } }),
      409,
      "REVIEW_NOT_SETTLED",
    );
  });

  it("only the parties review: a losing bidder and a stranger get 403 NOT_JOB_PARTY", async () => {
    const done = await jobWithBid(service);
    const loser = await newAgent(service);
    await loser.client.placeBid({ params: { id: done.jobId }, body: { agentId: loser.id, proposedUsdc: "40" } });
    await done.poster.client.acceptBid({ params: { jobId: done.jobId, bidId: done.bidId } });
    await settle(service, done.jobId, "RELEASED");
    const stranger = await newUser(service);
    await expectApiError(
      stranger.client.createReview({ params: { id: done.jobId }, body: { rating: 5 } }),
      403,
      "NOT_JOB_PARTY",
    );
    await expectApiError(
      loser.client.createReview({ params: { id: done.jobId }, body: { rating: 5 } }),
      403,
      "NOT_JOB_PARTY",
    );
    const res = await service.http("POST", `/v1/jobs/${done.jobId}/reviews`, { body: { rating: 5 } });
    expect(res.status).toBe(401);
  });

  it("one review per side per job: the second answers 409 REVIEW_ALREADY_WRITTEN, also when raced", async () => {
    const done = await assignedJob(service);
    await settle(service, done.jobId, "RELEASED");
    const results = await Promise.allSettled([
      done.poster.client.createReview({ params: { id: done.jobId }, body: { rating: 4, body: "Good work." } }),
      done.poster.client.createReview({ params: { id: done.jobId }, body: { rating: 1, body: "Changed my mind." } }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    await expectApiError(
      done.poster.client.createReview({ params: { id: done.jobId }, body: { rating: 2 } }),
      409,
      "REVIEW_ALREADY_WRITTEN",
    );
    const rows = await service.db.selectFrom("job_reviews").select("id").where("job_id", "=", done.jobId).execute();
    expect(rows).toHaveLength(1);
  });

  it("ratings are 1 to 5 and bodies bounded", async () => {
    const done = await assignedJob(service);
    await settle(service, done.jobId, "RELEASED");
    for (const rating of [0, 6, 3.5]) {
      expect(
        (await service.http("POST", `/v1/jobs/${done.jobId}/reviews`, { token: done.poster.token, body: { rating } }))
          .status,
      ).toBe(400);
    }
    expect(
      (
        await service.http("POST", `/v1/jobs/${done.jobId}/reviews`, {
          token: done.poster.token,
          body: { rating: 3, body: "x".repeat(2001) },
        })
      ).status,
    ).toBe(400);
  });

  it("a review is hidden until the other side writes, then both are public and count in the records", async () => {
    const done = await assignedJob(service);
    await settle(service, done.jobId, "RELEASED");
    const mine = await done.poster.client.createReview({
      params: { id: done.jobId },
      body: { rating: 4, body: "Clear and on time." },
    });
    expect(mine.data).toMatchObject({ authorSide: "POSTER", subject: { kind: "AGENT", id: done.agent.id }, rating: 4 });

    // Not public yet: not on the job, not on the profile, not in the rating; the author sees its own.
    const anonymous = await service.client().listJobReviews({ params: { id: done.jobId } });
    expect(anonymous.data).toEqual([]);
    const asAgent = await done.agent.client.listJobReviews({ params: { id: done.jobId } });
    expect(asAgent.viewer).toMatchObject({ side: "AGENT", mine: null, otherSideWritten: true, canWrite: true });
    expect(asAgent.data).toEqual([]);
    expect((await service.client().getAgentProfile({ params: { id: done.agent.id } })).data.reviews).toEqual([]);
    expect((await service.client().getRecords({ query: { agentIds: done.agent.id } })).data.agents[0]).toMatchObject({
      averageRating: null,
      ratingCount: 0,
    });
    expect((await done.poster.client.listJobReviews({ params: { id: done.jobId } })).viewer.mine?.id).toBe(
      mine.data.id,
    );

    await done.agent.client.createReview({ params: { id: done.jobId }, body: { rating: 5, body: "Paid promptly." } });
    const both = await service.client().listJobReviews({ params: { id: done.jobId } });
    expect(both.data.map((r) => r.rating).sort()).toEqual([4, 5]);
    const agentProfile = await service.client().getAgentProfile({ params: { id: done.agent.id } });
    expect(agentProfile.data.reviews.map((r) => r.body)).toEqual(["Clear and on time."]);
    expect(agentProfile.data.record).toMatchObject({ averageRating: 4, ratingCount: 1 });
    const posterProfile = await service.client().getUserProfile({ params: { id: done.poster.id } });
    expect(posterProfile.data.reviews.map((r) => r.rating)).toEqual([5]);
    expect(posterProfile.data.asPoster).toMatchObject({ averageRating: 5, ratingCount: 1 });
  });

  it("a lone review becomes public 14 days after it was written", async () => {
    const done = await assignedJob(service);
    await settle(service, done.jobId, "RELEASED");
    await done.agent.client.createReview({ params: { id: done.jobId }, body: { rating: 2, body: "Slow to approve." } });
    await ageReviews(service, done.jobId, 13);
    expect((await service.client().listJobReviews({ params: { id: done.jobId } })).data).toEqual([]);
    await ageReviews(service, done.jobId, 1);
    const after = await service.client().listJobReviews({ params: { id: done.jobId } });
    expect(after.data.map((r) => r.body)).toEqual(["Slow to approve."]);
    expect((await service.client().getUserProfile({ params: { id: done.poster.id } })).data.asPoster).toMatchObject({
      averageRating: 2,
      ratingCount: 1,
    });
  });

  it("the owner of the assigned agent writes the agent's side from the dashboard (its session)", async () => {
    const { agent, owner } = await claimedAgent(service);
    const done = await assignedJob(service, { agent });
    await settle(service, done.jobId, "RELEASED");
    const review = await owner.client.createReview({ params: { id: done.jobId }, body: { rating: 5 } });
    expect(review.data).toMatchObject({ authorSide: "AGENT", author: { kind: "AGENT", id: agent.id } });
    await expectApiError(
      agent.client.createReview({ params: { id: done.jobId }, body: { rating: 3 } }),
      409,
      "REVIEW_ALREADY_WRITTEN",
    );
  });

  it("no self-rating: a person posting for their own agent reviews neither side (403 NOT_JOB_PARTY)", async () => {
    const { agent, owner } = await claimedAgent(service);
    const done = await assignedJob(service, { poster: owner, agent });
    await settle(service, done.jobId, "RELEASED");
    await expectApiError(
      owner.client.createReview({ params: { id: done.jobId }, body: { rating: 5 } }),
      403,
      "NOT_JOB_PARTY",
    );
    await expectApiError(
      agent.client.createReview({ params: { id: done.jobId }, body: { rating: 5 } }),
      403,
      "NOT_JOB_PARTY",
    );
  });

  it("a pending bidder's job has no reviews to write", async () => {
    const open = await jobWithBid(service);
    const res = await open.agent.client.listJobReviews({ params: { id: open.jobId } });
    expect(res.viewer).toMatchObject({ side: null, canWrite: false });
  });
});
