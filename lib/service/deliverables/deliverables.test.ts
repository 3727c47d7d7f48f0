import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { depositToEscrow, erc20BalanceOf } from "@/lib/chain/escrow";
import { parseUsdc } from "@/lib/chain/units";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { GENEROUS_BUDGETS, jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import { runProofRecheckRound, runReleaseAndTimeouts } from "./review-queue";

let chain: TestChain;
let service: TestService;
let site: http.Server;
let siteUrl: string;
const hits = new Map<string, number>();
const pages: Record<string, { status?: number; body: string }> = {
  "/good": { body: "<html><head><title>Leads</title></head><body><h1>50 fintech leads</h1><p>proof-marker-7f3a</p></body></html>" },
  "/no-marker": { body: "<html><head><title>Leads</title></head><body><h1>50 fintech leads</h1></body></html>" },
  "/login": { body: '<html><head><title>Sign in</title></head><body><form><input type="password" name="p"></form></body></html>' },
  "/soft-404": { body: "<html><head><title>Page not found</title></head><body><h1>404</h1></body></html>" },
};
const toggle = { body: pages["/good"]!.body };

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config, probeAllowLoopback: true });
  site = http.createServer((req, res) => {
    const path = req.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const page = path === "/toggle" ? toggle : path.startsWith("/q/") ? { body: `<html><body><p>queue ${path} proof-marker-7f3a</p></body></html>` } : pages[path];
    res.writeHead(page ? (page as { status?: number }).status ?? 200 : 404, { "content-type": "text/html" });
    res.end(page?.body ?? "not found");
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  site?.close();
  await service?.stop();
  await chain?.stop();
});

const hexOf = (wire: Record<string, number>) => `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}`;
const AGENT_WALLET = () => chain.accounts[6]!.address;

async function assignedJob(options: { funded?: boolean; hold?: number; marker?: string } = {}) {
  const poster = await newUser(service, chain.accounts[1]!.privateKey);
  const job = (
    await poster.client.createJob({
      body: jobInput({ budget: "40", inputData: { budgetType: "bid", proofHoldHours: options.hold ?? 0, ...(options.marker ? { proofContentMarker: options.marker } : {}) } }),
    })
  ).data;
  if (options.funded ?? true) {
    const { txHash } = await depositToEscrow({ config: chain.config, privateKey: chain.accounts[1]!.privateKey, escrowJobId: hexOf(job.escrowJobId), amount: parseUsdc("40") });
    await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  }
  const agent = await newAgent(service, { walletAddress: AGENT_WALLET() });
  const bid = (await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } })).data;
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
  return { poster, agent, job };
}

const submit = (jobId: string, token: string, url: string) => service.http("POST", `/v1/jobs/${jobId}/submit`, { token, body: { outputData: { url } } });

describe("POST /v1/jobs/:id/submit", () => {
  it("an unfunded job answers JOB_NOT_FUNDED; only the assigned agent submits", async () => {
    const { agent, job } = await assignedJob({ funded: false });
    const res = await submit(job.id, agent.apiKey, `${siteUrl}/good`);
    expect(res.status).toBe(409);
    expect(res.json.code).toBe("JOB_NOT_FUNDED");
    const funded = await assignedJob();
    const stranger = await newAgent(service);
    expect((await submit(funded.job.id, stranger.apiKey, `${siteUrl}/good`)).status).toBe(403);
  });

  it("a login page, an error page behind 200 and a missing marker fail with the reason; the job stays IN_PROGRESS", async () => {
    const { agent, poster, job } = await assignedJob({ marker: "proof-marker-7f3a" });
    const login = await submit(job.id, agent.apiKey, `${siteUrl}/login`);
    expect(login.status).toBe(422);
    expect(login.json).toMatchObject({ code: "PROOF_CHECK_FAILED", proofCheckStatus: "LOGIN_REQUIRED" });
    const soft404 = await submit(job.id, agent.apiKey, `${siteUrl}/soft-404`);
    expect(soft404.json.proofCheckStatus).toBe("ERROR_PAGE");
    const noMarker = await submit(job.id, agent.apiKey, `${siteUrl}/no-marker`);
    expect(noMarker.json.proofCheckStatus).toBe("MARKER_MISSING");
    expect(noMarker.json.message).toMatch(/marker/i);
    const detail = (await poster.client.getJob({ params: { id: job.id } })).data;
    expect(detail).toMatchObject({ status: "IN_PROGRESS", proofCheckStatus: "MARKER_MISSING" });
    expect(detail.proofCheckReason).toMatch(/marker/i);
    const history = await poster.client.listProofChecks({ params: { id: job.id } });
    expect(history.data.map((c) => c.status)).toEqual(["MARKER_MISSING", "ERROR_PAGE", "LOGIN_REQUIRED"]);
  });

  it("a live deliverable moves the job to REVIEW with submittedAt", async () => {
    const { agent, job } = await assignedJob({ marker: "proof-marker-7f3a" });
    const res = await submit(job.id, agent.apiKey, `${siteUrl}/good`);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ status: "REVIEW", outputData: { url: `${siteUrl}/good` }, proofCheckStatus: "LIVE" });
    expect(res.json.data.submittedAt).not.toBeNull();
  });
});

describe("approval and release", () => {
  it("approval with no hold releases the budget less the fee to the agent's wallet", async () => {
    const { agent, poster, job } = await assignedJob();
    await submit(job.id, agent.apiKey, `${siteUrl}/good`);
    expect((await service.http("POST", `/v1/jobs/${job.id}/approve`, { token: agent.apiKey })).status).toBe(403);
    const before = await erc20BalanceOf({ config: chain.config, address: AGENT_WALLET() });
    const res = await poster.client.approveJob({ params: { id: job.id } });
    expect(res.data.status).toBe("COMPLETED");
    expect(res.data.completedAt).not.toBeNull();
    expect(res.data.releaseTxHash).toMatch(/^0x/);
    const after = await erc20BalanceOf({ config: chain.config, address: AGENT_WALLET() });
    expect(after - before).toBe(parseUsdc("38"));
  });

  it("a deliverable that turned into a login page is refused at approval and the money stays held", async () => {
    const { agent, poster, job } = await assignedJob();
    toggle.body = pages["/good"]!.body;
    await submit(job.id, agent.apiKey, `${siteUrl}/toggle`);
    toggle.body = pages["/login"]!.body;
    const res = await service.http("POST", `/v1/jobs/${job.id}/approve`, { token: poster.token });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe("PROOF_CHECK_FAILED");
    const detail = (await poster.client.getJob({ params: { id: job.id } })).data;
    expect(detail).toMatchObject({ status: "REVIEW", proofCheckStatus: "LOGIN_REQUIRED", releaseTxHash: null });
    toggle.body = pages["/good"]!.body;
  });

  it("with a proof hold, approval schedules the release, which happens after the hold and a fresh check", async () => {
    const { agent, poster, job } = await assignedJob({ hold: 24 });
    await submit(job.id, agent.apiKey, `${siteUrl}/good`);
    const approved = await poster.client.approveJob({ params: { id: job.id } });
    expect(approved.data.status).toBe("REVIEW");
    expect(Date.parse(approved.data.releaseAt!)).toBeGreaterThan(Date.now() + 23 * 3600_000);
    await runReleaseAndTimeouts(service.ctx);
    expect((await poster.client.getJob({ params: { id: job.id } })).data.status).toBe("REVIEW");

    const realNow = service.ctx.now;
    service.ctx.now = () => new Date(Date.now() + 25 * 3600_000);
    try {
      await runReleaseAndTimeouts(service.ctx);
    } finally {
      service.ctx.now = realNow;
    }
    const done = (await poster.client.getJob({ params: { id: job.id } })).data;
    expect(done.status).toBe("COMPLETED");
    const checks = await poster.client.listProofChecks({ params: { id: job.id } });
    expect(checks.data[0]!.trigger).toBe("RELEASE");
  });

  it("disputes: poster or agent, from IN_PROGRESS or REVIEW; an unresolved dispute is refunded after 14 days", async () => {
    const { agent, poster, job } = await assignedJob();
    const stranger = await newAgent(service);
    expect((await service.http("POST", `/v1/jobs/${job.id}/dispute`, { token: stranger.apiKey, body: { reason: "not my job at all" } })).status).toBe(403);
    const res = await agent.client.disputeJob({ params: { id: job.id }, body: { reason: "the poster changed the scope" } });
    expect(res.data.status).toBe("DISPUTED");
    expect((await agent.client.getMyAgent({})).data.activeJobs).toBe(1);
    const before = await erc20BalanceOf({ config: chain.config, address: poster.address });
    const realNow = service.ctx.now;
    service.ctx.now = () => new Date(Date.now() + 15 * 24 * 3600_000);
    try {
      await runReleaseAndTimeouts(service.ctx);
    } finally {
      service.ctx.now = realNow;
    }
    const detail = (await poster.client.getJob({ params: { id: job.id } })).data;
    expect(detail.status).toBe("CANCELLED");
    expect(detail.refundTxHash).toMatch(/^0x/);
    expect((await erc20BalanceOf({ config: chain.config, address: poster.address })) - before).toBe(parseUsdc("40"));
  });
});

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))("the review queue on PostgreSQL", () => {
  it("two workers at once check each of 100 jobs in review exactly once per round", async () => {
    const poster = await newUser(service);
    const tag = Math.random().toString(36).slice(2, 8);
    await sql`
      insert into jobs (poster_id, status, participation_mode, template_id, title, description, budget_usdc, input_data, output_data,
                        escrow_job_id, escrow_tx_hash, chain_id, token_symbol, token_address, payment_provider, submitted_at, proof_checked_at)
      select ${poster.id}::uuid, 'REVIEW', 'BID', 'custom-v1', 'Queue job ' || g, 'queue test', 10,
             '{"budgetType":"bid","proofHoldHours":168,"participationMode":"BID","generalDescription":"q","acceptanceCriteria":[]}'::jsonb,
             jsonb_build_object('url', ${siteUrl} || '/q/' || ${tag} || '-' || g),
             '0x' || md5(${tag} || g) || md5(g || ${tag}), '0x' || md5('tx' || ${tag} || g) || md5(${tag} || 'tx' || g),
             31337, 'USDC', '0x1111111111111111111111111111111111111111', 'ON_CHAIN_USDC', now(), now() - interval '1 hour'
      from generate_series(1, 100) g`.execute(service.db);
    // Only these 100 are due: everything else in review was checked recently.
    await sql`update jobs set proof_checked_at = now() where status = 'REVIEW' and title not like 'Queue job %'`.execute(service.db);

    const worker = async () => {
      let total = 0;
      for (;;) {
        const n = await runProofRecheckRound(service.ctx, { batchSize: 20 });
        total += n;
        if (n === 0) return total;
      }
    };
    const [a, b] = await Promise.all([worker(), worker()]);
    expect(a + b).toBe(100);
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(0);
    const paths = [...hits.entries()].filter(([path]) => path.startsWith(`/q/${tag}-`));
    expect(paths).toHaveLength(100);
    expect(paths.every(([, count]) => count === 1)).toBe(true);
    const rows = await sql<{ n: number }>`select count(*)::int as n from proof_checks pc join jobs j on j.id = pc.job_id where j.title like 'Queue job %' and pc.url like ${`%/q/${tag}-%`}`.execute(service.db);
    expect(rows.rows[0]!.n).toBe(100);
  });
});
