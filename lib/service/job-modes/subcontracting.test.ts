import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
} from "../testing/harness";
import { bountyInput, claim, expireClaim } from "../testing/job-modes-support";

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
});
afterAll(() => service.stop());

const createJob = (token: string, body: unknown) => service.http("POST", "/v1/jobs", { token, body });

/** A bounty that allows subcontracting, posted by `posterToken` and claimed by a fresh agent. */
async function assignedParent(posterToken: string, parentJobId?: string) {
  const res = await createJob(
    posterToken,
    bountyInput({
      allowSubcontracting: true,
      title: "Subcontractable research job",
      ...(parentJobId ? { parentJobId } : {}),
    }),
  );
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  const agent = await newAgent(service);
  expect((await claim(service, agent, res.json.data.id)).status).toBe(200);
  return { job: res.json.data as { id: string; parentJobId: string | null; posterId: string }, agent };
}

describe("POST /v1/jobs with parentJobId", () => {
  it("the parent's assigned agent posts a child job that names its parent", async () => {
    const poster = await newUser(service);
    const { job: parent, agent } = await assignedParent(poster.token);
    const res = await createJob(agent.apiKey, jobInput({ parentJobId: parent.id, title: "Child: verify the emails" }));
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({ parentJobId: parent.id, status: "OPEN", funded: false });
    // The child's poster is the subcontracting agent.
    const me = await agent.client.getMyAgent({});
    expect(res.json.data.poster.displayName).toBe(me.data.name);
  });

  it("refuses a parent that does not allow subcontracting (409), strangers (403), unknown parents (404), submitted parents (409)", async () => {
    const poster = await newUser(service);
    const closed = (await poster.client.createJob({ body: { ...jobInput(), participationMode: "BOUNTY" } })).data;
    const agent = await newAgent(service);
    expect((await claim(service, agent, closed.id)).status).toBe(200);
    const notAllowed = await createJob(agent.apiKey, jobInput({ parentJobId: closed.id }));
    expect(notAllowed.status).toBe(409);
    expect(notAllowed.json.code).toBe("SUBCONTRACTING_NOT_ALLOWED");

    const { job: parent } = await assignedParent(poster.token);
    const stranger = await newAgent(service);
    expect((await createJob(stranger.apiKey, jobInput({ parentJobId: parent.id }))).status).toBe(403);
    // The parent's poster is not its agent either.
    expect((await createJob(poster.token, jobInput({ parentJobId: parent.id }))).status).toBe(403);
    expect(
      (await createJob(stranger.apiKey, jobInput({ parentJobId: "4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a11" }))).status,
    ).toBe(404);
    expect((await createJob(stranger.apiKey, jobInput({ parentJobId: "nope" }))).status).toBe(400);

    // A parent past IN_PROGRESS (here: submitted) takes no new subcontracts.
    const submitted = await assignedParent(poster.token);
    await service.db
      .updateTable("jobs")
      .set({ status: "REVIEW", submitted_at: new Date() })
      .where("id", "=", submitted.job.id)
      .execute();
    const late = await createJob(submitted.agent.apiKey, jobInput({ parentJobId: submitted.job.id }));
    expect(late.status).toBe(409);
    expect(late.json.code).toBe("INVALID_STATE");
  });

  it("an agent whose bounty claim lapsed can no longer subcontract it", async () => {
    const poster = await newUser(service);
    const { job: parent, agent } = await assignedParent(poster.token);
    await expireClaim(service, parent.id);
    const res = await createJob(agent.apiKey, jobInput({ parentJobId: parent.id }));
    expect(res.status).toBe(403);
  });

  it("chains stop at depth 3: a fourth level is 409 SUBCONTRACT_TOO_DEEP", async () => {
    const poster = await newUser(service);
    const chain: Array<{ job: { id: string }; agent: TestAgent }> = [await assignedParent(poster.token)];
    for (let depth = 1; depth <= 3; depth++) {
      const above = chain[depth - 1]!;
      chain.push(await assignedParent(above.agent.apiKey, above.job.id));
    }
    const deepest = chain[3]!;
    const tooDeep = await createJob(deepest.agent.apiKey, jobInput({ parentJobId: deepest.job.id }));
    expect(tooDeep.status).toBe(409);
    expect(tooDeep.json).toMatchObject({ code: "SUBCONTRACT_TOO_DEEP", maxDepth: 3 });
  });
});

describe("GET /v1/jobs/:id/children", () => {
  it("shows the poster and the agent the tree with status and funded; others get 403", async () => {
    const poster = await newUser(service);
    const root = await assignedParent(poster.token);
    const child = await assignedParent(root.agent.apiKey, root.job.id);
    const sibling = (
      await createJob(root.agent.apiKey, jobInput({ parentJobId: root.job.id, title: "Second child job" }))
    ).json.data;
    const grandchild = (
      await createJob(child.agent.apiKey, jobInput({ parentJobId: child.job.id, title: "Grandchild job" }))
    ).json.data;

    const res = await service.http("GET", `/v1/jobs/${root.job.id}/children`, { token: poster.token });
    expect(res.status).toBe(200);
    const tree = res.json.data;
    expect(tree).toMatchObject({
      job: { id: root.job.id, depth: 0, parentJobId: null, status: "IN_PROGRESS" },
      ancestors: [],
      maxDepth: 3,
      truncated: false,
    });
    expect(tree.descendants.map((n: { id: string }) => n.id)).toEqual([child.job.id, sibling.id, grandchild.id]);
    expect(tree.descendants[0]).toMatchObject({
      parentJobId: root.job.id,
      depth: 1,
      status: "IN_PROGRESS",
      funded: false,
      agentId: child.agent.id,
      budgetUsdc: "40",
    });
    expect(tree.descendants[1]).toMatchObject({
      parentJobId: root.job.id,
      depth: 1,
      status: "OPEN",
      funded: false,
      agentId: null,
    });
    expect(tree.descendants[2]).toMatchObject({ parentJobId: child.job.id, depth: 2, status: "OPEN" });

    // The root's agent sees it too.
    expect((await service.http("GET", `/v1/jobs/${root.job.id}/children`, { token: root.agent.apiKey })).status).toBe(
      200,
    );
    // From the child: the chain above, and its own subtree; the root's poster may look.
    const fromChild = await service.http("GET", `/v1/jobs/${child.job.id}/children`, { token: poster.token });
    expect(fromChild.status).toBe(200);
    expect(fromChild.json.data.job).toMatchObject({ id: child.job.id, depth: 1, parentJobId: root.job.id });
    expect(fromChild.json.data.ancestors.map((n: { id: string }) => n.id)).toEqual([root.job.id]);
    expect(fromChild.json.data.descendants.map((n: { id: string }) => n.id)).toEqual([grandchild.id]);
    expect((await service.http("GET", `/v1/jobs/${child.job.id}/children`, { token: child.agent.apiKey })).status).toBe(
      200,
    );

    // The child's agent is nobody on the root; strangers are nobody anywhere.
    expect((await service.http("GET", `/v1/jobs/${root.job.id}/children`, { token: child.agent.apiKey })).status).toBe(
      403,
    );
    const stranger = await newAgent(service);
    expect((await service.http("GET", `/v1/jobs/${root.job.id}/children`, { token: stranger.apiKey })).status).toBe(
      403,
    );
    expect((await service.http("GET", `/v1/jobs/${root.job.id}/children`)).status).toBe(401);
    expect(
      (await service.http("GET", `/v1/jobs/4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a11/children`, { token: poster.token }))
        .status,
    ).toBe(404);
    expect((await service.http("GET", `/v1/jobs/xyz/children`, { token: poster.token })).status).toBe(400);
  });

  it("a job without children answers an empty tree", async () => {
    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const tree = await poster.client.getJobTree({ params: { id: job.id } });
    expect(tree.data).toMatchObject({ job: { id: job.id, depth: 0 }, ancestors: [], descendants: [] });
  });
});
