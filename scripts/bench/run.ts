// `npm run bench`: the job board under load. A child process seeds 100,000 jobs and serves the
// real /v1 service (scripts/bench/jobs-server.ts; rate budgets still counted in the database, only
// raised so the load is not refused); this process offers GET /v1/jobs at a fixed rate with
// autocannon: the first page and a page 5,000 pages deep, on PGlite and on PostgreSQL. Targets
// (issue 2): p99 under 50 ms at 500 requests a second on PostgreSQL; the deep page at most 1.5
// times the first. The load generator runs in its own process so that it does not share the
// service's event loop (it did once, and doubled the latencies it measured).
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import autocannon from "autocannon";
import pg from "pg";

const RATE = Number(process.env.BENCH_RATE || 500);
const DURATION = Number(process.env.BENCH_SECONDS || 10);
const PAGE = 20;
const PG_URL = process.env.BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/awm_bench";
let DEEP_PAGES = 5000;

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

/** Starts scripts/bench/jobs-server.ts on a database and waits for its ready line. */
async function startServer(db: string): Promise<{ child: ChildProcess; base: string; deepCursor: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.resolve("scripts/bench/jobs-server.ts")], {
    env: { ...process.env, BENCH_DB: db, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const ready = await new Promise<{ port: number; deepCursor: string; deepPages: number }>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
    lines.once("line", (line) => resolve(JSON.parse(line)));
  });
  DEEP_PAGES = ready.deepPages;
  return { child, base: `http://127.0.0.1:${ready.port}`, deepCursor: ready.deepCursor };
}

async function benchDatabase(name: string, db: string) {
  console.log(`\n${name}`);
  const { child, base, deepCursor } = await startServer(db);
  try {
    // Warm up caches and the JIT before measuring.
    for (let i = 0; i < 200; i++) await fetch(`${base}/v1/jobs?limit=${PAGE}`).then((r) => r.arrayBuffer());
    const first = await load(`${base}/v1/jobs?limit=${PAGE}`);
    const deep = await load(`${base}/v1/jobs?limit=${PAGE}&cursor=${deepCursor}`);
    return { first, deep };
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
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
  console.log(`benchmark on ${os.cpus().length} cores: ${process.env.BENCH_JOBS || 100_000} jobs, limit ${PAGE}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "awm-bench-"));
  const pgliteResult = await benchDatabase("PGlite", `pglite:${dir}`);
  rmSync(dir, { recursive: true, force: true });
  report("PGlite", pgliteResult);

  const admin = new pg.Client({ connectionString: PG_URL.replace(/\/[^/]+$/, "/postgres") });
  await admin.connect();
  const dbName = new URL(PG_URL).pathname.slice(1);
  const exists = await admin.query("select 1 from pg_database where datname = $1", [dbName]);
  if (exists.rowCount === 0) await admin.query(`create database "${dbName}"`);
  await admin.end();
  const pgResult = await benchDatabase("PostgreSQL", `postgres:${PG_URL}`);
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
