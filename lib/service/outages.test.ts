import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { erc20BalanceOf, getEscrow } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import type { Worker } from "./context";
import { openDatabase, type DatabaseTimeouts, type Db } from "./db/connection";
import { runReleaseAndTimeouts } from "./deliverables/review-queue";
import { finishPendingSettlements } from "./escrow/settle-job";
import { decideDeposits, scanDeposits, sendStrayRefunds } from "./escrow/deposit-watch";
import { reconcileEscrow } from "./admin/reconcile-escrow";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "./testing/harness";
import { assignedPartsJob, partAction, startPartsSite, submitPart } from "./testing/parts-support";
import { balanceOf, randomAddress } from "./testing/rewards-support";
import { startTcpStallProxy, type TcpStallProxy } from "./testing/tcp-stall-proxy";
import { postgresLeadership, type WorkerLeadership } from "./worker-leadership";
import { startWorkers } from "./workers";

/**
 * PostgreSQL stops answering for 20 s in the middle of approvals and worker rounds (a stalling
 * proxy the test starts in front of it: sockets stay open, nothing comes back), then answers again.
 * Without a restart: no request answers 500 (a 503 SERVICE_UNAVAILABLE with Retry-After while the
 * database is away), every release is sent once and recorded once, and the workers run rounds
 * again. The timeouts are shortened here (production's are in README, "Configuration") so that
 * they fire inside the stall; the rules are the same.
 */
const FAST: DatabaseTimeouts = {
  statementTimeoutMs: 2_000,
  idleInTransactionTimeoutMs: 3_000,
  queryTimeoutMs: 3_000,
  connectionTimeoutMs: 5_000,
  keepAliveInitialDelayMs: 1_000,
};
const STALL_MS = 20_000;
/** Every settlement is recorded within this long after the database answers again. */
const RECOVERY_MS = 60_000;
const JOBS = 4;

/** Polls `done` until it holds; on timeout, says what did not happen and (`state`) where things stood. */
const until = async (
  done: () => Promise<boolean>,
  what: string,
  timeoutMs: number,
  state: () => Promise<unknown> = async () => null,
) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await done().catch(() => false))) {
    if (Date.now() > deadline)
      throw new Error(
        `${what} did not happen within ${timeoutMs} ms; state: ${JSON.stringify(await state().catch((e) => String(e)))}`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
};

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))("a database that stops answering for 20 s", () => {
  let chain: TestChain;
  let proxy: TcpStallProxy;
  let db: Db;
  let service: TestService;
  let site: http.Server;
  let siteUrl: string;
  let stopWorkers: (() => void) | undefined;
  let leadership: WorkerLeadership | undefined;

  beforeAll(async () => {
    const target = new URL(process.env.TEST_DATABASE_URL!);
    proxy = await startTcpStallProxy({ host: target.hostname, port: Number(target.port || 5432) });
    chain = await startTestChain({ chainId: 31363 });
    db = await openDatabase({
      databaseUrl: proxy.urlThrough(process.env.TEST_DATABASE_URL!),
      maxConnections: 10,
      timeouts: FAST,
    });
    service = await startTestService(
      { rateBudgets: GENEROUS_BUDGETS, chain: chain.config, probeAllowLoopback: true },
      { db },
    );
    site = http.createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<html><head><title>Leads</title></head><body><h1>Leads</h1><p>delivered ${req.url}</p></body></html>`);
    });
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    stopWorkers?.();
    await leadership?.close();
    proxy?.release();
    await service?.stop();
    await db?.destroy();
    await proxy?.close();
    await new Promise((r) => site?.close(r));
    await chain?.stop();
  });

  const hexOf = (wire: Record<string, number>) =>
    `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as `0x${string}`;

  async function jobInReview(poster: TestUser, wallet: string, n: number) {
    const job = (
      await poster.client.createJob({
        body: jobInput({
          budget: "40",
          title: `Outage job ${n} ${Date.now()}`,
          inputData: { budgetType: "bid", proofHoldHours: 0 },
        }),
      })
    ).data;
    const { txHash } = await depositToEscrow({
      config: chain.config,
      privateKey: chain.accounts[1]!.privateKey,
      escrowJobId: hexOf(job.escrowJobId),
      amount: parseUsdc("40"),
    });
    await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
    const agent = await newAgent(service, { walletAddress: wallet });
    const bid = (
      await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } })
    ).data;
    await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
    const submitted = await service.http("POST", `/v1/jobs/${job.id}/submit`, {
      token: agent.apiKey,
      body: { outputData: { url: `${siteUrl}/outage/${job.id}` } },
    });
    expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
    return job.id;
  }

  it("approvals and worker rounds across the stall: no 500, every release sent and recorded once, workers recover without a restart", async () => {
    const poster = await newUser(service, chain.accounts[1]!.privateKey);
    const wallet = chain.accounts[7]!.address;
    const jobIds: string[] = [];
    for (let n = 0; n < JOBS; n++) jobIds.push(await jobInReview(poster, wallet, n));
    const before = await erc20BalanceOf({ config: chain.config, address: wallet });

    // The real workers, sped up and limited to this test's jobs, led through the stalling proxy.
    leadership = postgresLeadership(proxy.urlThrough(process.env.TEST_DATABASE_URL!), { timeouts: FAST });
    const rounds = { settlements: 0 };
    const fast: Worker[] = [
      {
        name: "outage-settlements",
        everyMs: 500,
        run: async (ctx) => void (await finishPendingSettlements(ctx, { only: jobIds }), (rounds.settlements += 1)),
      },
      {
        name: "outage-review-release",
        everyMs: 500,
        run: async (ctx) => void (await runReleaseAndTimeouts(ctx, { only: jobIds })),
      },
    ];
    stopWorkers = startWorkers(service.ctx, fast, leadership, { roundDeadlineMs: 5_000 });

    // The database stalls the moment the first release has been sent, before its receipt is
    // recorded: the worst moment (money moved, the database does not know yet).
    let stalledAt = 0;
    service.crashPoints.afterSettlementSend = () => {
      if (stalledAt) return;
      stalledAt = Date.now();
      proxy.stall();
      setTimeout(() => proxy.release(), STALL_MS);
    };

    const answers: Array<{ status: number; json: any; retryAfter: string | null }> = [];
    const approveUntilAnswered = async (jobId: string) => {
      for (;;) {
        const res = await service.http("POST", `/v1/jobs/${jobId}/approve`, { token: poster.token });
        answers.push({ status: res.status, json: res.json, retryAfter: res.headers.get("retry-after") });
        if (res.status !== 503) return res;
        // The client does what the answer says: waits Retry-After, then repeats the same request.
        await new Promise((r) => setTimeout(r, Number(res.headers.get("retry-after")) * 1000));
      }
    };
    const finals = await Promise.all(jobIds.map((id) => approveUntilAnswered(id)));
    expect(stalledAt).toBeGreaterThan(0);
    const releasedAt = stalledAt + STALL_MS;

    // Never a 500: while the database was away the answer was 503 SERVICE_UNAVAILABLE with Retry-After.
    expect(
      answers.filter((a) => a.status >= 500 && a.status !== 503),
      JSON.stringify(answers.filter((a) => a.status !== 200 && a.status !== 503)),
    ).toEqual([]);
    for (const a of answers.filter((x) => x.status === 503)) {
      expect(a.json).toMatchObject({ statusCode: 503, code: "SERVICE_UNAVAILABLE", retryAfter: 5 });
      expect(a.retryAfter).toBe("5");
    }
    expect(answers.some((a) => a.status === 503)).toBe(true);
    // Each approval ends answered with the job: released, or with its release pending.
    for (const res of finals) {
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(["COMPLETED", "REVIEW"]).toContain(res.json.data.status);
    }

    // Every settlement completes exactly once, without a restart, within RECOVERY_MS of the release.
    await until(
      async () => {
        const rows = await service.db
          .selectFrom("escrow_settlements")
          .select("status")
          .where("job_id", "in", jobIds)
          .execute();
        return rows.length === JOBS && rows.every((r) => r.status === "CONFIRMED");
      },
      "every settlement CONFIRMED",
      Math.max(0, releasedAt + RECOVERY_MS - Date.now()),
      () =>
        service.db
          .selectFrom("escrow_settlements")
          .select(["job_id", "status", "tx_hash", "attempts", "lease_until", "last_error"])
          .where("job_id", "in", jobIds)
          .execute(),
    );
    stopWorkers();

    const settlements = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "in", jobIds)
      .execute();
    expect(settlements).toHaveLength(JOBS);
    expect(new Set(settlements.map((s) => s.tx_hash)).size).toBe(JOBS);
    const jobs = await service.db
      .selectFrom("jobs")
      .select(["id", "status", "release_tx_hash", "release_held_reason"])
      .where("id", "in", jobIds)
      .execute();
    for (const job of jobs)
      expect(job).toMatchObject({
        status: "COMPLETED",
        release_held_reason: null,
        release_tx_hash: settlements.find((s) => s.job_id === job.id)!.tx_hash,
      });
    // One job.paid per job: a receipt recorded twice would announce twice.
    const paid = await service.db
      .selectFrom("domain_events")
      .select("job_id")
      .where("type", "=", "job.paid")
      .where("job_id", "in", jobIds)
      .execute();
    expect(paid).toHaveLength(JOBS);
    // The chain agrees: each escrow released once, the agent paid 4 × 38 USDC (40 less the 5% fee), no more.
    for (const id of jobIds) {
      const row = await service.db
        .selectFrom("jobs")
        .select(["escrow_job_id", "escrow_payer"])
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      expect(
        (
          await getEscrow({
            config: chain.config,
            escrowJobId: row.escrow_job_id,
            payer: row.escrow_payer as `0x${string}`,
          })
        ).state,
      ).toBe("RELEASED");
    }
    expect((await erc20BalanceOf({ config: chain.config, address: wallet })) - before).toBe(
      parseUsdc("38") * BigInt(JOBS),
    );

    // The workers ran rounds again after the stall, in this process: no restart was needed.
    const heartbeat = await service.db
      .selectFrom("worker_heartbeats")
      .selectAll()
      .where("name", "=", "outage-settlements")
      .executeTakeFirstOrThrow();
    expect(heartbeat.last_run_at!.getTime()).toBeGreaterThan(releasedAt);
    expect(rounds.settlements).toBeGreaterThan(0);
  }, 150_000);

  it("a part's release sent just before the database stalls is recorded as soon as it answers, by the sender itself, as a whole job's is (no worker round, no lease to wait out)", async () => {
    const PART_STALL_MS = 8_000;
    const wallet = chain.accounts[6]!.address;
    const job = await assignedPartsJob(service, chain, { payer: 1, amounts: ["6", "4"], agentWallet: wallet });
    const partsSite = await startPartsSite();
    onTestFinished(() => partsSite.close());
    await submitPart(service, job, 1, partsSite.url);
    const before = await erc20BalanceOf({ config: chain.config, address: wallet });
    let stalledAt = 0;
    service.crashPoints.afterPartSettlementSend = () => {
      if (stalledAt) return;
      stalledAt = Date.now();
      proxy.stall();
      setTimeout(() => proxy.release(), PART_STALL_MS);
    };
    const answers: number[] = [];
    for (;;) {
      const res = await partAction(service, job, 1, "approve", job.poster.token);
      answers.push(res.status);
      if (res.status !== 503) break;
      await new Promise((r) => setTimeout(r, Number(res.headers.get("retry-after")) * 1000));
    }
    service.crashPoints.afterPartSettlementSend = undefined;
    expect(stalledAt).toBeGreaterThan(0);
    expect(answers.at(-1)).toBe(200);
    expect(answers.filter((status) => status >= 500 && status !== 503)).toEqual([]);
    // No worker settles parts here: only the sender's own retries can record the receipt, within
    // seconds of the database answering (the lease it holds runs five minutes).
    const settlement = () =>
      service.db
        .selectFrom("milestone_settlements")
        .select(["status", "tx_hash", "attempts"])
        .where("job_id", "=", job.jobId)
        .executeTakeFirst();
    await until(
      async () => (await settlement())?.status === "CONFIRMED",
      "the part's settlement CONFIRMED",
      Math.max(0, stalledAt + PART_STALL_MS + 20_000 - Date.now()),
      settlement,
    );
    expect(await settlement()).toMatchObject({ status: "CONFIRMED", attempts: 1 });
    const paid = await service.db
      .selectFrom("domain_events")
      .select("id")
      .where("type", "=", "milestone.paid")
      .where("job_id", "=", job.jobId)
      .execute();
    expect(paid).toHaveLength(1);
    expect((await erc20BalanceOf({ config: chain.config, address: wallet })) - before).toBe(parseUsdc("5.7"));
  }, 90_000);

  it("a withdrawal sent just before the database stalls is recorded as soon as it answers, by the sender itself, as a settlement's is (no worker round, no lease to wait out)", async () => {
    const WITHDRAWAL_STALL_MS = 8_000;
    const owner = await newUser(service);
    await service.db
      .insertInto("wallet_ledger")
      .values({ owner_user_id: owner.id, kind: "REWARD_CREDIT", direction: "CREDIT", amount_usdc: "2", memo: "test" })
      .execute();
    const to = randomAddress();
    let stalledAt = 0;
    service.crashPoints.afterWithdrawalSend = () => {
      if (stalledAt) return;
      stalledAt = Date.now();
      proxy.stall();
      setTimeout(() => proxy.release(), WITHDRAWAL_STALL_MS);
    };
    // One request, never retried (a retry without a key would be a second withdrawal): whatever it
    // answers while the database is away, it is not a 500.
    const answer = await service.http("POST", "/v1/wallet/withdrawals", {
      token: owner.token,
      body: { toAddress: to, amountUsdc: "1.5" },
    });
    service.crashPoints.afterWithdrawalSend = undefined;
    expect(stalledAt).toBeGreaterThan(0);
    expect([201, 503], JSON.stringify(answer.json)).toContain(answer.status);
    expect(await balanceOf(chain.config, to)).toBe(parseUsdc("1.5"));
    // No worker finishes withdrawals here: only the sender's own retries can record the receipt,
    // within seconds of the database answering (the lease it holds runs five minutes).
    const withdrawal = () =>
      service.db
        .selectFrom("wallet_withdrawals")
        .select(["status", "attempts"])
        .where("owner_user_id", "=", owner.id)
        .executeTakeFirst();
    await until(
      async () => (await withdrawal())?.status === "CONFIRMED",
      "the withdrawal CONFIRMED",
      Math.max(0, stalledAt + WITHDRAWAL_STALL_MS + 20_000 - Date.now()),
      withdrawal,
    );
    expect(await withdrawal()).toMatchObject({ status: "CONFIRMED", attempts: 1 });
    const shown = await service.http("GET", "/v1/wallet", { token: owner.token });
    expect(shown.json.data).toMatchObject({ balanceUsdc: "0.5", pendingWithdrawalUsdc: "0" });
    expect(await balanceOf(chain.config, to)).toBe(parseUsdc("1.5"));
  }, 90_000);

  it("a stray deposit's refund sent just before the database stalls is recorded as soon as it answers, by the sender itself, as a settlement's is (no second round, no lease to wait out)", async () => {
    // Fails on the old code: its stray refunds had no receipt retry, so the row waited out its lease.
    const STRAY_STALL_MS = 8_000;
    const payer = chain.accounts[5]!;
    const poster = await newUser(service, payer.privateKey);
    const job = (await poster.client.createJob({ body: jobInput({ budget: "3" }) })).data;
    await poster.client.cancelJob({ params: { id: job.id } });
    const escrowJobId = hexOf(job.escrowJobId);
    const before = await erc20BalanceOf({ config: chain.config, address: payer.address });
    await depositToEscrow({ config: chain.config, privateKey: payer.privateKey, escrowJobId, amount: parseUsdc("3") });
    const only = { onlyEscrowJobIds: [escrowJobId] };
    await scanDeposits(service.ctx, chain.config, only);
    expect(await decideDeposits(service.ctx, chain.config, only)).toBe(1);
    let stalledAt = 0;
    service.crashPoints.afterStrayRefundSend = () => {
      if (stalledAt) return;
      stalledAt = Date.now();
      proxy.stall();
      setTimeout(() => proxy.release(), STRAY_STALL_MS);
    };
    try {
      const [sent] = await sendStrayRefunds(service.ctx, chain.config, only);
      expect(sent?.status).toBe("REFUND_PENDING");
    } finally {
      service.crashPoints.afterStrayRefundSend = undefined;
    }
    expect(stalledAt).toBeGreaterThan(0);
    expect(await erc20BalanceOf({ config: chain.config, address: payer.address })).toBe(before);
    const stray = () =>
      service.db
        .selectFrom("escrow_deposits")
        .select(["status", "attempts", "refund_tx_hash", "sent_tx_hash"])
        .where("escrow_job_id", "=", escrowJobId.toLowerCase())
        .executeTakeFirst();
    await until(
      async () => (await stray())?.status === "REFUNDED",
      "the stray deposit REFUNDED",
      Math.max(0, stalledAt + STRAY_STALL_MS + 20_000 - Date.now()),
      stray,
    );
    const refunded = await stray();
    expect(refunded).toMatchObject({ status: "REFUNDED", attempts: 1 });
    expect(refunded!.refund_tx_hash).toBe(refunded!.sent_tx_hash);
    const told = await service.db
      .selectFrom("domain_events")
      .select("id")
      .where("type", "=", "escrow.deposit_refunded")
      .where("job_id", "=", job.id)
      .execute();
    expect(told).toHaveLength(1);
    const reconciled = await reconcileEscrow(service.ctx);
    expect(reconciled.differences.filter((d) => d.jobId === job.id)).toEqual([]);
  }, 90_000);

  it("job creation while the database does not answer: 503 SERVICE_UNAVAILABLE with Retry-After, then 201 once it answers, without a restart", async () => {
    const poster = await newUser(service);
    proxy.stall();
    let during: Awaited<ReturnType<TestService["http"]>>;
    try {
      during = await service.http("POST", "/v1/jobs", {
        token: poster.token,
        body: jobInput({ title: `Outage creation ${Date.now()}` }),
      });
    } finally {
      proxy.release();
    }
    expect(during.status, JSON.stringify(during.json)).toBe(503);
    expect(during.json).toMatchObject({ statusCode: 503, code: "SERVICE_UNAVAILABLE", retryAfter: 5 });
    expect(during.headers.get("retry-after")).toBe("5");
    await until(
      async () =>
        (
          await service.http("POST", "/v1/jobs", {
            token: poster.token,
            body: jobInput({ title: `Outage creation after ${Date.now()}` }),
          })
        ).status === 201,
      "a job created after the stall",
      15_000,
    );
  }, 60_000);
});
