// `npm run bench`: the job board under load. Seeds 100,000 jobs, serves the real /v1 service (rate
// budgets still counted in the database, only raised so the load is not refused), and offers
// GET /v1/jobs at a fixed rate with autocannon: the first page and a page 5,000 pages deep, on
// PGlite and on PostgreSQL. Targets (issue 2): p99 under 50 ms at 500 requests a second on
// PostgreSQL; the deep page at most 1.5 times the first.
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import autocannon from "autocannon";
import pg from "pg";
import { sql } from "kysely";
import { serve } from "@hono/node-server";
import { createServiceApp } from "@/lib/service/app";
import { defaultServiceConfig } from "@/lib/service/config";
import { openDatabase, type Db } from "@/lib/service/db/connection";
import { encodeCursor } from "@/lib/service/http/pagination";
import { OFFLINE_CHAIN } from "@/lib/service/testing/harness";

const JOBS = Number(process.env.BENCH_JOBS || 100_000);
const RATE = Number(process.env.BENCH_RATE || 500);
const DURATION = Number(process.env.BENCH_SECONDS || 10);
const PAGE = 20;
const DEEP_PAGES = Math.min(5000, Math.floor(JOBS / PAGE) - 1);
const PG_URL = process.env.BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/awm_bench";

async function seed(db: Db) {
  const existing = await db.selectFrom("jobs").select(sql<number>`count(*)::int`.as("n")).executeTakeFirstOrThrow();
  if (existing.n >= JOBS) return;
  const principal = await db.insertInto("principals").values({ kind: "USER", display_name: "Bench poster" }).returning("id").executeTakeFirstOrThrow();
  const started = Date.now();
  // In SQL, in batches: seeding through the API would take longer than the measurement.
  for (let done = existing.n; done < JOBS; done += 10_000) {
    const n = Math.min(10_000, JOBS - done);
    await sql`
      insert into jobs (poster_id, status, participation_mode, template_id, title, description, budget_usdc, input_data,
                        escrow_job_id, chain_id, token_symbol, token_address, payment_provider, acceptance_criteria, created_at)
      select ${principal.id}::uuid, 'OPEN', 'BID', 'custom-v1', 'Bench job ' || g, 'A job created by the benchmark to fill the board.',
             (10 + g % 90)::numeric,
             '{"budgetType":"bid","proofHoldHours":168,"participationMode":"BID","generalDescription":"bench","acceptanceCriteria":[{"description":"done"}]}'::jsonb,
             '0x' || lpad(to_hex(g), 64, '0') || '', 31337, 'USDC', '0x1111111111111111111111111111111111111111', 'ON_CHAIN_USDC',
             '[{"id":"ac-1","check":{"type":"manual"},"description":"done"}]'::jsonb,
             now() - (g || ' seconds')::interval
      from generate_series(${done + 1}::int, ${done + n}::int) g`.execute(db);
  }
  await sql`analyze jobs`.execute(db);
  console.log(`  seeded ${JOBS} jobs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function deepCursor(db: Db): Promise<string> {
  // Only the benchmark computes a position by OFFSET, once, to know where page 5,000 starts.
  const row = await sql<{ created_at: Date; id: string }>`
    select created_at, id from jobs order by created_at desc, id desc offset ${DEEP_PAGES * PAGE - 1} limit 1`.execute(db);
  const last = row.rows[0]!;
  return encodeCursor({ k: last.created_at.toISOString(), id: last.id });
}

interface Result {
  p50: number;
  p99: number;
  rps: number;
  errors: number;
}

async function load(url: string): Promise<Result> {
  const result = await autocannon({ url, connections: 50, overallRate: RATE, duration: DURATION, headers: { accept: "application/json" } });
  return {
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: result.requests.average,
    errors: result.errors + result.non2xx,
  };
}

async function benchDatabase(name: string, db: Db) {
  console.log(`\n${name}`);
  await seed(db);
  const ctx = { db, config: defaultServiceConfig({ chain: OFFLINE_CHAIN, rateBudgets: { publicReadsPerMinute: 1e9, authReadsPerMinute: 1e9, writesPerMinute: 1e9 } }), now: () => new Date() };
  const app = createServiceApp(ctx);
  const server = serve({ fetch: (req) => app.fetch(req, { clientIp: "127.0.0.1" }), port: 0, hostname: "127.0.0.1" });
  await new Promise((r) => server.once("listening", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const cursor = await deepCursor(db);
  // Warm up caches and the JIT before measuring.
  for (let i = 0; i < 200; i++) await fetch(`${base}/v1/jobs?limit=${PAGE}`).then((r) => r.arrayBuffer());
  const first = await load(`${base}/v1/jobs?limit=${PAGE}`);
  const deep = await load(`${base}/v1/jobs?limit=${PAGE}&cursor=${cursor}`);
  await new Promise((r) => server.close(r));
  return { first, deep };
}

function report(name: string, r: { first: Result; deep: Result }) {
  const row = (label: string, x: Result) =>
    `  ${label.padEnd(22)} p50 ${x.p50.toFixed(1).padStart(7)} ms   p99 ${x.p99.toFixed(1).padStart(7)} ms   ${x.rps.toFixed(0).padStart(5)} req/s   errors ${x.errors}`;
  console.log(`\n${name}: GET /v1/jobs at ${RATE} req/s offered for ${DURATION} s`);
  console.log(row("first page", r.first));
  console.log(row(`page ${DEEP_PAGES} deep`, r.deep));
  console.log(`  deep/first p50 ratio ${(r.deep.p50 / Math.max(r.first.p50, 0.01)).toFixed(2)} (target ≤ 1.5)`);
}

async function main() {
  console.log(`benchmark on ${os.cpus().length} cores: ${JOBS} jobs, limit ${PAGE}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "awm-bench-"));
  const pglite = await openDatabase({ dataDir: dir });
  const pgliteResult = await benchDatabase("PGlite", pglite);
  await pglite.destroy();
  rmSync(dir, { recursive: true, force: true });
  report("PGlite", pgliteResult);

  const admin = new pg.Client({ connectionString: PG_URL.replace(/\/[^/]+$/, "/postgres") });
  await admin.connect();
  const dbName = new URL(PG_URL).pathname.slice(1);
  const exists = await admin.query("select 1 from pg_database where datname = $1", [dbName]);
  if (exists.rowCount === 0) await admin.query(`create database "${dbName}"`);
  await admin.end();
  const postgres = await openDatabase({ databaseUrl: PG_URL, maxConnections: 20 });
  const pgResult = await benchDatabase("PostgreSQL", postgres);
  await postgres.destroy();
  report("PostgreSQL", pgResult);
  const met = pgResult.first.p99 < 50 && pgResult.deep.p99 < 50 && pgResult.first.rps >= RATE * 0.95;
  console.log(`\nPostgreSQL target p99 < 50 ms at ${RATE} req/s: ${met ? "MET" : "MISSED"}`);
  const ratio = pgResult.deep.p50 / Math.max(pgResult.first.p50, 0.01);
  console.log(`Deep page at most 1.5× the first (PostgreSQL p50): ${ratio <= 1.5 ? "MET" : "MISSED"} (${ratio.toFixed(2)}×)`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
