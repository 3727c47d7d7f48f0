import { chainFailureReason } from "@/lib/chain/escrow/errors";
import { sql } from "kysely";
import { createPublicClient, http } from "viem";
import type { z } from "zod";
import type {
  ChainHealth,
  DatabaseHealth,
  DatabaseWithReplicasHealth,
  Health,
  MoneyHealth,
  Readiness,
  WorkerHealth,
  WorkersHealth,
} from "@/lib/api/schemas/ops";
import type { ChainConfig } from "@/lib/chain/config";
import type { ServiceContext } from "../context";
import { chainKeyOf } from "../rewards/amounts";
import type { Worker } from "../context";

/** One answer per instance per this long, shared by every caller: probes cost nothing more however often they come. */
export const HEALTH_CACHE_MS = 2_000;
const DATABASE_TIMEOUT_MS = 1_000;
const CHAIN_TIMEOUT_MS = 2_000;
/** An outgoing transfer not confirmed this long after it was asked for is stuck. */
export const STUCK_AFTER_MS = 15 * 60_000;
/** A reconciliation older than this is not reported (null): the worker runs every 10 minutes. */
const RECONCILIATION_FRESH_MS = 86_400_000;
/** A worker is late after missing this many rounds… */
export const LATE_AFTER_ROUNDS = 5;
/** …plus this: a round may wait up to 180 s for a chain receipt (lib/chain), during which it records nothing. */
export const ROUND_GRACE_MS = 180_000;

type Cache<T> = WeakMap<ServiceContext, { at: number; answer: Promise<T> }>;
const healthCache: Cache<Health> = new WeakMap();
const readinessCache: Cache<Readiness> = new WeakMap();

/** The shared answer of the last HEALTH_CACHE_MS for this instance, or a fresh one. */
function shared<T>(cache: Cache<T>, ctx: ServiceContext, compute: () => Promise<T>): Promise<T> {
  const cached = cache.get(ctx);
  if (cached && Date.now() - cached.at < HEALTH_CACHE_MS) return cached.answer;
  const answer = compute();
  cache.set(ctx, { at: Date.now(), answer });
  return answer;
}

/**
 * GET /v1/health: the whole deployment (database, chain, every worker, money), for monitors.
 * `workers` is the service's list (lib/service/workers.ts), handed down by the app: that list
 * reaches every domain, so this one does not import it.
 */
export function checkHealth(ctx: ServiceContext, workers: Worker[]): Promise<Health> {
  return shared(healthCache, ctx, () => computeHealth(ctx, workers));
}

/**
 * GET /v1/health/ready: this instance alone, for the load balancer. Only what differs between
 * instances decides it (its own database connection); the chain and the workers are shared by every
 * instance, so failing the probe on them would take all of them out together.
 */
export function checkReadiness(ctx: ServiceContext): Promise<Readiness> {
  return shared(readinessCache, ctx, async () => {
    const database = await checkDatabase(ctx);
    return { status: database.ok ? "ok" : "down", checkedAt: ctx.now().toISOString(), database };
  });
}

async function computeHealth(ctx: ServiceContext, workers: Worker[]): Promise<Health> {
  const [database, chain] = await Promise.all([
    twice(() => checkDatabase(ctx)),
    twice(() => checkChain(ctx.config.chain)),
  ]);
  // Heartbeats live in the database: with it down, the workers' state is unknown, not fine.
  const workersPart = database.ok
    ? await checkWorkers(ctx, workers).catch((error): z.infer<typeof WorkersHealth> => ({
        ok: false,
        detail: `heartbeats unreadable: ${messageOf(error)}`,
        workers: [],
      }))
    : { ok: false, detail: "unknown: the database is down", workers: [] };
  const money = database.ok
    ? await checkMoney(ctx).catch((error): z.infer<typeof MoneyHealth> => ({
        ...UNKNOWN_MONEY,
        detail: `unreadable: ${messageOf(error)}`,
      }))
    : { ...UNKNOWN_MONEY, detail: "unknown: the database is down" };
  const up = database.ok && chain.ok && workersPart.ok;
  return {
    status: !up ? "down" : money.ok ? "ok" : "degraded",
    checkedAt: ctx.now().toISOString(),
    database: withReplicas(ctx, database),
    chain,
    workers: workersPart,
    money,
  };
}

/** A part is down only when its probe fails twice in a row: one lost reply is not an outage. */
async function twice<T extends { ok: boolean }>(probe: () => Promise<T>): Promise<T> {
  const first = await probe();
  return first.ok ? first : probe();
}

const UNKNOWN_MONEY: z.infer<typeof MoneyHealth> = {
  ok: false,
  detail: "",
  failedSettlements: 0,
  stuck: { settlements: 0, partSettlements: 0, withdrawals: 0, packPayouts: 0, rewardFunding: 0, x402Payments: 0 },
  reconciliationDifferences: null,
  reconciledAt: null,
};

/**
 * The money the service moves on this chain: FAILED escrow settlements, outgoing transfers not
 * confirmed STUCK_AFTER_MS after they were asked for, and the newest reconciliation's differences.
 * Counts read the unfinished rows only (each kind has a partial index on them).
 */
async function checkMoney(ctx: ServiceContext): Promise<z.infer<typeof MoneyHealth>> {
  const chain = ctx.config.chain;
  if (!chain) return { ...UNKNOWN_MONEY, ok: true, detail: "no payment chain is configured: no money moves" };
  const before = new Date(ctx.now().getTime() - STUCK_AFTER_MS);
  const count = sql<string>`count(*)`.as("n");
  const [failed, failedParts, settlements, parts, withdrawals, payouts, funding, x402, run] = await Promise.all([
    ctx.db
      .selectFrom("escrow_settlements as s")
      .innerJoin("jobs as j", "j.id", "s.job_id")
      .select(count)
      .where("s.status", "=", "FAILED")
      .where("j.chain_id", "=", chain.chainId)
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom("milestone_settlements as s")
      .innerJoin("jobs as j", "j.id", "s.job_id")
      .select(count)
      .where("s.status", "=", "FAILED")
      .where("j.chain_id", "=", chain.chainId)
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom("escrow_settlements as s")
      .innerJoin("jobs as j", "j.id", "s.job_id")
      .select(count)
      .where("s.status", "=", "PENDING")
      .where("s.created_at", "<", before)
      .where("j.chain_id", "=", chain.chainId)
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom("milestone_settlements as s")
      .innerJoin("jobs as j", "j.id", "s.job_id")
      .select(count)
      .where("s.status", "=", "PENDING")
      .where("s.created_at", "<", before)
      .where("j.chain_id", "=", chain.chainId)
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom("wallet_withdrawals")
      .select(count)
      .where("status", "=", "PENDING")
      .where("created_at", "<", before)
      .where("chain_key", "=", chainKeyOf(chain))
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom("eval_pack_payouts")
      .select(count)
      .where("status", "<>", "CONFIRMED")
      .where("created_at", "<", before)
      .where((eb) => eb.or([eb("chain_id", "is", null), eb("chain_id", "=", chain.chainId)]))
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom("forum_reward_slots")
      .select(count)
      .where("fund_status", "=", "PENDING")
      .where("last_error", "is not", null)
      .where("chain_key", "=", chainKeyOf(chain))
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom("x402_payments")
      .select(count)
      // Sent (its transaction kept) and not settled yet.
      .where("status", "=", "PENDING")
      .where("sent_tx_hash", "is not", null)
      .where("created_at", "<", before)
      .where("network", "=", `eip155:${chain.chainId}`)
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom("reconciliation_runs")
      .select(["differences", "checked_at"])
      .where("chain_id", "=", chain.chainId)
      .where("checked_at", ">", new Date(ctx.now().getTime() - RECONCILIATION_FRESH_MS))
      .orderBy("checked_at", "desc")
      .limit(1)
      .executeTakeFirst(),
  ]);
  const stuck = {
    settlements: Number(settlements.n),
    partSettlements: Number(parts.n),
    withdrawals: Number(withdrawals.n),
    packPayouts: Number(payouts.n),
    rewardFunding: Number(funding.n),
    x402Payments: Number(x402.n),
  };
  const failedSettlements = Number(failed.n) + Number(failedParts.n);
  const reconciliationDifferences = run ? run.differences : null;
  const problems: string[] = [];
  if (failedSettlements > 0) problems.push(`${failedSettlements} escrow settlement(s) FAILED`);
  const stuckText = Object.entries(stuck)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}`);
  if (stuckText.length > 0)
    problems.push(`not confirmed after ${STUCK_AFTER_MS / 60_000} minutes: ${stuckText.join(", ")}`);
  if (reconciliationDifferences)
    problems.push(
      `the reconciliation of ${run!.checked_at.toISOString()} found ${reconciliationDifferences} difference(s) (GET /v1/admin/reconciliation)`,
    );
  return {
    ok: problems.length === 0,
    detail:
      problems.length === 0
        ? `no failed settlement, no stuck transfer${run ? ", the last reconciliation found no difference" : ""}`
        : problems.join("; "),
    failedSettlements,
    stuck,
    reconciliationDifferences,
    reconciledAt: run?.checked_at.toISOString() ?? null,
  };
}

/** The replicas as the last position check found them (db/replicas.ts checks every REPLICA_CHECK_MS). */
function withReplicas(
  ctx: ServiceContext,
  database: z.infer<typeof DatabaseHealth>,
): z.infer<typeof DatabaseWithReplicasHealth> {
  const replicas = ctx.replicas;
  if (!replicas) return { ...database, replicas: [] };
  const maxLagMs = replicas.options.maxLagMs;
  const states = replicas.states();
  const serving = states.filter((r) => r.serving).length;
  const detail = `${database.detail}; ${serving} of ${states.length} read replica(s) serving${serving < states.length ? " (the others' reads go to the primary)" : ""}`;
  return {
    ...database,
    detail,
    replicas: states.map((r) => ({
      ok: r.serving,
      detail: r.detail,
      name: r.name,
      lagMs: r.lagMs,
      maxLagMs,
      serving: r.serving,
    })),
  };
}

async function checkDatabase(ctx: ServiceContext): Promise<z.infer<typeof DatabaseHealth>> {
  const started = Date.now();
  try {
    await withTimeout(DATABASE_TIMEOUT_MS, sql`select 1`.execute(ctx.db));
    const latencyMs = Date.now() - started;
    return { ok: true, detail: `select 1 answered in ${latencyMs} ms`, latencyMs };
  } catch (error) {
    return { ok: false, detail: `select 1 failed: ${messageOf(error)}`, latencyMs: null };
  }
}

// A client of its own per RPC URL: a short timeout and no retries of its own (the probe is tried
// twice, see twice()), so a probe never waits on the 20 s, 3-attempt client the payment code uses.
const probeClients = new Map<string, ReturnType<typeof createPublicClient>>();

async function checkChain(chain: ChainConfig | null): Promise<z.infer<typeof ChainHealth>> {
  if (!chain) {
    return {
      ok: true,
      configured: false,
      detail: "no payment chain is configured: job creation answers 503 CHAIN_UNAVAILABLE",
      chainId: null,
      blockNumber: null,
      latencyMs: null,
    };
  }
  let client = probeClients.get(chain.rpcUrl);
  if (!client) {
    client = createPublicClient({ transport: http(chain.rpcUrl, { timeout: CHAIN_TIMEOUT_MS, retryCount: 0 }) });
    probeClients.set(chain.rpcUrl, client);
  }
  const base = { configured: true, chainId: chain.chainId };
  const started = Date.now();
  try {
    const [blockNumber, chainId] = await withTimeout(
      CHAIN_TIMEOUT_MS,
      Promise.all([client.getBlockNumber({ cacheTime: 0 }), client.getChainId()]),
    );
    const latencyMs = Date.now() - started;
    if (chainId !== chain.chainId) {
      return {
        ...base,
        ok: false,
        detail: `the RPC serves chain ${chainId}, not the configured chain ${chain.chainId}`,
        blockNumber: blockNumber.toString(),
        latencyMs,
      };
    }
    return {
      ...base,
      ok: true,
      detail: `block ${blockNumber} on chain ${chainId}, read in ${latencyMs} ms`,
      blockNumber: blockNumber.toString(),
      latencyMs,
    };
  } catch (error) {
    return {
      ...base,
      ok: false,
      detail: `the RPC did not answer: ${chainFailureReason(error)}`,
      blockNumber: null,
      latencyMs: null,
    };
  }
}

async function checkWorkers(ctx: ServiceContext, workers: Worker[]): Promise<z.infer<typeof WorkersHealth>> {
  const rows = await ctx.db
    .selectFrom("worker_heartbeats")
    .selectAll()
    .where(
      "name",
      "in",
      workers.map((w) => w.name),
    )
    .execute();
  // Lag by the database's clock, the one every instance shares: an instance whose own clock runs
  // ahead must not call the others' fresh rounds late (a heartbeat written by such an instance reads
  // as just now, not as late, until the skew is mended).
  const now = (await sql<{ now: Date }>`select now() as now`.execute(ctx.db)).rows[0]!.now.getTime();
  const items: Array<z.infer<typeof WorkerHealth>> = workers.map((worker) => {
    const row = rows.find((r) => r.name === worker.name);
    const lateAfterMs = LATE_AFTER_ROUNDS * worker.everyMs + ROUND_GRACE_MS;
    // A (re)start gives a worker its rounds' worth of time again: count from whichever came last.
    const since = row ? new Date(Math.max(row.last_run_at?.getTime() ?? 0, row.started_at.getTime())) : null;
    const lagMs = since ? Math.max(0, now - since.getTime()) : null;
    return {
      name: worker.name,
      everyMs: worker.everyMs,
      lateAfterMs,
      startedAt: row?.started_at.toISOString() ?? null,
      lastRunAt: row?.last_run_at?.toISOString() ?? null,
      lagMs,
      late: lagMs === null || lagMs > lateAfterMs,
      lastError: row?.last_error ?? null,
      lastErrorAt: row?.last_error_at?.toISOString() ?? null,
    };
  });
  const late = items.filter((w) => w.late);
  const detail =
    late.length === 0
      ? `${items.length} workers ran within their limits`
      : late
          .map((w) =>
            w.lagMs === null
              ? `${w.name}: never started by any instance (WORKERS=off everywhere?)`
              : `${w.name}: no successful round for ${Math.round(w.lagMs / 1000)} s${w.lastError ? ` (last error: ${w.lastError})` : ""}`,
          )
          .join("; ");
  return { ok: late.length === 0, detail, workers: items };
}

function withTimeout<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function messageOf(error: unknown): string {
  const text =
    error instanceof Error
      ? ((error as Error & { shortMessage?: string }).shortMessage ?? error.message)
      : String(error);
  return text.split("\n")[0]!.slice(0, 300);
}
