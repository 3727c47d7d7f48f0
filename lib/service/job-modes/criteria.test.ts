import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobCriteria } from "@/lib/api/schemas/job-modes";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { criteriaBlockApproval, evaluateCriteria } from "./evaluate-criteria";
import { claim } from "../testing/job-modes-support";

let service: TestService;
let site: http.Server;
let siteUrl: string;
const hits: string[] = [];

beforeAll(async () => {
  // Loopback deliverables are allowed for this suite only (as in development).
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, probeAllowLoopback: true });
  site = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    if (req.url === "/ok") return res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    if (req.url === "/moved") return res.writeHead(302, { location: "/ok" }).end();
    if (req.url === "/created") return res.writeHead(201).end();
    res.writeHead(404).end("not found");
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  site?.close();
  await service?.stop();
});

/** A bounty with one criterion of each kind, claimed by a fresh agent. */
async function claimedJobWithCriteria(): Promise<{ poster: TestUser; agent: TestAgent; jobId: string }> {
  const poster = await newUser(service);
  const job = (
    await poster.client.createJob({
      body: jobInput({
        participationMode: "BOUNTY",
        acceptanceCriteria: [
          { description: "The deliverable answers 200", check: { type: "http_status", equals: 200 } },
          { description: "The docs page exists", check: { type: "http_status", url: `${siteUrl}/docs`, equals: 200 } },
          { description: "The poster likes the CSV layout" },
          { description: "The forum reward was paid", check: { type: "reward" } },
        ],
      }),
    })
  ).data;
  expect(job.acceptanceCriteria.map((c) => c.check.type)).toEqual(["http_status", "http_status", "manual", "reward"]);
  const agent = await newAgent(service);
  expect((await claim(service, agent, job.id)).status).toBe(200);
  return { poster, agent, jobId: job.id };
}

/** What submission does (the deliverables domain): outputData.url, submittedAt, REVIEW. */
async function markSubmitted(jobId: string, url: string) {
  await service.db
    .updateTable("jobs")
    .set({ status: "REVIEW", submitted_at: new Date(), output_data: JSON.stringify({ url }) })
    .where("id", "=", jobId)
    .execute();
}

const criteriaPath = (jobId: string, rest = "") => `/v1/jobs/${jobId}/criteria${rest}`;

describe("a criterion's check URL", () => {
  it("is http(s) only when written: file:, javascript:, gopher:, data: and ftp: are a 400 at creation and in an edit, nothing stored", async () => {
    const poster = await newUser(service);
    const withUrl = (url: string) => ({
      description: "The page answers 200",
      check: { type: "http_status" as const, url, equals: 200 },
    });
    for (const url of [
      "file:///etc/passwd",
      "javascript:alert(document.cookie)",
      "gopher://127.0.0.1:6379/_FLUSHALL",
      "data:text/html,<script>alert(1)</script>",
      "ftp://example.com/x",
    ]) {
      const res = await service.http("POST", "/v1/jobs", {
        token: poster.token,
        body: jobInput({ title: `Criterion URL ${url.slice(0, 10)}`, acceptanceCriteria: [withUrl(url)] }),
      });
      expect(res.status, url).toBe(400);
      expect(res.json.code).toBe("VALIDATION_FAILED");
      expect(res.json.message, url).toMatch(/acceptanceCriteria.*must be an http or https URL/);
    }
    expect((await service.http("GET", `/v1/jobs?posterId=${poster.id}`)).json.data).toEqual([]);

    const job = await service.http("POST", "/v1/jobs", {
      token: poster.token,
      body: jobInput({ acceptanceCriteria: [withUrl("https://example.com/docs")] }),
    });
    expect(job.status, JSON.stringify(job.json)).toBe(201);
    const edit = await service.http("PATCH", `/v1/jobs/${job.json.data.id}`, {
      token: poster.token,
      body: { acceptanceCriteria: [withUrl("javascript:alert(1)")] },
    });
    expect(edit.status).toBe(400);
    expect(edit.json.message).toMatch(/must be an http or https URL/);
    const kept = await service.http("GET", `/v1/jobs/${job.json.data.id}`, { token: poster.token });
    expect(kept.json.data.acceptanceCriteria[0].check.url).toBe("https://example.com/docs");
  });
});

describe("GET /v1/jobs/:id/criteria", () => {
  it("lists every criterion as PENDING before any evaluation, for the poster and the assigned agent only", async () => {
    const { poster, agent, jobId } = await claimedJobWithCriteria();
    const res = await service.http("GET", criteriaPath(jobId), { token: agent.apiKey });
    expect(res.status).toBe(200);
    const view = JobCriteria.parse(res.json.data);
    expect(view.criteria.map((c) => [c.id, c.status])).toEqual([
      ["ac-1", "PENDING"],
      ["ac-2", "PENDING"],
      ["ac-3", "PENDING"],
      ["ac-4", "PENDING"],
    ]);
    expect(view.criteria[2]!.detail).toMatch(/tick/);
    // Unevaluated machine checks block approval; manual and reward ones do not.
    expect(view).toMatchObject({ approvalBlocked: true, blocking: ["ac-1", "ac-2"] });
    expect((await service.http("GET", criteriaPath(jobId), { token: poster.token })).status).toBe(200);
    const stranger = await newAgent(service);
    expect((await service.http("GET", criteriaPath(jobId), { token: stranger.apiKey })).status).toBe(403);
    expect((await service.http("GET", criteriaPath(jobId))).status).toBe(401);
    expect(
      (await service.http("GET", criteriaPath("4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a11"), { token: poster.token })).status,
    ).toBe(404);
  });
});

describe("evaluation", () => {
  it("http_status checks GET the criterion URL or the deliverable; results are stored and block approval until met or overridden", async () => {
    const { poster, agent, jobId } = await claimedJobWithCriteria();
    // Before submission there is no deliverable URL: ac-1 waits, ac-2 has its own URL and fails (404).
    const early = await service.http("POST", criteriaPath(jobId, "/evaluate"), { token: agent.apiKey });
    expect(early.status).toBe(200);
    const byId = (view: { criteria: Array<{ id: string } & Record<string, unknown>> }) =>
      Object.fromEntries(view.criteria.map((c) => [c.id, c]));
    expect(byId(early.json.data)["ac-1"]).toMatchObject({ status: "PENDING", checkedUrl: null });
    expect(byId(early.json.data)["ac-2"]).toMatchObject({
      status: "FAIL",
      checkStatus: "FAIL",
      httpStatus: 404,
      checkedUrl: `${siteUrl}/docs`,
    });
    expect(byId(early.json.data)["ac-2"]!.detail).toMatch(/answered 404; the criterion requires 200/);

    await markSubmitted(jobId, `${siteUrl}/moved`);
    const res = await service.http("POST", criteriaPath(jobId, "/evaluate"), { token: poster.token });
    const view = byId(res.json.data);
    // Redirects are followed: the final status counts.
    expect(view["ac-1"]).toMatchObject({ status: "PASS", httpStatus: 200, checkedUrl: `${siteUrl}/moved` });
    expect(view["ac-1"]!.evaluatedAt).toEqual(expect.any(String));
    expect(view["ac-2"]).toMatchObject({ status: "FAIL" });
    expect(view["ac-4"]).toMatchObject({ status: "PENDING" });
    expect(view["ac-4"]!.detail).toMatch(/reward/);
    expect(res.json.data).toMatchObject({ approvalBlocked: true, blocking: ["ac-2"] });
    expect(await criteriaBlockApproval(service.ctx, jobId)).toEqual({
      blocked: true,
      failing: [
        { id: "ac-2", description: "The docs page exists", status: "FAIL", detail: expect.stringMatching(/404/) },
      ],
    });

    // The poster overrides the failing check; a new evaluation keeps the override and the check's own verdict.
    const override = await service.http("POST", criteriaPath(jobId, "/ac-2/override"), {
      token: poster.token,
      body: { reason: "docs live on the wiki instead" },
    });
    expect(override.status).toBe(200);
    expect(override.json.data).toMatchObject({
      id: "ac-2",
      status: "OVERRIDDEN",
      checkStatus: "FAIL",
      overridden: true,
      overriddenBy: poster.id,
      overrideReason: "docs live on the wiki instead",
    });
    const again = await service.http("POST", criteriaPath(jobId, "/evaluate"), { token: agent.apiKey });
    expect(byId(again.json.data)["ac-2"]).toMatchObject({ status: "OVERRIDDEN", checkStatus: "FAIL" });
    expect(again.json.data).toMatchObject({ approvalBlocked: false, blocking: [] });
    expect(await criteriaBlockApproval(service.ctx, jobId)).toEqual({ blocked: false, failing: [] });
  });

  it("evaluateCriteria: an explicit deliverable URL, no storing, and the fetch policy (a refused address is a FAIL with the reason)", async () => {
    const { jobId } = await claimedJobWithCriteria();
    const job = await service.db.selectFrom("jobs").selectAll().where("id", "=", jobId).executeTakeFirstOrThrow();
    const results = await evaluateCriteria(service.ctx, job, { deliverableUrl: `${siteUrl}/created`, persist: false });
    expect(results.find((r) => r.id === "ac-1")).toMatchObject({ status: "FAIL", httpStatus: 201 });
    expect(
      await service.db.selectFrom("job_criteria_results").selectAll().where("job_id", "=", jobId).execute(),
    ).toHaveLength(0);

    // What-if inputs: ticks and overrides given by the caller.
    const whatIf = await evaluateCriteria(service.ctx, job, {
      deliverableUrl: `${siteUrl}/ok`,
      manualTicks: { "ac-3": true },
      overrides: { "ac-2": true },
      persist: false,
    });
    expect(whatIf.map((r) => r.status)).toEqual(["PASS", "OVERRIDDEN", "PASS", "PENDING"]);

    // Production refuses loopback and private addresses: the check fails and says why, and nothing is fetched.
    const strict = { ...service.ctx, config: { ...service.ctx.config, probeAllowLoopback: false } };
    const before = hits.length;
    const refused = await evaluateCriteria(strict, job, { deliverableUrl: `${siteUrl}/ok` });
    expect(refused.find((r) => r.id === "ac-1")).toMatchObject({ status: "FAIL", httpStatus: null });
    expect(refused.find((r) => r.id === "ac-1")!.detail).toMatch(/refused/);
    expect(hits.length).toBe(before);
    const stored = await service.db
      .selectFrom("job_criteria_results")
      .selectAll()
      .where("job_id", "=", jobId)
      .execute();
    expect(stored.map((r) => r.criterion_id).sort()).toEqual(["ac-1", "ac-2", "ac-4"]);
  });

  it("one GET per distinct URL per evaluation", async () => {
    const poster = await newUser(service);
    const job = (
      await poster.client.createJob({
        body: jobInput({
          participationMode: "BOUNTY",
          acceptanceCriteria: [
            { description: "Deliverable is up", check: { type: "http_status", equals: 200 } },
            { description: "Deliverable is still up", check: { type: "http_status", equals: 200 } },
          ],
        }),
      })
    ).data;
    const row = await service.db.selectFrom("jobs").selectAll().where("id", "=", job.id).executeTakeFirstOrThrow();
    const path = `/ok?once=${job.id}`;
    await evaluateCriteria(service.ctx, row, { deliverableUrl: `${siteUrl}${path}`, persist: false });
    expect(hits.filter((h) => h === path)).toHaveLength(1);
  });

  it("evaluate is for the poster and the agent, while the job is assigned", async () => {
    const { jobId } = await claimedJobWithCriteria();
    const stranger = await newAgent(service);
    expect((await service.http("POST", criteriaPath(jobId, "/evaluate"), { token: stranger.apiKey })).status).toBe(403);
    const poster = await newUser(service);
    const open = (await poster.client.createJob({ body: jobInput() })).data;
    const res = await service.http("POST", criteriaPath(open.id, "/evaluate"), { token: poster.token });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe("INVALID_STATE");
  });
});

describe("PUT /v1/jobs/:id/criteria/:criterionId (manual ticks)", () => {
  it("the poster ticks and unticks a manual criterion; others may not; machine checks are not ticked", async () => {
    const { poster, agent, jobId } = await claimedJobWithCriteria();
    const tick = (token: string, criterionId: string, body: unknown) =>
      service.http("PUT", criteriaPath(jobId, `/${criterionId}`), { token, body });
    expect((await tick(agent.apiKey, "ac-3", { ticked: true })).status).toBe(403);
    const ticked = await tick(poster.token, "ac-3", { ticked: true });
    expect(ticked.status).toBe(200);
    expect(ticked.json.data).toMatchObject({
      id: "ac-3",
      status: "PASS",
      ticked: true,
      tickedBy: poster.id,
      detail: "ticked by the poster",
    });
    const unticked = await tick(poster.token, "ac-3", { ticked: false });
    expect(unticked.json.data).toMatchObject({ status: "PENDING", ticked: false });
    await tick(poster.token, "ac-3", { ticked: true });
    // An evaluation keeps the poster's tick.
    await service.http("POST", criteriaPath(jobId, "/evaluate"), { token: agent.apiKey });
    const view = await agent.client.listJobCriteria({ params: { id: jobId } });
    expect(view.data.criteria.find((c) => c.id === "ac-3")).toMatchObject({ status: "PASS", ticked: true });

    const machine = await tick(poster.token, "ac-1", { ticked: true });
    expect(machine.status).toBe(409);
    expect(machine.json.code).toBe("CRITERION_NOT_MANUAL");
    expect((await tick(poster.token, "ac-99", { ticked: true })).status).toBe(404);
    expect((await tick(poster.token, "ac-3", { ticked: "yes" })).status).toBe(400);
    expect((await tick(poster.token, "ac-3", {})).status).toBe(400);
    expect((await tick(poster.token, "ac-3", { ticked: true, note: "x" })).status).toBe(400);
    expect((await tick(poster.token, "bad id!", { ticked: true })).status).toBe(400);
  });

  it("ticks and overrides wait until the job is assigned (409 INVALID_STATE on an OPEN job)", async () => {
    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const res = await service.http("PUT", criteriaPath(job.id, "/ac-1"), {
      token: poster.token,
      body: { ticked: true },
    });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe("INVALID_STATE");
    const override = await service.http("POST", criteriaPath(job.id, "/ac-1/override"), {
      token: poster.token,
      body: { reason: "fine as it is" },
    });
    expect(override.status).toBe(409);
  });
});

describe("POST /v1/jobs/:id/criteria/:criterionId/override", () => {
  it("is for the poster, needs a reason, and names an existing criterion", async () => {
    const { poster, agent, jobId } = await claimedJobWithCriteria();
    const override = (token: string, criterionId: string, body: unknown) =>
      service.http("POST", criteriaPath(jobId, `/${criterionId}/override`), { token, body });
    expect((await override(agent.apiKey, "ac-1", { reason: "I say it passes" })).status).toBe(403);
    const short = await override(poster.token, "ac-1", { reason: "ok" });
    expect(short.status).toBe(400);
    expect((await override(poster.token, "ac-1", {})).status).toBe(400);
    expect((await override(poster.token, "ac-42", { reason: "no such criterion" })).status).toBe(404);
    // Overriding a never-evaluated check unblocks it.
    const res = await override(poster.token, "ac-1", { reason: "checked it by hand" });
    expect(res.json.data).toMatchObject({
      status: "OVERRIDDEN",
      checkStatus: "PENDING",
      overrideReason: "checked it by hand",
    });
    await override(poster.token, "ac-2", { reason: "not needed after all" });
    expect(await criteriaBlockApproval(service.ctx, jobId)).toEqual({ blocked: false, failing: [] });
  });
});
