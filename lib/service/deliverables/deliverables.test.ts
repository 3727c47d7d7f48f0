import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20BalanceOf, getEscrow } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { releaseEscrow } from "@/lib/chain/escrow/settle";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import { SETTLEMENT_LEASE_MS, finishPendingSettlements, settleJob } from "../escrow/settle-job";
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
import { REVIEW_RETRY_MS, runProofRecheckRound, runReleaseAndTimeouts } from "./review-queue";

const HOUR = 3600_000;
const MARKER = "proof-marker-7f3a";
const page = (body: string, title = "Leads") => `<html><head><title>${title}</title></head><body>${body}</body></html>`;
const GOOD = page(`<h1>50 fintech leads</h1><p>${MARKER}</p><table><tr><td>Ada</td></tr></table>`);
const LOGIN = page(
  '<form action="/session"><input name="user"><input type="password" name="p"><button>Sign in</button></form>',
  "Sign in",
);

let chain: TestChain;
let service: TestService;
let site: http.Server;
let siteUrl: string;
const hits = new Map<string, number>();
/** Pages of the deliverable site by path; tests change them to make a deliverable go bad. */
const pages = new Map<string, { status?: number; body: string | Buffer; type?: string }>([
  ["/good", { body: GOOD }],
  ["/no-marker", { body: page("<h1>50 fintech leads</h1><p>no marker here</p>") }],
  ["/login", { body: LOGIN }],
  ["/soft-404", { body: page("<h1>404</h1><p>This page could not be found.</p>", "Page not found") }],
  ["/server-error", { status: 500, body: "oops" }],
]);

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config, probeAllowLoopback: true });
  site = http.createServer((req, res) => {
    const path = req.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const found = path.startsWith("/q/") ? { body: page(`<p>queue ${path} ${MARKER}</p>`) } : pages.get(path);
    const type = found ? (found.type ?? "text/html; charset=utf-8") : "text/plain";
    res.writeHead(found ? (found.status ?? 200) : 404, type === "" ? {} : { "content-type": type });
    res.end(found?.body ?? "not found");
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  site?.close();
  await service?.stop();
  await chain?.stop();
});

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as `0x${string}`;
const AGENT_WALLET = () => chain.accounts[6]!.address;
const PAYER = 1;
let pageCounter = 0;

/** A fresh page of the deliverable site (its own path), good until a test changes it. */
function newPage(body = GOOD): { url: string; set(body: string, status?: number): void } {
  const path = `/p/${++pageCounter}`;
  pages.set(path, { body });
  return { url: `${siteUrl}${path}`, set: (b, status) => pages.set(path, { body: b, status }) };
}

interface Assigned {
  poster: TestUser;
  agent: TestAgent;
  job: { id: string; escrowJobId: Record<string, number> };
}

async function assignedJob(
  options: {
    funded?: boolean;
    hold?: number;
    marker?: string;
    wallet?: string | null;
    ownerEmail?: string;
    criteria?: unknown[];
  } = {},
): Promise<Assigned> {
  const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
  const job = (
    await poster.client.createJob({
      body: jobInput({
        budget: "40",
        inputData: {
          budgetType: "bid",
          proofHoldHours: options.hold ?? 0,
          ...(options.marker ? { proofContentMarker: options.marker } : {}),
        },
        ...(options.criteria ? { acceptanceCriteria: options.criteria } : {}),
      }),
    })
  ).data;
  if (options.funded ?? true) {
    const { txHash } = await depositToEscrow({
      config: chain.config,
      privateKey: chain.accounts[PAYER]!.privateKey,
      escrowJobId: hexOf(job.escrowJobId),
      amount: parseUsdc("40"),
    });
    await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  }
  const wallet = options.wallet === undefined ? AGENT_WALLET() : options.wallet;
  const agent = await newAgent(service, {
    ...(wallet ? { walletAddress: wallet } : {}),
    ...(options.ownerEmail ? { ownerEmail: options.ownerEmail } : {}),
  });
  const bid = (await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } }))
    .data;
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
  return { poster, agent, job };
}

async function submittedJob(options: Parameters<typeof assignedJob>[0] & { body?: string } = {}) {
  const assigned = await assignedJob(options);
  const deliverable = newPage(options.body);
  const res = await submit(assigned.job.id, assigned.agent.apiKey, deliverable.url);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return { ...assigned, deliverable };
}

const submit = (jobId: string, token: string, url: string) =>
  service.http("POST", `/v1/jobs/${jobId}/submit`, { token, body: { outputData: { url } } });
const approve = (jobId: string, token: string) => service.http("POST", `/v1/jobs/${jobId}/approve`, { token });
const detailOf = async (a: Assigned) => (await a.poster.client.getJob({ params: { id: a.job.id } })).data;
const walletBalance = () => erc20BalanceOf({ config: chain.config, address: AGENT_WALLET() });
/** The domain events published about a job, in order (what its webhooks and notifications are made of). */
const eventsOf = (jobId: string) =>
  service.db.selectFrom("domain_events").selectAll().where("job_id", "=", jobId).orderBy("seq").execute();
/** The service's context with the clock moved by `ms`: what the workers would see then. */
const later = (ms: number): ServiceContext => ({ ...service.ctx, now: () => new Date(Date.now() + ms) });

describe("the proof marker is decided on the bytes, never on the declared type", () => {
  const UNMARKED = "50 fintech leads\nAda Lovelace, ada@example.test\n";
  const MARKED = `50 fintech leads\n${MARKER}\nAda Lovelace, ada@example.test\n`;

  it("the same unmarked text is refused as MARKER_MISSING whatever type it is served as; a marked one passes as any type", async () => {
    const { agent, poster, job } = await assignedJob({ marker: MARKER });
    for (const type of [
      "text/plain",
      "application/octet-stream",
      "application/zip",
      "image/png",
      "application/pdf",
      "application/x-anything",
      "text/plain; charset=utf-16le",
    ]) {
      const deliverable = newPage();
      pages.set(new URL(deliverable.url).pathname, { body: UNMARKED, type });
      const res = await submit(job.id, agent.apiKey, deliverable.url);
      expect(res.status, `${type}: ${JSON.stringify(res.json)}`).toBe(422);
      expect(res.json).toMatchObject({ code: "PROOF_CHECK_FAILED", proofCheckStatus: "MARKER_MISSING" });
    }
    // No declared type and a NUL byte (the binary tell): still searched, still refused.
    const noType = newPage();
    pages.set(new URL(noType.url).pathname, {
      body: Buffer.concat([Buffer.from(UNMARKED), Buffer.from([0])]),
      type: "",
    });
    expect((await submit(job.id, agent.apiKey, noType.url)).json).toMatchObject({ proofCheckStatus: "MARKER_MISSING" });
    // A gzip file whose text holds the marker only compressed: the marker's bytes are not there.
    const { gzipSync } = await import("node:zlib");
    const zipped = newPage();
    pages.set(new URL(zipped.url).pathname, { body: gzipSync(MARKED), type: "application/gzip" });
    expect((await submit(job.id, agent.apiKey, zipped.url)).json).toMatchObject({ proofCheckStatus: "MARKER_MISSING" });
    expect((await detailOf({ poster, agent, job })).status).toBe("IN_PROGRESS");

    // The marked bytes pass as application/octet-stream, with the hash of the bytes read.
    const marked = newPage();
    pages.set(new URL(marked.url).pathname, { body: Buffer.from(MARKED), type: "application/octet-stream" });
    const res = await submit(job.id, agent.apiKey, marked.url);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({
      status: "REVIEW",
      proofCheckStatus: "LIVE",
      proofHash: createHash("sha256").update(MARKED).digest("hex"),
    });
  });

  it("a marked body passes as text/plain and with a declared charset that garbles it; a binary file with the marker's bytes passes", async () => {
    for (const [body, type] of [
      [MARKED, "text/plain"],
      [MARKED, "text/plain; charset=utf-16le"],
      [
        Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]), Buffer.from(MARKER), Buffer.from([0, 1, 2])]),
        "image/png",
      ],
    ] as const) {
      const { agent, job } = await assignedJob({ marker: MARKER });
      const deliverable = newPage();
      pages.set(new URL(deliverable.url).pathname, { body, type });
      const res = await submit(job.id, agent.apiKey, deliverable.url);
      expect(res.status, `${type}: ${JSON.stringify(res.json)}`).toBe(200);
    }
  });

  it("without a marker a binary deliverable is still LIVE on its 2xx answer", async () => {
    const { agent, job } = await assignedJob();
    const deliverable = newPage();
    pages.set(new URL(deliverable.url).pathname, { body: Buffer.from([0x89, 0x50, 0x4e, 0x47]), type: "image/png" });
    const res = await submit(job.id, agent.apiKey, deliverable.url);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({ proofCheckStatus: "LIVE", proofHash: null });
  });
});

describe("POST /v1/jobs/:id/submit", () => {
  it("only the assigned agent (or its owner's session) submits; an unfunded job answers JOB_NOT_FUNDED", async () => {
    const unfunded = await assignedJob({ funded: false });
    const res = await submit(unfunded.job.id, unfunded.agent.apiKey, `${siteUrl}/good`);
    expect(res.status).toBe(409);
    expect(res.json.code).toBe("JOB_NOT_FUNDED");

    const ownerEmail = `owner-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
    const funded = await assignedJob({ ownerEmail });
    const stranger = await newAgent(service);
    expect((await submit(funded.job.id, stranger.apiKey, `${siteUrl}/good`)).status).toBe(403);
    expect((await submit(funded.job.id, funded.poster.token, `${siteUrl}/good`)).status).toBe(403);
    const owner = await newUser(service);
    await owner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
    const byOwner = await submit(funded.job.id, owner.token, newPage().url);
    expect(byOwner.status).toBe(200);
    expect(byOwner.json.data.status).toBe("REVIEW");
    const again = await submit(funded.job.id, funded.agent.apiKey, `${siteUrl}/good`);
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("INVALID_STATE");
  });

  it("the body is {outputData: {url}} with an http(s) URL", async () => {
    const { agent, job } = await assignedJob();
    const post = (body: unknown) => service.http("POST", `/v1/jobs/${job.id}/submit`, { token: agent.apiKey, body });
    expect((await post({ outputData: { url: "ftp://example.com/x" } })).status).toBe(400);
    expect((await post({ outputData: { url: `${siteUrl}/good`, note: "x" } })).status).toBe(400);
    expect((await post({ url: `${siteUrl}/good` })).status).toBe(400);
  });

  it("a login page, an error page behind 200, a 500 and a missing marker are refused with the reason; the job is unchanged and the history kept", async () => {
    const { agent, poster, job } = await assignedJob({ marker: MARKER });
    const login = await submit(job.id, agent.apiKey, `${siteUrl}/login`);
    expect(login.status).toBe(422);
    expect(login.json).toMatchObject({
      code: "PROOF_CHECK_FAILED",
      proofCheckStatus: "LOGIN_REQUIRED",
      proofCheckHttpStatus: 200,
    });
    expect(login.json.proofCheckReason).toMatch(/login/i);
    expect((await submit(job.id, agent.apiKey, `${siteUrl}/soft-404`)).json.proofCheckStatus).toBe("ERROR_PAGE");
    expect((await submit(job.id, agent.apiKey, `${siteUrl}/server-error`)).json.proofCheckStatus).toBe("HTTP_ERROR");
    const noMarker = await submit(job.id, agent.apiKey, `${siteUrl}/no-marker`);
    expect(noMarker.status).toBe(422);
    expect(noMarker.json).toMatchObject({ code: "PROOF_CHECK_FAILED", proofCheckStatus: "MARKER_MISSING" });
    expect(noMarker.json.message).toMatch(/proof content marker does not appear/);

    const detail = (await poster.client.getJob({ params: { id: job.id } })).data;
    expect(detail).toMatchObject({
      status: "IN_PROGRESS",
      outputData: null,
      submittedAt: null,
      proofCheckStatus: null,
      proofCheckedAt: null,
      proofHash: null,
    });
    const history = await agent.client.listProofChecks({ params: { id: job.id } });
    expect(history.data.map((c) => [c.trigger, c.status])).toEqual([
      ["SUBMISSION", "MARKER_MISSING"],
      ["SUBMISSION", "HTTP_ERROR"],
      ["SUBMISSION", "ERROR_PAGE"],
      ["SUBMISSION", "LOGIN_REQUIRED"],
    ]);
    expect(history.data[3]).toMatchObject({ url: `${siteUrl}/login`, httpStatus: 200, contentSha256: null });
    // Each failed check is announced (proof.failed) to the agent and the poster, and nothing was submitted.
    const failed = (await eventsOf(job.id)).filter((e) => e.type === "proof.failed" || e.type === "job.submitted");
    expect(
      failed.map((e) => [e.type, (e.data as { status: string }).status, (e.data as { trigger: string }).trigger]),
    ).toEqual([
      ["proof.failed", "LOGIN_REQUIRED", "SUBMISSION"],
      ["proof.failed", "ERROR_PAGE", "SUBMISSION"],
      ["proof.failed", "HTTP_ERROR", "SUBMISSION"],
      ["proof.failed", "MARKER_MISSING", "SUBMISSION"],
    ]);
    expect(failed[0]!.recipient_ids).toEqual([agent.id, poster.id]);
  });

  it("a LIVE deliverable moves the job to REVIEW with submittedAt, the proof fields and the content hash", async () => {
    const { agent, job } = await assignedJob({ marker: MARKER });
    const deliverable = newPage();
    const res = await submit(job.id, agent.apiKey, deliverable.url);
    expect(res.status).toBe(200);
    const sha = createHash("sha256").update(GOOD, "utf8").digest("hex");
    expect(res.json.data).toMatchObject({
      status: "REVIEW",
      outputData: { url: deliverable.url },
      proofCheckStatus: "LIVE",
      proofCheckReason: null,
      proofHash: sha,
    });
    expect(Date.parse(res.json.data.submittedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(res.json.data.proofCheckedAt).not.toBeNull();
    const history = await agent.client.listProofChecks({ params: { id: job.id } });
    expect(history.data[0]).toMatchObject({
      trigger: "SUBMISSION",
      status: "LIVE",
      contentSha256: sha,
      finalUrl: deliverable.url,
    });
  });
});

describe("a bounty claim that lapses while its deliverable is probed", () => {
  it("is refused with CLAIM_EXPIRED and the job does not move to REVIEW", async () => {
    const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
    const job = (
      await poster.client.createJob({
        body: jobInput({
          budget: "40",
          participationMode: "BOUNTY",
          claimWindowMinutes: 5,
          inputData: { budgetType: "bid", proofHoldHours: 0 },
        }),
      })
    ).data;
    const { txHash } = await depositToEscrow({
      config: chain.config,
      privateKey: chain.accounts[PAYER]!.privateKey,
      escrowJobId: hexOf(job.escrowJobId),
      amount: parseUsdc("40"),
    });
    await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
    const agent = await newAgent(service, { walletAddress: AGENT_WALLET() });
    expect(
      (await service.http("POST", `/v1/jobs/${job.id}/claim`, { token: agent.apiKey, body: { agentId: agent.id } }))
        .status,
    ).toBe(200);

    // The deliverable answers only once the service's clock has passed the claim's end.
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const slow = http.createServer(async (_req, res) => {
      await answered;
      res.writeHead(200, { "content-type": "text/html" }).end(GOOD);
    });
    await new Promise<void>((r) => slow.listen(0, "127.0.0.1", r));
    const realNow = service.ctx.now;
    try {
      const pending = submit(job.id, agent.apiKey, `http://127.0.0.1:${(slow.address() as AddressInfo).port}/work`);
      await new Promise((r) => setTimeout(r, 300));
      service.ctx.now = () => new Date(Date.now() + 6 * 60_000);
      answer();
      const res = await pending;
      expect(res.status, JSON.stringify(res.json)).toBe(409);
      expect(res.json.code).toBe("CLAIM_EXPIRED");
    } finally {
      service.ctx.now = realNow;
      slow.close();
    }
    const row = await service.db
      .selectFrom("jobs")
      .select(["status", "submitted_at"])
      .where("id", "=", job.id)
      .executeTakeFirstOrThrow();
    expect(row.status).not.toBe("REVIEW");
    expect(row.submitted_at).toBeNull();
  });
});

describe("GET /v1/jobs/:id/proof-checks", () => {
  it("is for the poster and the assigned agent, newest first, by cursor", async () => {
    const { agent, poster, job, deliverable } = await submittedJob();
    await runProofRecheckRound(later(16 * 60_000), { only: [job.id] });
    await runProofRecheckRound(later(32 * 60_000), { only: [job.id] });
    const first = await poster.client.listProofChecks({ params: { id: job.id }, query: { limit: 2 } });
    expect(first.data.map((c) => c.trigger)).toEqual(["RECHECK", "RECHECK"]);
    expect(first.meta.hasMore).toBe(true);
    const rest = await poster.client.listProofChecks({
      params: { id: job.id },
      query: { limit: 2, cursor: first.meta.nextCursor! },
    });
    expect(rest.data.map((c) => c.trigger)).toEqual(["SUBMISSION"]);
    expect(rest.meta.nextCursor).toBeNull();
    expect(rest.data[0]!.url).toBe(deliverable.url);
    expect((await agent.client.listProofChecks({ params: { id: job.id } })).data).toHaveLength(3);
    const stranger = await newUser(service);
    expect((await service.http("GET", `/v1/jobs/${job.id}/proof-checks`, { token: stranger.token })).status).toBe(403);
    expect((await service.http("GET", `/v1/jobs/${job.id}/proof-checks`)).status).toBe(401);
  });
});

describe("the review queue", () => {
  it("rechecks a job in review once 15 minutes have passed, and records a deliverable that went bad", async () => {
    const a = await submittedJob();
    expect(await runProofRecheckRound(later(10 * 60_000), { only: [a.job.id] })).toBe(0);
    a.deliverable.set("gone", 404);
    expect(await runProofRecheckRound(later(16 * 60_000), { only: [a.job.id] })).toBe(1);
    expect(await runProofRecheckRound(later(20 * 60_000), { only: [a.job.id] })).toBe(0);
    const detail = await detailOf(a);
    expect(detail).toMatchObject({ status: "REVIEW", proofCheckStatus: "HTTP_ERROR" });
    expect(detail.proofCheckReason).toMatch(/404/);
  });
});

describe("POST /v1/jobs/:id/approve", () => {
  it("with no hold: a fresh check, then the agent's wallet gets the budget less 5% and the job is COMPLETED", async () => {
    const a = await submittedJob();
    expect((await approve(a.job.id, a.agent.apiKey)).status).toBe(403);
    const before = await walletBalance();
    const res = await a.poster.client.approveJob({ params: { id: a.job.id } });
    expect(res.data).toMatchObject({ status: "COMPLETED", autoApproved: false, releaseHeldReason: null });
    expect(res.data.completedAt).not.toBeNull();
    expect(res.data.approvedAt).not.toBeNull();
    expect(res.data.releaseTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await walletBalance()) - before).toBe((parseUsdc("40") * 95n) / 100n);
    expect(
      (
        await getEscrow({
          config: chain.config,
          escrowJobId: hexOf(a.job.escrowJobId),
          payer: chain.accounts[PAYER]!.address,
        })
      ).state,
    ).toBe("RELEASED");
    const checks = await a.poster.client.listProofChecks({ params: { id: a.job.id } });
    expect(checks.data.map((c) => c.trigger)).toEqual(["RELEASE", "APPROVAL", "SUBMISSION"]);
    // Announced along the way, each in the transaction of its change: job.paid with the confirmed figures.
    const events = await eventsOf(a.job.id);
    expect(events.map((e) => e.type).filter((type) => type !== "bid.created")).toEqual([
      "bid.accepted",
      "job.assigned",
      "job.submitted",
      "job.approved",
      "job.paid",
    ]);
    expect(events.at(-1)!.data).toMatchObject({
      jobId: a.job.id,
      agentId: a.agent.id,
      net: "38",
      fee: "2",
      txHash: res.data.releaseTxHash,
    });
    expect(events.at(-1)!.recipient_ids).toEqual([a.agent.id, a.poster.id]);
    expect(events.find((e) => e.type === "job.approved")!.data).toMatchObject({ automatic: false });

    // Approving again (a client repeating an approval that answered 503) answers the paid job and moves nothing.
    const again = await approve(a.job.id, a.poster.token);
    expect(again.status).toBe(200);
    expect(again.json.data).toMatchObject({ status: "COMPLETED", releaseTxHash: res.data.releaseTxHash });
    expect(
      (
        await service.http("POST", `/v1/jobs/${a.job.id}/dispute`, {
          token: a.poster.token,
          body: { reason: "changed my mind after all" },
        })
      ).status,
    ).toBe(409);
    expect(await walletBalance()).toBe(before + (parseUsdc("40") * 95n) / 100n);
  });

  it("accepts the approval while the agent has no wallet: the escrow waits, and pays once the agent sets one", async () => {
    const a = await submittedJob({ wallet: null });
    const res = await approve(a.job.id, a.poster.token);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data.status).toBe("REVIEW");
    expect(res.json.data.releaseHeldReason).toMatch(/waits in escrow.*walletAddress with PATCH \/v1\/agents\/:id/);
    expect((await detailOf(a)).approvedAt).not.toBeNull();
    const before = await walletBalance();
    await a.agent.client.updateAgent({ params: { id: a.agent.id }, body: { walletAddress: AGENT_WALLET() } });
    // Approving again (as the page's button does) releases what is due, once, whoever gets there first.
    await a.poster.client.approveJob({ params: { id: a.job.id } });
    for (let i = 0; i < 240 && (await detailOf(a)).status !== "COMPLETED"; i++)
      await new Promise((r) => setTimeout(r, 250));
    expect((await detailOf(a)).status).toBe("COMPLETED");
    expect((await walletBalance()) - before).toBe(parseUsdc("38"));
  });

  it("a deliverable that turned into a login page is refused at approval; the money stays held", async () => {
    const a = await submittedJob();
    a.deliverable.set(LOGIN);
    const res = await approve(a.job.id, a.poster.token);
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ code: "PROOF_CHECK_FAILED", proofCheckStatus: "LOGIN_REQUIRED" });
    expect(res.json.message).toMatch(/login/i);
    const detail = await detailOf(a);
    expect(detail).toMatchObject({
      status: "REVIEW",
      proofCheckStatus: "LOGIN_REQUIRED",
      approvedAt: null,
      releaseTxHash: null,
    });
    expect(detail.proofCheckReason).toMatch(/login/i);
    expect(
      (
        await getEscrow({
          config: chain.config,
          escrowJobId: hexOf(a.job.escrowJobId),
          payer: chain.accounts[PAYER]!.address,
        })
      ).state,
    ).toBe("FUNDED");
  });

  it("acceptance criteria with a failing machine check block approval (CRITERIA_NOT_MET)", async () => {
    const a = await submittedJob({
      criteria: [
        { description: "The deliverable answers 200", check: { type: "http_status", equals: 200 } },
        {
          description: "The API health page answers 200",
          check: { type: "http_status", url: `${siteUrl}/health-missing`, equals: 200 },
        },
      ],
    });
    const res = await approve(a.job.id, a.poster.token);
    expect(res.status).toBe(409);
    expect(res.json.code).toBe("CRITERIA_NOT_MET");
    expect(res.json.failing).toHaveLength(1);
    expect(res.json.failing[0]).toMatchObject({ description: "The API health page answers 200", status: "FAIL" });
    expect((await detailOf(a)).approvedAt).toBeNull();
  });

  it("with a proof hold: approval sets releaseAt; the worker releases after the hold and a fresh check, and holds the money while the check fails", async () => {
    const a = await submittedJob({ hold: 24 });
    const approved = (await a.poster.client.approveJob({ params: { id: a.job.id } })).data;
    expect(approved.status).toBe("REVIEW");
    expect(approved.approvedAt).not.toBeNull();
    expect(Date.parse(approved.releaseAt!)).toBe(Date.parse(approved.submittedAt!) + 24 * HOUR);
    expect(await runReleaseAndTimeouts(service.ctx, { only: [a.job.id] })).toMatchObject({ released: 0, held: 0 });
    expect((await detailOf(a)).status).toBe("REVIEW");

    // At the end of the hold the deliverable needs a login: the money stays, the reason is on the job.
    a.deliverable.set(LOGIN);
    const before = await walletBalance();
    expect(await runReleaseAndTimeouts(later(25 * HOUR), { only: [a.job.id] })).toMatchObject({ released: 0, held: 1 });
    const held = await detailOf(a);
    expect(held).toMatchObject({ status: "REVIEW", proofCheckStatus: "LOGIN_REQUIRED", releaseTxHash: null });
    expect(held.releaseHeldReason).toMatch(/check at release failed \(LOGIN_REQUIRED\)/);
    expect(await walletBalance()).toBe(before);

    // Fixed: the next round (after the retry interval) releases.
    a.deliverable.set(GOOD);
    expect(await runReleaseAndTimeouts(later(25 * HOUR + REVIEW_RETRY_MS / 2), { only: [a.job.id] })).toMatchObject({
      released: 0,
    });
    expect(await runReleaseAndTimeouts(later(25 * HOUR + REVIEW_RETRY_MS + 1000), { only: [a.job.id] })).toMatchObject({
      released: 1,
    });
    const done = await detailOf(a);
    expect(done).toMatchObject({ status: "COMPLETED", proofCheckStatus: "LIVE", releaseHeldReason: null });
    expect(done.releaseTxHash).toMatch(/^0x/);
    expect((await walletBalance()) - before).toBe(parseUsdc("38"));
    const checks = await a.poster.client.listProofChecks({ params: { id: a.job.id } });
    expect(checks.data.map((c) => `${c.trigger}:${c.status}`)).toEqual([
      "RELEASE:LIVE",
      "RELEASE:LOGIN_REQUIRED",
      "APPROVAL:LIVE",
      "SUBMISSION:LIVE",
    ]);
  });

  it("a held release waits longer after each attempt (1 minute, then 2), and a held job never takes a due one's place in a round", async () => {
    const held = await submittedJob({ hold: 1 });
    const due = await submittedJob({ hold: 1 });
    await held.poster.client.approveJob({ params: { id: held.job.id } });
    held.deliverable.set(LOGIN);
    const only = { only: [held.job.id] };
    const at = (ms: number) => later(2 * HOUR + ms);
    expect(await runReleaseAndTimeouts(at(0), only)).toMatchObject({ released: 0, held: 1 });
    // The first wait is a minute; the second is two.
    expect(await runReleaseAndTimeouts(at(30_000), only)).toMatchObject({ held: 0 });
    expect(await runReleaseAndTimeouts(at(61_000), only)).toMatchObject({ held: 1 });
    expect(await runReleaseAndTimeouts(at(61_000 + 90_000), only)).toMatchObject({ held: 0 });
    expect((await detailOf(held)).releaseHeldReason).toMatch(
      /check at release failed \(LOGIN_REQUIRED\).* Next attempt after \d{4}-\d\d-\d\dT/,
    );
    // A round of one, with the held job's wait over: the job approved later is released first.
    await due.poster.client.approveJob({ params: { id: due.job.id } });
    const round = await runReleaseAndTimeouts(at(61_000 + 121_000), { only: [held.job.id, due.job.id], batchSize: 1 });
    expect(round).toMatchObject({ released: 1, held: 0 });
    expect((await detailOf(due)).status).toBe("COMPLETED");
    expect((await detailOf(held)).status).toBe("REVIEW");
  });

  it("a release interrupted after sending (a crash before recording) is finished by the settlement worker; nothing moves twice", async () => {
    const a = await submittedJob();
    const before = await walletBalance();
    service.crashPoints.afterSettlementSend = () => {
      service.crashPoints.afterSettlementSend = undefined;
      throw new Error("simulated crash after sending the release");
    };
    expect((await approve(a.job.id, a.poster.token)).status).toBe(500);
    const paid = await walletBalance();
    expect(paid - before).toBe(parseUsdc("38"));
    const pending = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", a.job.id)
      .executeTakeFirstOrThrow();
    expect(pending).toMatchObject({ kind: "RELEASE", status: "PENDING", tx_hash: null });
    expect(pending.to_address?.toLowerCase()).toBe(AGENT_WALLET().toLowerCase());
    expect((await detailOf(a)).status).toBe("REVIEW");
    // The money is on its way: the job can no longer be disputed.
    const dispute = await service.http("POST", `/v1/jobs/${a.job.id}/dispute`, {
      token: a.poster.token,
      body: { reason: "trying to claw it back" },
    });
    expect(dispute.status).toBe(409);
    expect(dispute.json.code).toBe("SETTLEMENT_IN_PROGRESS");

    expect(await finishPendingSettlements(later(SETTLEMENT_LEASE_MS + 1000), { only: [a.job.id] })).toMatchObject({
      confirmed: 1,
    });
    const done = await detailOf(a);
    expect(done.status).toBe("COMPLETED");
    const row = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", a.job.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: "CONFIRMED",
      tx_hash: done.releaseTxHash,
      amount_units: "38000000",
      fee_units: "2000000",
    });

    // A second release or refund moves nothing.
    expect((await settleJob(service.ctx, a.job.id, "RELEASE", AGENT_WALLET())).tx_hash).toBe(done.releaseTxHash);
    await expect(settleJob(service.ctx, a.job.id, "REFUND")).rejects.toMatchObject({ code: "SETTLEMENT_CONFLICT" });
    expect(
      (
        await releaseEscrow({
          config: chain.config,
          escrowJobId: hexOf(a.job.escrowJobId),
          payer: chain.accounts[PAYER]!.address,
          to: AGENT_WALLET(),
        })
      ).alreadySettled,
    ).toBe(true);
    expect(await walletBalance()).toBe(paid);
    expect((await approve(a.job.id, a.poster.token)).json.data).toMatchObject({ status: "COMPLETED" });
    expect(await walletBalance()).toBe(paid);
  });
});

describe("timeouts", () => {
  it("a poster who never acts: LIVE work is approved automatically 72 hours after the hold and paid", async () => {
    const a = await submittedJob({ hold: 1 });
    expect(await runReleaseAndTimeouts(later(72 * HOUR), { only: [a.job.id] })).toMatchObject({ autoApproved: 0 });
    const before = await walletBalance();
    expect(await runReleaseAndTimeouts(later(73 * HOUR + 60_000), { only: [a.job.id] })).toMatchObject({
      autoApproved: 1,
    });
    const done = await detailOf(a);
    expect(done).toMatchObject({ status: "COMPLETED", autoApproved: true });
    expect((await walletBalance()) - before).toBe(parseUsdc("38"));
  });

  it("work whose last check failed is not approved automatically", async () => {
    const a = await submittedJob();
    a.deliverable.set("gone", 404);
    await runProofRecheckRound(later(20 * 60_000), { only: [a.job.id] });
    expect(await runReleaseAndTimeouts(later(100 * HOUR), { only: [a.job.id] })).toMatchObject({ autoApproved: 0 });
    expect(await detailOf(a)).toMatchObject({ status: "REVIEW", autoApproved: false, approvedAt: null });
  });

  it("disputes: the poster or the agent, from IN_PROGRESS or REVIEW; still counted as active; never refunded without a ruling", async () => {
    const a = await assignedJob();
    const stranger = await newAgent(service);
    expect(
      (
        await service.http("POST", `/v1/jobs/${a.job.id}/dispute`, {
          token: stranger.apiKey,
          body: { reason: "not my job at all" },
        })
      ).status,
    ).toBe(403);
    expect(
      (await service.http("POST", `/v1/jobs/${a.job.id}/dispute`, { token: a.agent.apiKey, body: { reason: "short" } }))
        .status,
    ).toBe(400);
    const res = await a.agent.client.disputeJob({
      params: { id: a.job.id },
      body: { reason: "the poster changed the scope" },
    });
    expect(res.data).toMatchObject({ status: "DISPUTED", disputeReason: "the poster changed the scope" });
    expect((await a.agent.client.getMyAgent({})).data.activeJobs).toBe(1);
    expect(
      (
        await service.http("POST", `/v1/jobs/${a.job.id}/dispute`, {
          token: a.poster.token,
          body: { reason: "and I dispute it too" },
        })
      ).json.code,
    ).toBe("INVALID_STATE");
    expect((await approve(a.job.id, a.poster.token)).json.code).toBe("INVALID_STATE");
    expect((await service.http("POST", `/v1/jobs/${a.job.id}/cancel`, { token: a.poster.token })).json.code).toBe(
      "INVALID_STATE",
    );

    // No silent refund any more: a dispute waits for its arbiter's ruling however long it takes.
    const payer = chain.accounts[PAYER]!.address;
    const before = await erc20BalanceOf({ config: chain.config, address: payer });
    await runReleaseAndTimeouts(later(30 * 24 * HOUR), { only: [a.job.id] });
    const detail = await detailOf(a);
    expect(detail).toMatchObject({ status: "DISPUTED", refundTxHash: null });
    expect(await erc20BalanceOf({ config: chain.config, address: payer })).toBe(before);
    expect((await a.agent.client.getMyAgent({})).data.activeJobs).toBe(1);
    const events = await eventsOf(a.job.id);
    expect(events.filter((e) => e.type === "job.disputed").map((e) => [e.actor_id, e.recipient_ids])).toEqual([
      [a.agent.id, [a.agent.id, a.poster.id]],
    ]);
    expect(events.filter((e) => e.type === "job.refunded")).toEqual([]);

    const b = await submittedJob();
    const byPoster = await b.poster.client.disputeJob({
      params: { id: b.job.id },
      body: { reason: "the leads are made up" },
    });
    expect(byPoster.data.status).toBe("DISPUTED");
  });
});

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))("the review queue on PostgreSQL", () => {
  it("a release's receipt recorded while another approval holds the job's row waits its turn: no deadlock, paid once", async () => {
    const a = await submittedJob();
    const before = await walletBalance();
    let otherApproval: Promise<void> | undefined;
    service.crashPoints.afterSettlementSend = (jobId) => {
      service.crashPoints.afterSettlementSend = undefined;
      // Another request's release transaction, as approve-job.ts takes it: the job's row first, then
      // its settlement (recorded once, ON CONFLICT DO NOTHING), once this receipt waits on a lock.
      let locked!: () => void;
      const jobLocked = new Promise<void>((resolve) => (locked = resolve));
      otherApproval = service.db.transaction().execute(async (trx) => {
        await trx.selectFrom("jobs").select("id").where("id", "=", jobId).forUpdate().execute();
        locked();
        for (let i = 0; i < 200; i++) {
          const waiting = await sql<{ n: number }>`
            select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(service.db);
          if (waiting.rows[0]!.n > 0) break;
          await new Promise((r) => setTimeout(r, 25));
        }
        await trx
          .insertInto("escrow_settlements")
          .values({ job_id: jobId, kind: "RELEASE", status: "PENDING", to_address: null })
          .onConflict((oc) => oc.column("job_id").doNothing())
          .execute();
      });
      return jobLocked;
    };
    const res = await approve(a.job.id, a.poster.token);
    await otherApproval;
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data.status).toBe("COMPLETED");
    expect((await walletBalance()) - before).toBe(parseUsdc("38"));
  });

  it("two workers running rounds at once check each of 100 due jobs exactly once", async () => {
    const poster = await newUser(service);
    const tag = Math.random().toString(36).slice(2, 10);
    const inserted = await sql<{ id: string }>`
      insert into jobs (poster_id, status, participation_mode, template_id, title, description, budget_usdc, input_data, output_data,
                        escrow_job_id, escrow_tx_hash, chain_id, token_symbol, token_address, payment_provider, submitted_at, proof_checked_at, proof_check_status)
      select ${poster.id}::uuid, 'REVIEW', 'BID', 'custom-v1', 'Queue job ' || g, 'queue test', 10,
             jsonb_build_object('budgetType', 'bid', 'proofHoldHours', 168, 'participationMode', 'BID', 'generalDescription', 'q', 'acceptanceCriteria', '[]'::jsonb, 'proofContentMarker', ${MARKER}::text),
             jsonb_build_object('url', ${siteUrl}::text || '/q/' || ${tag}::text || '-' || g),
             '0x' || md5(${tag}::text || g) || md5(g || ${tag}::text), '0x' || md5('tx' || ${tag}::text || g) || md5(${tag}::text || 'tx' || g),
             31337, 'USDC', '0x1111111111111111111111111111111111111111', 'ON_CHAIN_USDC', now() - interval '2 hours', now() - interval '1 hour', 'LIVE'
      from generate_series(1, 100) g
      returning id`.execute(service.db);
    const ids = inserted.rows.map((r) => r.id);
    expect(ids).toHaveLength(100);

    const worker = async () => {
      let total = 0;
      for (;;) {
        const n = await runProofRecheckRound(service.ctx, { batchSize: 20, only: ids });
        if (n === 0) return total;
        total += n;
      }
    };
    const [a, b] = await Promise.all([worker(), worker()]);
    expect(a + b).toBe(100);
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(0);

    const paths = [...hits.entries()].filter(([path]) => path.startsWith(`/q/${tag}-`));
    expect(paths).toHaveLength(100);
    expect(paths.every(([, count]) => count === 1)).toBe(true);
    const rows = await sql<{ n: number; jobs: number }>`
      select count(*)::int as n, count(distinct job_id)::int as jobs from proof_checks where job_id = any(${ids}::uuid[]) and trigger = 'RECHECK' and status = 'LIVE'`.execute(
      service.db,
    );
    expect(rows.rows[0]).toEqual({ n: 100, jobs: 100 });

    await sql`delete from proof_checks where job_id = any(${ids}::uuid[])`.execute(service.db);
    await sql`delete from jobs where id = any(${ids}::uuid[])`.execute(service.db);
  });
});
