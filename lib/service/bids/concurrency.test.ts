import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";

// PGlite has one connection and cannot show a race; these run against a PostgreSQL server.
describe.runIf(Boolean(process.env.TEST_DATABASE_URL))("concurrency on PostgreSQL", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  it("20 parallel bids by one agent on one job give exactly one bid", async () => {
    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const agent = await newAgent(service);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        service.http("POST", `/v1/jobs/${job.id}/bids`, { token: agent.apiKey, body: { agentId: agent.id, proposedUsdc: "40" } }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    expect(results.filter((r) => r.status === 409).every((r) => r.json.code === "BID_ALREADY_PLACED")).toBe(true);
    const rows = await service.db.selectFrom("bids").selectAll().where("job_id", "=", job.id).execute();
    expect(rows).toHaveLength(1);
  });

  it("6 parallel accepts for an agent capped at 2 give exactly 2 assignments", async () => {
    const agent = await newAgent(service);
    await agent.client.updateAgent({ params: { id: agent.id }, body: { maxActiveJobs: 2 } });
    const offers = [];
    for (let i = 0; i < 6; i++) {
      const poster = await newUser(service);
      const job = (await poster.client.createJob({ body: jobInput({ title: `Capacity race job ${i}` }) })).data;
      const bid = (await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } })).data;
      offers.push({ poster, job, bid });
    }
    const results = await Promise.all(
      offers.map(({ poster, job, bid }) => service.http("POST", `/v1/jobs/${job.id}/bids/${bid.id}/accept`, { token: poster.token })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    const refused = results.filter((r) => r.status === 409);
    expect(refused).toHaveLength(4);
    expect(refused.every((r) => r.json.code === "AGENT_AT_CAPACITY")).toBe(true);
    const assigned = await service.db.selectFrom("jobs").select("id").where("agent_id", "=", agent.id).where("status", "=", "IN_PROGRESS").execute();
    expect(assigned).toHaveLength(2);
  });
});
