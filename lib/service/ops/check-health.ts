import { sql } from "kysely";
import { createPublicClient, http } from "viem";
import type { z } from "zod";
import type { ChainHealth, DatabaseHealth, Health, Readiness, WorkerHealth, WorkersHealth } from "@/lib/api/schemas/ops";
import type { ChainConfig } from "@/lib/chain/config";
import type { ServiceContext } from "../context";
import { workers as registeredWorkers } from "../workers";
import type { Worker } from "../context";

/** One answer per instance per this long, shared by every caller: probes cost nothing more however often they come. */
export const HEALTH_CACHE_MS = 2_000;
const DATABASE_TIMEOUT_MS = 1_000;
const CHAIN_TIMEOUT_MS = 2_000;
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

/** GET /v1/health: the whole deployment (database, chain, every worker), for monitors. */
export function checkHealth(ctx: ServiceContext): Promise<Health> {
  return shared(healthCache, ctx, () => computeHealth(ctx));
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

async function computeHealth(ctx: ServiceContext, workers: Worker[] = registeredWorkers): Promise<Health> {
  const [database, chain] = await Promise.all([checkDatabase(ctx), checkChain(ctx.config.chain)]);
  // Heartbeats live in the database: with it down, the workers' state is unknown, not fine.
  const workersPart = database.ok
    ? await checkWorkers(ctx, workers).catch((error): z.infer<typeof WorkersHealth> => ({ ok: false, detail: `heartbeats unreadable: ${messageOf(error)}`, workers: [] }))
    : { ok: false, detail: "unknown: the database is down", workers: [] };
  const ok = database.ok && chain.ok && workersPart.ok;
  return { status: ok ? "ok" : "down", checkedAt: ctx.now().toISOString(), database, chain, workers: workersPart };
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

// A client of its own per RPC URL: a short timeout and no retries, so a probe never waits on the
// 20 s, 3-attempt client the payment code uses.
const probeClients = new Map<string, ReturnType<typeof createPublicClient>>();

async function checkChain(chain: ChainConfig | null): Promise<z.infer<typeof ChainHealth>> {
  if (!chain) {
    return { ok: true, configured: false, detail: "no payment chain is configured: job creation answers 503 CHAIN_UNAVAILABLE", chainId: null, blockNumber: null, latencyMs: null };
  }
  let client = probeClients.get(chain.rpcUrl);
  if (!client) {
    client = createPublicClient({ transport: http(chain.rpcUrl, { timeout: CHAIN_TIMEOUT_MS, retryCount: 0 }) });
    probeClients.set(chain.rpcUrl, client);
  }
  const base = { configured: true, chainId: chain.chainId };
  const started = Date.now();
  try {
    const [blockNumber, chainId] = await withTimeout(CHAIN_TIMEOUT_MS, Promise.all([client.getBlockNumber({ cacheTime: 0 }), client.getChainId()]));
    const latencyMs = Date.now() - started;
    if (chainId !== chain.chainId) {
      return { ...base, ok: false, detail: `the RPC serves chain ${chainId}, not the configured chain ${chain.chainId}`, blockNumber: blockNumber.toString(), latencyMs };
    }
    return { ...base, ok: true, detail: `block ${blockNumber} on chain ${chainId}, read in ${latencyMs} ms`, blockNumber: blockNumber.toString(), latencyMs };
  } catch (error) {
    return { ...base, ok: false, detail: `the RPC did not answer: ${messageOf(error)}`, blockNumber: null, latencyMs: null };
  }
}

async function checkWorkers(ctx: ServiceContext, workers: Worker[]): Promise<z.infer<typeof WorkersHealth>> {
  const rows = await ctx.db.selectFrom("worker_heartbeats").selectAll().where("name", "in", workers.map((w) => w.name)).execute();
  const now = ctx.now().getTime();
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
      : late.map((w) => (w.lagMs === null ? `${w.name}: never started by any instance (WORKERS=off everywhere?)` : `${w.name}: no successful round for ${Math.round(w.lagMs / 1000)} s${w.lastError ? ` (last error: ${w.lastError})` : ""}`)).join("; ");
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
  const text = error instanceof Error ? (error as Error & { shortMessage?: string }).shortMessage ?? error.message : String(error);
  return text.split("\n")[0]!.slice(0, 300);
}
