import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "@/lib/api/routes";
import { GENEROUS_BUDGETS, jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import { claim, expireClaim, openBounty, ownerWithTwoAgents } from "../testing/job-modes-support";

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
});
afterAll(() => service.stop());

/** An agent (owned by a human, with a sibling) holding: a claimed bounty, a won bid, a finished job; plus a bid it did not win. */
async function agentWithWork() {
  const { owner, first: agent, second: sibling } = await ownerWithTwoAgents(service);
  const bounty = await openBounty(service);
  expect((await claim(service, agent, bounty.job.id)).status).toBe(200);

  const poster = await newUser(service);
  const won = (await poster.client.createJob({ body: jobInput({ title: "Won by bid" }) })).data;
  const bid = (await agent.client.placeBid({ params: { id: won.id }, body: { agentId: agent.id, proposedUsdc: "40" } }))
    .data;
  await poster.client.acceptBid({ params: { jobId: won.id, bidId: bid.id } });

  const past = await openBounty(service, { title: "Finished bounty" });
  expect((await claim(service, agent, past.job.id)).status).toBe(200);
  await service.db
    .updateTable("jobs")
    .set({ status: "COMPLETED", submitted_at: new Date(), completed_at: new Date() })
    .where("id", "=", past.job.id)
    .execute();

  // A bid that is still pending is the bid inbox, not assigned work.
  const pending = (await poster.client.createJob({ body: jobInput({ title: "Only bid on" }) })).data;
  await agent.client.placeBid({ params: { id: pending.id }, body: { agentId: agent.id, proposedUsdc: "40" } });

  return {
    owner,
    agent,
    sibling,
    assigned: [bounty.job.id, won.id, past.job.id],
    pendingBidJob: pending.id,
    pastId: past.job.id,
  };
}

describe("GET /v1/agents/:id/jobs", () => {
  it("lists the agent's active and past assignments, newest first, not its pending bids", async () => {
    const { agent, assigned, pendingBidJob } = await agentWithWork();
    const res = await service.http("GET", `/v1/agents/${agent.id}/jobs`, { token: agent.apiKey });
    expect(res.status).toBe(200);
    const ids = res.json.data.map((j: { id: string }) => j.id);
    expect(ids).toEqual([...assigned].reverse());
    expect(ids).not.toContain(pendingBidJob);
    expect(res.json.data.every((j: { agentId: string }) => j.agentId === agent.id)).toBe(true);
    expect(res.json.meta).toMatchObject({ hasMore: false, nextCursor: null, limit: 20 });
  });

  it("filters by status", async () => {
    const { agent, pastId } = await agentWithWork();
    const active = await agent.client.listAgentJobs({ params: { id: agent.id }, query: { status: "IN_PROGRESS" } });
    expect(active.data).toHaveLength(2);
    expect(active.data.every((j) => j.status === "IN_PROGRESS")).toBe(true);
    const done = await agent.client.listAgentJobs({ params: { id: agent.id }, query: { status: "COMPLETED" } });
    expect(done.data.map((j) => j.id)).toEqual([pastId]);
    expect(
      (await agent.client.listAgentJobs({ params: { id: agent.id }, query: { status: "CANCELLED" } })).data,
    ).toHaveLength(0);
    expect((await service.http("GET", `/v1/agents/${agent.id}/jobs?status=DONE`, { token: agent.apiKey })).status).toBe(
      400,
    );
  });

  it("follows cursors without duplicates and refuses malformed ones", async () => {
    const { agent, assigned } = await agentWithWork();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await agent.client.listAgentJobs({
        params: { id: agent.id },
        query: { limit: 1, ...(cursor ? { cursor } : {}) },
      });
      pages += 1;
      seen.push(...page.data.map((j) => j.id));
      cursor = page.meta.nextCursor ?? undefined;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...assigned].reverse());
    const all: string[] = [];
    for await (const job of agent.client.paginate(routes.listAgentJobs, {
      params: { id: agent.id },
      query: { limit: 2 },
    }))
      all.push(job.id);
    expect(new Set(all).size).toBe(3);
    expect(
      (await service.http("GET", `/v1/agents/${agent.id}/jobs?cursor=garbage`, { token: agent.apiKey })).status,
    ).toBe(400);
    expect((await service.http("GET", `/v1/agents/${agent.id}/jobs?limit=0`, { token: agent.apiKey })).status).toBe(
      400,
    );
  });

  it("is for the agent's own key and its owner: a sibling agent of the same owner, other agents and other humans get 403", async () => {
    const { owner, agent, sibling } = await agentWithWork();
    const byOwner = await service.http("GET", `/v1/agents/${agent.id}/jobs`, { token: owner.token });
    expect(byOwner.status).toBe(200);
    expect(byOwner.json.data).toHaveLength(3);
    const bySibling = await service.http("GET", `/v1/agents/${agent.id}/jobs`, { token: sibling.apiKey });
    expect(bySibling.status).toBe(403);
    const other = await newAgent(service);
    expect((await service.http("GET", `/v1/agents/${agent.id}/jobs`, { token: other.apiKey })).status).toBe(403);
    const human = await newUser(service);
    expect((await service.http("GET", `/v1/agents/${agent.id}/jobs`, { token: human.token })).status).toBe(403);
    expect((await service.http("GET", `/v1/agents/${agent.id}/jobs`)).status).toBe(401);
    expect((await service.http("GET", `/v1/agents/no-such-agent/jobs`, { token: owner.token })).status).toBe(404);
  });

  it("a lapsed or released claim is no longer the agent's work", async () => {
    const agent = await newAgent(service);
    const { job } = await openBounty(service);
    expect((await claim(service, agent, job.id)).status).toBe(200);
    expect((await agent.client.listAgentJobs({ params: { id: agent.id } })).data.map((j) => j.id)).toEqual([job.id]);
    await service.http("POST", `/v1/jobs/${job.id}/release-claim`, { token: agent.apiKey });
    expect((await agent.client.listAgentJobs({ params: { id: agent.id } })).data).toHaveLength(0);
  });

  it("a claim whose window ran out is lapsed when the agent is read, without waiting for the worker", async () => {
    const agent = await newAgent(service);
    const bounties = [await openBounty(service), await openBounty(service), await openBounty(service)];
    for (const { job } of bounties) expect((await claim(service, agent, job.id)).status).toBe(200);
    expect((await service.http("GET", "/v1/agents/me", { token: agent.apiKey })).json.data.activeJobs).toBe(3);

    await expireClaim(service, bounties[0]!.job.id);
    expect((await service.http("GET", "/v1/agents/me", { token: agent.apiKey })).json.data.activeJobs).toBe(2);
    await expireClaim(service, bounties[1]!.job.id);
    expect((await service.http("GET", `/v1/agents/${agent.id}`)).json.data.activeJobs).toBe(1);
    await expireClaim(service, bounties[2]!.job.id);
    expect((await agent.client.listAgentJobs({ params: { id: agent.id } })).data).toHaveLength(0);
    const reopened = await service.http("GET", `/v1/jobs/${bounties[2]!.job.id}/public`);
    expect(reopened.json.data).toMatchObject({ status: "OPEN", agent: null });
  });
});
