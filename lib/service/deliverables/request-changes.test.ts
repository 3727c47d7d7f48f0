// Sending delivered work back for changes, on the HTTP surface against a real anvil: the poster
// (or the job's evaluator) asks, the job returns to IN_PROGRESS with revisionCount and the message,
// the agent resubmits (the proof check runs again, the proof hold starts again), at most
// maxRevisions rounds, never after approval; the same for one part of a job paid in parts. Who may
// ask (not a stranger, not the agent, not another poster), the timeline, the agent's feed, the
// owner's inbox and mail, and two requests racing for one round on PostgreSQL.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { fanOutNotifications } from "../notifications/fan-out";
import {
  GENEROUS_BUDGETS,
  claimLinkFor,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
  type TestUser,
} from "../testing/harness";

const PAYER = 1;
const WALLET = 6;
const MARKER = "revision-marker-4b2e";
const PART_MARKER = (n: number) => `revision-part-${n}-3c9d`;

let chain: TestChain;
let service: TestService;
let site: http.Server;
let siteUrl: string;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config, probeAllowLoopback: true });
  // Every path carries the job's marker, and the marker of the part its name says (/part-2 -> part 2's).
  site = http.createServer((req, res) => {
    const n = /part-(\d+)/.exec(req.url ?? "")?.[1];
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<html><head><title>Work</title></head><body><h1>Delivered work ${req.url}</h1><p>${MARKER}</p>${n ? `<p>${PART_MARKER(Number(n))}</p>` : ""}</body></html>`,
    );
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  site?.close();
  await service?.stop();
  await chain?.stop();
});

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as `0x${string}`;

interface Setup {
  poster: TestUser;
  agent: TestAgent;
  jobId: string;
}

const PLAN = [
  {
    title: "Part one: research",
    amountUsdc: "12",
    acceptanceCriteria: "20 sources",
    proofContentMarker: PART_MARKER(1),
  },
  { title: "Part two: draft", amountUsdc: "8", acceptanceCriteria: "A draft", proofContentMarker: PART_MARKER(2) },
];

/** A funded job (optionally in parts) with an accepted bid: IN_PROGRESS, assigned to a fresh agent. */
async function assigned(
  options: {
    maxRevisions?: number;
    hold?: number;
    plan?: unknown[];
    evaluatorAddress?: string;
    ownerEmail?: string;
  } = {},
): Promise<Setup> {
  const budget = "20";
  const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
  const created = await service.http("POST", "/v1/jobs", {
    token: poster.token,
    body: jobInput({
      budget,
      inputData: { budgetType: "bid", proofHoldHours: options.hold ?? 0, proofContentMarker: MARKER },
      ...(options.maxRevisions !== undefined ? { maxRevisions: options.maxRevisions } : {}),
      ...(options.plan ? { milestones: options.plan } : {}),
      ...(options.evaluatorAddress ? { evaluatorAddress: options.evaluatorAddress } : {}),
    }),
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const job = created.json.data;
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[PAYER]!.privateKey,
    escrowJobId: hexOf(job.escrowJobId),
    amount: parseUsdc(budget),
  });
  await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  const agent = await newAgent(service, {
    walletAddress: chain.accounts[WALLET]!.address,
    ...(options.ownerEmail ? { ownerEmail: options.ownerEmail } : {}),
  });
  const bid = (
    await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: budget } })
  ).data;
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
  return { poster, agent, jobId: job.id };
}

let deliveries = 0;
const submit = (s: Setup) =>
  service.http("POST", `/v1/jobs/${s.jobId}/submit`, {
    token: s.agent.apiKey,
    body: { outputData: { url: `${siteUrl}/work-${(deliveries += 1)}` } },
  });
const askChanges = (s: Setup, token: string, message: unknown = "Please add the missing emails.") =>
  service.http("POST", `/v1/jobs/${s.jobId}/request-changes`, { token, body: { message } });
const getJob = async (s: Setup, token: string) =>
  (await service.http("GET", `/v1/jobs/${s.jobId}`, { token })).json.data as Record<string, any>;

describe("asking for changes to a delivered job", () => {
  it("sends the job back to IN_PROGRESS with the message; the agent resubmits, the proof is checked again and the hold starts again", async () => {
    const s = await assigned({ hold: 24 });
    expect((await submit(s)).status).toBe(200);
    const first = await getJob(s, s.poster.token);
    expect(first).toMatchObject({ status: "REVIEW", maxRevisions: 3, revisionCount: 0, changeRequest: null });
    expect(first.viewer.can.requestChanges).toBe(true);
    expect((await getJob(s, s.agent.apiKey)).viewer.can.requestChanges).toBe(false);

    const asked = await askChanges(s, s.poster.token, "  The CSV lacks the email column; add it.  ");
    expect(asked.status, JSON.stringify(asked.json)).toBe(200);
    expect(asked.json.data).toMatchObject({
      status: "IN_PROGRESS",
      revisionCount: 1,
      changeRequest: { round: 1, message: "The CSV lacks the email column; add it." },
    });
    // The agent reads the request on the job; the public does not.
    const agentView = await getJob(s, s.agent.apiKey);
    expect(agentView.changeRequest).toMatchObject({ round: 1, message: "The CSV lacks the email column; add it." });
    const publicView = await getJob(s, (await newUser(service)).token);
    expect(publicView).toMatchObject({ revisionCount: 1, changeRequest: null });
    // Sent back, the job cannot be approved until it is delivered again.
    expect((await service.http("POST", `/v1/jobs/${s.jobId}/approve`, { token: s.poster.token })).status).toBe(409);

    const again = await submit(s);
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    expect(again.json.data.status).toBe("REVIEW");
    expect(Date.parse(again.json.data.submittedAt)).toBeGreaterThan(Date.parse(first.submittedAt));
    const checks = (await service.http("GET", `/v1/jobs/${s.jobId}/proof-checks`, { token: s.poster.token })).json
      .data as Array<{ trigger: string; status: string }>;
    expect(checks.filter((c) => c.trigger === "SUBMISSION" && c.status === "LIVE")).toHaveLength(2);

    // Approved: the proof hold of 24 hours runs from the new submission.
    const approved = await service.http("POST", `/v1/jobs/${s.jobId}/approve`, { token: s.poster.token });
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect(Date.parse(approved.json.data.releaseAt)).toBe(Date.parse(again.json.data.submittedAt) + 24 * 3600_000);
  });

  it("is never possible once the work is approved, nor before anything is delivered", async () => {
    const s = await assigned({ hold: 24 });
    const early = await askChanges(s, s.poster.token);
    expect(early.status).toBe(409);
    expect(early.json.code).toBe("INVALID_STATE");
    await submit(s);
    expect((await service.http("POST", `/v1/jobs/${s.jobId}/approve`, { token: s.poster.token })).status).toBe(200);
    const late = await askChanges(s, s.poster.token);
    expect(late.status).toBe(409);
    expect(late.json.code).toBe("INVALID_STATE");
    expect(late.json.message).toContain("approved");
    expect(await getJob(s, s.poster.token)).toMatchObject({ status: "REVIEW", revisionCount: 0 });
  });

  it("allows maxRevisions rounds, then answers 409 REVISIONS_EXHAUSTED and changes nothing", async () => {
    const s = await assigned({ maxRevisions: 2 });
    for (const round of [1, 2]) {
      expect((await submit(s)).status).toBe(200);
      const asked = await askChanges(s, s.poster.token, `Round ${round}: fix the headers.`);
      expect(asked.status).toBe(200);
      expect(asked.json.data.revisionCount).toBe(round);
    }
    await submit(s);
    const third = await askChanges(s, s.poster.token, "Round 3: again.");
    expect(third.status).toBe(409);
    expect(third.json).toMatchObject({ code: "REVISIONS_EXHAUSTED", maxRevisions: 2, revisionCount: 2 });
    const spent = await getJob(s, s.poster.token);
    expect(spent).toMatchObject({ status: "REVIEW", revisionCount: 2 });
    expect(spent.viewer.can).toMatchObject({ requestChanges: false, approve: true });

    const none = await assigned({ maxRevisions: 0 });
    await submit(none);
    expect((await askChanges(none, none.poster.token)).json.code).toBe("REVISIONS_EXHAUSTED");
  });

  it("is the poster's (or the named evaluator's) alone: a stranger, the agent and another poster are refused", async () => {
    const evaluator = await newUser(service);
    const s = await assigned({ evaluatorAddress: evaluator.address });
    await submit(s);
    const stranger = await newUser(service);
    const otherPoster = await newUser(service);
    await otherPoster.client.createJob({ body: jobInput({ title: "Another poster's own job" }) });
    const strangerAgent = await newAgent(service);
    for (const token of [stranger.token, s.agent.apiKey, otherPoster.token, strangerAgent.apiKey]) {
      const refused = await askChanges(s, token);
      expect(refused.status).toBe(403);
      expect(refused.json.code).toBe("FORBIDDEN");
    }
    expect((await service.http("POST", `/v1/jobs/${s.jobId}/request-changes`, { body: { message: "x" } })).status).toBe(
      401,
    );
    expect(await getJob(s, s.poster.token)).toMatchObject({ status: "REVIEW", revisionCount: 0 });
    const byEvaluator = await askChanges(s, evaluator.token, "As the evaluator: the list must be deduplicated.");
    expect(byEvaluator.status, JSON.stringify(byEvaluator.json)).toBe(200);
    expect(byEvaluator.json.data.revisionCount).toBe(1);
  });

  it("takes a message of 1 to 4,000 characters and nothing else", async () => {
    const s = await assigned();
    await submit(s);
    for (const message of ["", "   ", "x".repeat(4001), 42]) {
      const refused = await askChanges(s, s.poster.token, message);
      expect(refused.status, JSON.stringify(message)).toBe(400);
      expect(refused.json.code).toBe("VALIDATION_FAILED");
    }
    const extra = await service.http("POST", `/v1/jobs/${s.jobId}/request-changes`, {
      token: s.poster.token,
      body: { message: "ok", round: 5 },
    });
    expect(extra.status).toBe(400);
    expect(await getJob(s, s.poster.token)).toMatchObject({ status: "REVIEW", revisionCount: 0 });
    // Untrusted text is kept as written, markup and all (the pages show it as plain text).
    const odd = "<script>alert(1)</script> **bold** \u202Eevil";
    expect((await askChanges(s, s.poster.token, odd)).json.data.changeRequest.message).toBe(odd);
    expect((await askChanges(s, s.poster.token, "y".repeat(4000))).status).toBe(409); // not in REVIEW any more
  });

  it("shows each round on the timeline, in the agent's feed and in its owner's inbox and mail", async () => {
    const ownerEmail = `revisions-owner-${process.pid}-${Date.now()}@example.test`;
    const s = await assigned({ ownerEmail });
    const owner = await newUser(service);
    await owner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
    const firstUrl = (await submit(s)).json.data.outputData.url;
    await askChanges(s, s.poster.token, "Please add a source column.");
    await submit(s);

    const events = (await service.http("GET", `/v1/jobs/${s.jobId}/events`, { token: s.agent.apiKey })).json
      .data as Array<{ type: string; data: Record<string, unknown>; actor: { kind: string; id: string } }>;
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === "job.submitted")).toHaveLength(2);
    const request = events.find((e) => e.type === "job.changes_requested")!;
    expect(request.data).toMatchObject({ round: 1, message: "Please add a source column.", deliveredUrl: firstUrl });
    expect(request.actor).toEqual({ kind: "USER", id: s.poster.id });
    expect(types.indexOf("job.changes_requested")).toBeGreaterThan(types.indexOf("job.submitted"));
    expect(types.lastIndexOf("job.submitted")).toBeGreaterThan(types.indexOf("job.changes_requested"));

    const feed = (await service.http("GET", `/v1/agents/${s.agent.id}/events`, { token: s.agent.apiKey })).json
      .data as Array<{ type: string; data: Record<string, unknown> }>;
    expect(feed.find((e) => e.type === "job.changes_requested")?.data).toMatchObject({
      jobId: s.jobId,
      round: 1,
      maxRevisions: 3,
      message: "Please add a source column.",
    });

    while ((await fanOutNotifications(service.ctx)) > 0) {
      /* next batch */
    }
    const inbox = (await owner.client.listNotifications({ query: {} })).data;
    const told = inbox.find((n) => n.type === "job.changes_requested");
    expect(told).toMatchObject({ kind: "deliverable", link: `/jobs/${s.jobId}`, jobId: s.jobId });
    expect(told!.text).toContain("round 1 of 3");
    expect(told!.text).not.toContain("source column"); // the message itself stays behind the link
    const mails = await service.db
      .selectFrom("mail_outbox")
      .select("subject")
      .where("to_address", "=", ownerEmail)
      .execute();
    expect(mails.some((m) => m.subject.includes("Changes were asked for"))).toBe(true);
  });

  it("lets the poster lower maxRevisions after bids, never raise it", async () => {
    const s = await assigned();
    const raise = await service.http("PATCH", `/v1/jobs/${s.jobId}`, {
      token: s.poster.token,
      body: { maxRevisions: 5 },
    });
    expect(raise.status).toBe(409);
    const poster = await newUser(service);
    const open = (await poster.client.createJob({ body: jobInput({ maxRevisions: 1 }) })).data;
    expect(open.maxRevisions).toBe(1);
    const edited = await service.http("PATCH", `/v1/jobs/${open.id}`, {
      token: poster.token,
      body: { maxRevisions: 4 },
    });
    expect(edited.status).toBe(200);
    expect(edited.json.data.maxRevisions).toBe(4);
    const tooMany = await service.http("POST", "/v1/jobs", {
      token: poster.token,
      body: jobInput({ maxRevisions: 11 }),
    });
    expect(tooMany.status).toBe(400);
  });
});

describe("the arbiter's view after rounds of changes", () => {
  it("the evaluator reads the delivered work as resubmitted, every proof check and the request, in the case", async () => {
    const evaluator = await newUser(service);
    const s = await assigned({ evaluatorAddress: evaluator.address });
    await submit(s);
    await askChanges(s, s.poster.token, "Please add the missing emails.");
    const latest = (await submit(s)).json.data.outputData.url;
    const disputed = await service.http("POST", `/v1/jobs/${s.jobId}/dispute`, {
      token: s.agent.apiKey,
      body: { reason: "The poster keeps asking for work outside the brief." },
    });
    expect(disputed.status, JSON.stringify(disputed.json)).toBe(200);
    const kase = (await service.http("GET", `/v1/jobs/${s.jobId}/dispute`, { token: evaluator.token })).json.data;
    expect(kase.viewer).toMatchObject({ role: "EVALUATOR", can: { rule: true } });
    expect(kase.deliverable).toMatchObject({ url: latest });
    expect(kase.proofChecks.filter((c: { trigger: string }) => c.trigger === "SUBMISSION")).toHaveLength(2);
    expect(kase.timeline.map((e: { type: string }) => e.type)).toContain("job.changes_requested");
    // A stranger reads no case.
    expect(
      (await service.http("GET", `/v1/jobs/${s.jobId}/dispute`, { token: (await newUser(service)).token })).status,
    ).toBe(403);
  });
});

describe("asking for changes to one part", () => {
  const part = (s: Setup, n: number, verb: string, token: string, body?: unknown) =>
    service.http("POST", `/v1/jobs/${s.jobId}/milestones/${n}/${verb}`, { token, ...(body ? { body } : {}) });
  const submitPart = (s: Setup, n: number) =>
    part(s, n, "submit", s.agent.apiKey, { outputData: { url: `${siteUrl}/part-${n}?v=${(deliveries += 1)}` } });

  it("sends a SUBMITTED part back to OPEN with its own count; the rest of the job cannot be cancelled around it", async () => {
    const s = await assigned({ plan: PLAN, maxRevisions: 1 });
    expect((await submitPart(s, 1)).status).toBe(200);
    const stranger = await newUser(service);
    expect((await part(s, 1, "request-changes", stranger.token, { message: "no" })).status).toBe(403);
    expect((await part(s, 1, "request-changes", s.agent.apiKey, { message: "no" })).status).toBe(403);
    expect((await part(s, 2, "request-changes", s.poster.token, { message: "nothing yet" })).status).toBe(409);

    const asked = await part(s, 1, "request-changes", s.poster.token, { message: "Cite the 2024 figures." });
    expect(asked.status, JSON.stringify(asked.json)).toBe(200);
    expect(asked.json.data).toMatchObject({
      status: "OPEN",
      revisionCount: 1,
      changeRequest: { round: 1, message: "Cite the 2024 figures." },
    });
    const job = await getJob(s, s.poster.token);
    expect(job).toMatchObject({ status: "IN_PROGRESS", revisionCount: 0 });
    // Delivered once, so the part is in flight: no cancelling the rest around it.
    expect((await service.http("POST", `/v1/jobs/${s.jobId}/cancel`, { token: s.poster.token })).status).toBe(409);

    expect((await submitPart(s, 1)).json.data.status).toBe("SUBMITTED");
    const exhausted = await part(s, 1, "request-changes", s.poster.token, { message: "Again." });
    expect(exhausted.status).toBe(409);
    expect(exhausted.json).toMatchObject({ code: "REVISIONS_EXHAUSTED", maxRevisions: 1, revisionCount: 1 });

    // Each part counts its own rounds.
    await submitPart(s, 2);
    expect((await part(s, 2, "request-changes", s.poster.token, { message: "Shorter, please." })).status).toBe(200);

    const events = (await service.http("GET", `/v1/jobs/${s.jobId}/events`, { token: s.poster.token })).json
      .data as Array<{ type: string; data: Record<string, unknown> }>;
    const requests = events.filter((e) => e.type === "job.changes_requested");
    expect(requests.map((e) => e.data.position)).toEqual([1, 2]);
    expect(events.filter((e) => e.type === "milestone.submitted" && e.data.position === 1)).toHaveLength(2);
  });

  it("is refused once the part is approved", async () => {
    const s = await assigned({ plan: PLAN, hold: 24 });
    await submitPart(s, 1);
    expect((await part(s, 1, "approve", s.poster.token)).status).toBe(200);
    const refused = await part(s, 1, "request-changes", s.poster.token, { message: "Too late." });
    expect(refused.status).toBe(409);
    expect(refused.json.message).toContain("approved");
  });
});

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))("requests racing on PostgreSQL", () => {
  it("two requests at once count one round: one is answered, the other refused", async () => {
    const s = await assigned({ maxRevisions: 3 });
    await submit(s);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => askChanges(s, s.poster.token, `Parallel request ${i}`)),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409).every((a) => a.json.code === "INVALID_STATE")).toBe(true);
    expect(await getJob(s, s.poster.token)).toMatchObject({ status: "IN_PROGRESS", revisionCount: 1 });
    const rows = await service.db
      .selectFrom("job_change_requests")
      .select("round")
      .where("job_id", "=", s.jobId)
      .execute();
    expect(rows).toEqual([{ round: 1 }]);
  });
});
