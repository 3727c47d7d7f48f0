import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";

type Res = Awaited<ReturnType<TestService["http"]>>;
const countBy = (results: Res[]) =>
  results.reduce<Record<string, number>>((acc, r) => {
    const key = r.status === 409 ? `409 ${r.json.code}` : String(r.status);
    acc[key] = (acc[key] ?? 0) + 1;
    return acc;
  }, {});

// PGlite has one connection and cannot show a race; these run against a PostgreSQL server
// (TEST_DATABASE_URL), where the requests really run in parallel on separate connections.
describe.runIf(Boolean(process.env.TEST_DATABASE_URL))("concurrency on PostgreSQL", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  it("20 parallel bids by one agent on one job: one 201, nineteen 409 BID_ALREADY_PLACED, one row", async () => {
    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const agent = await newAgent(service);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        service.http("POST", `/v1/jobs/${job.id}/bids`, {
          token: agent.apiKey,
          body: { agentId: agent.id, proposedUsdc: String(40 - i) },
        }),
      ),
    );
    expect(countBy(results)).toEqual({ "201": 1, "409 BID_ALREADY_PLACED": 19 });
    for (const r of results.filter((x) => x.status === 409))
      expect(r.json).toMatchObject({ statusCode: 409, error: "Conflict", code: "BID_ALREADY_PLACED" });
    const winner = results.find((r) => r.status === 201)!.json.data;
    const rows = await service.db.selectFrom("bids").selectAll().where("job_id", "=", job.id).execute();
    expect(rows.map((r) => [r.id, r.agent_id, r.status])).toEqual([[winner.id, agent.id, "PENDING"]]);
  });

  it("6 parallel accepts for an agent capped at maxActiveJobs 2: exactly 2 assignments and 4 × 409 AGENT_AT_CAPACITY", async () => {
    const agent = await newAgent(service);
    await agent.client.updateAgent({ params: { id: agent.id }, body: { maxActiveJobs: 2 } });
    const offers = [];
    for (let i = 0; i < 6; i++) {
      const poster = await newUser(service);
      const job = (await poster.client.createJob({ body: jobInput({ title: `Capacity race job ${i}` }) })).data;
      const bid = (
        await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } })
      ).data;
      offers.push({ poster, job, bid });
    }
    const results = await Promise.all(
      offers.map(({ poster, job, bid }) =>
        service.http("POST", `/v1/jobs/${job.id}/bids/${bid.id}/accept`, { token: poster.token }),
      ),
    );
    expect(countBy(results)).toEqual({ "200": 2, "409 AGENT_AT_CAPACITY": 4 });
    for (const r of results.filter((x) => x.status === 409))
      expect(r.json).toMatchObject({ statusCode: 409, error: "Conflict", code: "AGENT_AT_CAPACITY" });

    const jobs = await service.db
      .selectFrom("jobs")
      .select(["id", "status", "agent_id"])
      .where(
        "id",
        "in",
        offers.map((o) => o.job.id),
      )
      .execute();
    expect(jobs.filter((j) => j.status === "IN_PROGRESS" && j.agent_id === agent.id)).toHaveLength(2);
    expect(jobs.filter((j) => j.status === "OPEN" && j.agent_id === null)).toHaveLength(4);
    const bids = await service.db.selectFrom("bids").select("status").where("agent_id", "=", agent.id).execute();
    expect(bids.map((b) => b.status).sort()).toEqual([
      "ACCEPTED",
      "ACCEPTED",
      "PENDING",
      "PENDING",
      "PENDING",
      "PENDING",
    ]);
    expect((await agent.client.getMyAgent({})).data.activeJobs).toBe(2);
  });

  it("5 parallel accepts of different bids on one job assign it once", async () => {
    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const bids = [];
    for (let i = 0; i < 5; i++) {
      const agent = await newAgent(service);
      bids.push(
        (await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } })).data,
      );
    }
    const results = await Promise.all(
      bids.map((bid) => service.http("POST", `/v1/jobs/${job.id}/bids/${bid.id}/accept`, { token: poster.token })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(
      results.filter((r) => r.status === 409).every((r) => ["JOB_NOT_OPEN", "BID_NOT_PENDING"].includes(r.json.code)),
    ).toBe(true);
    expect(results.filter((r) => r.status === 409)).toHaveLength(4);
    const rows = await service.db.selectFrom("bids").select("status").where("job_id", "=", job.id).execute();
    expect(rows.map((r) => r.status).sort()).toEqual(["ACCEPTED", "REJECTED", "REJECTED", "REJECTED", "REJECTED"]);
  });
});
