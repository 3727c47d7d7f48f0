import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENEROUS_BUDGETS, jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import { lapseExpiredClaims } from "../jobs/read-job";
import { claim, expireClaim, openBounty } from "../testing/job-modes-support";

// PGlite has one connection and cannot show a race; these run against a PostgreSQL server.
describe.runIf(Boolean(process.env.TEST_DATABASE_URL))("bounty claims on PostgreSQL", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
  });
  afterAll(() => service.stop());

  it("10 ACTIVE agents claiming one bounty at once: exactly one 200 and nine 409", async () => {
    const { job } = await openBounty(service);
    const agents = await Promise.all(Array.from({ length: 10 }, () => newAgent(service)));
    const results = await Promise.all(agents.map((agent) => claim(service, agent, job.id)));
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    const refused = results.filter((r) => r.status === 409);
    expect(refused).toHaveLength(9);
    expect(refused.every((r) => r.json.code === "ALREADY_CLAIMED")).toBe(true);
    const row = await service.db
      .selectFrom("jobs")
      .select(["status", "agent_id"])
      .where("id", "=", job.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: "IN_PROGRESS", agent_id: winners[0]!.json.data.agentId });
    expect(await service.db.selectFrom("job_claims").selectAll().where("job_id", "=", job.id).execute()).toHaveLength(
      1,
    );
  });

  it("an agent capped at 1 claiming 3 bounties at once gets exactly one", async () => {
    const agent = await newAgent(service);
    await agent.client.updateAgent({ params: { id: agent.id }, body: { maxActiveJobs: 1 } });
    const bounties = await Promise.all([openBounty(service), openBounty(service), openBounty(service)]);
    const results = await Promise.all(bounties.map(({ job }) => claim(service, agent, job.id)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = results.filter((r) => r.status === 409);
    expect(refused).toHaveLength(2);
    expect(refused.every((r) => r.json.code === "AGENT_AT_CAPACITY")).toBe(true);
    const held = await service.db
      .selectFrom("jobs")
      .select("id")
      .where("agent_id", "=", agent.id)
      .where("status", "=", "IN_PROGRESS")
      .execute();
    expect(held).toHaveLength(1);
  });

  it("claims racing with bid acceptances for a capped agent never overshoot the cap", async () => {
    const agent = await newAgent(service);
    await agent.client.updateAgent({ params: { id: agent.id }, body: { maxActiveJobs: 2 } });
    const bounties = await Promise.all(Array.from({ length: 3 }, () => openBounty(service)));
    const offers = [];
    for (let i = 0; i < 3; i++) {
      const poster = await newUser(service);
      const job = (await poster.client.createJob({ body: jobInput({ title: `Capacity race bid job ${i}` }) })).data;
      const bid = (
        await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } })
      ).data;
      offers.push({ poster, job, bid });
    }
    const results = await Promise.all([
      ...bounties.map(({ job }) => claim(service, agent, job.id)),
      ...offers.map(({ poster, job, bid }) =>
        service.http("POST", `/v1/jobs/${job.id}/bids/${bid.id}/accept`, { token: poster.token }),
      ),
    ]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    const refused = results.filter((r) => r.status === 409);
    expect(refused).toHaveLength(4);
    expect(refused.every((r) => r.json.code === "AGENT_AT_CAPACITY")).toBe(true);
    const held = await service.db
      .selectFrom("jobs")
      .select("id")
      .where("agent_id", "=", agent.id)
      .where("status", "=", "IN_PROGRESS")
      .execute();
    expect(held).toHaveLength(2);
  });

  it("two lapse workers at once lapse each of 30 expired claims exactly once", async () => {
    const agent = await newAgent(service);
    const bounties = await Promise.all(Array.from({ length: 30 }, () => openBounty(service)));
    for (const { job } of bounties) expect((await claim(service, agent, job.id)).status).toBe(200);
    for (const { job } of bounties) await expireClaim(service, job.id);
    const ids = new Set(bounties.map((b) => b.job.id));
    const worker = async () => {
      const mine: string[] = [];
      for (;;) {
        const lapsed = await lapseExpiredClaims(service.ctx, { agentId: agent.id, limit: 4 });
        if (lapsed.length === 0) return mine;
        mine.push(...lapsed);
      }
    };
    const [a, b] = await Promise.all([worker(), worker()]);
    expect(a.length + b.length).toBe(30);
    expect(new Set([...a, ...b])).toEqual(ids);
    const history = await service.db
      .selectFrom("job_claims")
      .select(["outcome"])
      .where("agent_id", "=", agent.id)
      .execute();
    expect(history.filter((h) => h.outcome === "LAPSED")).toHaveLength(30);
  });

  it("a claim racing the lapse of the previous claim gets the job exactly once", async () => {
    const { job } = await openBounty(service);
    const first = await newAgent(service);
    expect((await claim(service, first, job.id)).status).toBe(200);
    await expireClaim(service, job.id);
    const agents = await Promise.all(Array.from({ length: 6 }, () => newAgent(service)));
    const results = await Promise.all([
      ...agents.map((agent) => claim(service, agent, job.id)),
      lapseExpiredClaims(service.ctx, { jobId: job.id }).then(() => ({ status: 0, json: null })),
    ]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(5);
    const claims = await service.db
      .selectFrom("job_claims")
      .select(["outcome", "ended_at"])
      .where("job_id", "=", job.id)
      .execute();
    expect(claims.filter((c) => c.ended_at === null)).toHaveLength(1);
    expect(claims.filter((c) => c.outcome === "LAPSED")).toHaveLength(1);
  });
});
