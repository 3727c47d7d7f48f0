// `npm run bench`: the API as users get it, beside what the hardware gives, on PostgreSQL and PGlite.
//
// - The app: the production build served by scripts/server.mjs exactly as `npm start` and production
//   run it (one process per core on PostgreSQL, WEB_CONCURRENCY to choose; one on PGlite), /v1
//   answered by server.mjs itself once the build's service is loaded (lib/net/service-handler.mjs).
//   Rate budgets are counted as always, only raised so that one load generator is not refused (RATE_LIMIT_SCALE); the background workers are off (WORKERS=off)
//   so their rounds do not land inside a measurement.
// - The raw baseline (scripts/bench/raw-server.mjs): node:http and the driver, the board's first-page
//   query, rows written as JSON. Same data, same machine.
// - The load generator (scripts/bench/load.mjs) runs in its own process: autocannon for saturation,
//   evenly spaced arrivals for a rate (latency from each request's due time; load.mjs says why not
//   autocannon's rate mode).
//
// Data: 100,000 jobs and a 500-reply forum thread (scripts/bench/seed.ts), reused between runs:
// PostgreSQL in BENCH_DATABASE_URL (default awm_bench on 127.0.0.1:5432, created when missing),
// PGlite under BENCH_PGLITE_DIR (default .data-bench). Everything listens on loopback, free ports.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { openDatabase } from "@/lib/service/db/connection";
import { measureFirstLoadJs } from "@/e2e/fixtures/page-weight";
import { freePort, startAppServer, type AppServer } from "../stack";
import { ensureBuild } from "../build-cache";
import { RARE_SEARCH_TERM, SEARCH_TERM, seedBench, type BenchData } from "./seed";

const JOBS = Number(process.env.BENCH_JOBS || 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const PG_URL = process.env.BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/awm_bench";
const PGLITE_DIR = path.resolve(process.env.BENCH_PGLITE_DIR || ".data-bench");
const CONNECTIONS = 50;
/** Searches of every breadth over the seeded jobs (scripts/bench/seed.ts). */
const SEARCHES: Array<[string, string]> = [
  [`"${SEARCH_TERM}" (2% of jobs)`, SEARCH_TERM],
  [`"${RARE_SEARCH_TERM}" (1 job)`, RARE_SEARCH_TERM],
  [`"work" (every job)`, "work"],
];

interface Load {
  p50: number;
  p99: number;
  rps: number;
  total: number;
  errors: number;
  non2xx: number;
}

type Target = { met: boolean; text: string };
const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  console.log(line);
};

/** The load generator in its own process; `rate` offers that many requests a second, evenly spaced; without it, saturation. */
function load(url: string, rate?: number, seconds = SECONDS, accept = "application/json", connections = CONNECTIONS): Promise<Load> {
  const options = { url, connections, duration: seconds, headers: { accept }, ...(rate ? { overallRate: rate } : {}) };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.resolve("scripts/bench/load.mjs"), JSON.stringify(options)], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout!.on("data", (chunk) => (out += chunk));
    child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load generator exited with ${code}`))));
  });
}

async function startRaw(db: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [path.resolve("scripts/bench/raw-server.mjs")], { env: { ...process.env, RAW_DB: db }, stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`raw server exited with ${code}`)));
    createInterface({ input: child.stdout! }).once("line", resolve);
  });
  return { child, url: `http://127.0.0.1:${JSON.parse(line).port}/` };
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });

/** n requests before a line is measured, each on a new connection, so every app process (the cluster deals connections round robin) is warm. */
async function warm(url: string, n = 100, accept = "application/json") {
  for (let i = 0; i < n; i++) await fetch(url, { headers: { accept, connection: "close" } }).then((r) => r.arrayBuffer());
}

const ms = (x: number) => `${x.toFixed(1).padStart(6)} ms`;
/** A line of figures; then a target marked MET or MISSED, or a plain note where there is no target. */
const row = (label: string, x: Load, target?: Target | string) =>
  `  ${label.padEnd(44)} p50 ${ms(x.p50)}  p99 ${ms(x.p99)}  ${x.rps.toFixed(0).padStart(5)} req/s${x.errors + x.non2xx ? `  errors ${x.errors} non-2xx ${x.non2xx}` : ""}${
    typeof target === "string" ? `   ${target}` : target ? `   ${target.text}: ${target.met ? "MET" : "MISSED"}` : ""
  }`;

async function benchDatabase(distDir: string, name: "PostgreSQL" | "PGlite", data: BenchData, appEnv: Record<string, string>, rawDb: string, rate: number, p99Target: number) {
  const results: Target[] = [];
  const mark = (t: Target) => (results.push(t), t);
  say(`\n${name}: ${data.jobs} jobs; load ${CONNECTIONS} connections, ${SECONDS} s per line; offered ${rate} req/s where a rate is shown (evenly spaced arrivals)`);

  // The raw baseline first, alone (PGlite's directory can be opened by one process at a time).
  const raw = await startRaw(rawDb);
  let rawSat: Load, rawRate: Load;
  try {
    await warm(raw.url);
    rawSat = await load(raw.url);
    rawRate = await load(raw.url, rate);
  } finally {
    await stop(raw.child);
  }

  const port = await freePort();
  const server: AppServer = await startAppServer({
    port,
    distDir,
    quiet: true,
    env: {
      ...appEnv,
      WORKERS: "off",
      RATE_LIMIT_SCALE: "10000000",
      SITE_URL: `http://127.0.0.1:${port}`,
    },
    // BENCH_CPU_PROF=<dir>: every app process writes a V8 CPU profile there when it stops
    // (summarise with scripts/bench/profile-summary.mjs).
    nodeArgs: process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [],
  });
  try {
    const processes = name === "PostgreSQL" ? Number(process.env.WEB_CONCURRENCY || os.availableParallelism()) : 1;
    const v1 = `${server.url}/v1`;
    const first = `${v1}/jobs?limit=20`;
    await warm(first, 200);
    const appSat = await load(first);
    const appRate = await load(first, rate);
    const ratio = appSat.rps / rawSat.rps;
    say(`  GET /v1/jobs (the anonymous first page), ${processes} app process${processes > 1 ? "es" : ""}:`);
    say(row("raw node:http + driver, saturation", rawSat));
    say(row("app (npm start / production), saturation", appSat, name === "PostgreSQL" ? mark({ met: ratio >= 0.6, text: `${ratio.toFixed(2)}× raw (target ≥ 0.6×)` }) : `${ratio.toFixed(2)}× raw (no target)`));
    say(row(`raw at ${rate} req/s`, rawRate));
    say(row(`app at ${rate} req/s`, appRate, mark({ met: appRate.p99 < p99Target && appRate.non2xx + appRate.errors === 0, text: `p99 < ${p99Target} ms` })));

    // The same first page through the keyset path, which nothing caches: what a query of its own costs.
    const viaCursor = `${v1}/jobs?limit=20&cursor=${data.firstCursor}`;
    const deepUrl = `${v1}/jobs?limit=20&cursor=${data.deepCursor}`;
    await warm(viaCursor, 50);
    await warm(deepUrl, 50);
    const topSat = await load(viaCursor);
    say(row("first page by cursor (not cached), saturation", topSat, `${(topSat.rps / rawSat.rps).toFixed(2)}× raw (no target: the raw server runs one query, the app two)`));
    const top = await load(viaCursor, rate);
    const deep = await load(deepUrl, rate);
    const deepRatio = deep.p50 / Math.max(top.p50, 0.01);
    say(row(`first page by cursor (not cached) at ${rate}`, top));
    say(row(`page ${data.deepPages} deep at ${rate}`, deep, mark({ met: deepRatio <= 1.5 && deep.p99 < p99Target, text: `${deepRatio.toFixed(2)}× the first p50 (target ≤ 1.5×), p99 < ${p99Target} ms` })));

    // Searches start at the top of the relevance order by cursor, so the shared cache never answers them.
    const searchFrom = (q: string) => `${v1}/jobs?limit=20&q=${encodeURIComponent(q)}&cursor=${data.firstSearchCursor}`;
    const searchUrl = searchFrom(SEARCH_TERM);
    const detailUrl = `${v1}/jobs/${data.jobId}/public`;
    const forumUrl = `${v1}/forum/threads?limit=20`;
    for (const [label, url] of [["job detail (public)", detailUrl], ["forum list", forumUrl]] as const) {
      await warm(url, 50);
      const r = await load(url, rate);
      say(row(`${label} at ${rate}`, r, mark({ met: r.p99 < p99Target && r.non2xx + r.errors === 0, text: `p99 < ${p99Target} ms` })));
    }
    // A search costs the database a ranked index scan (~15 ms for 2,000 matches): its capacity is
    // printed at saturation, and its latency under load at a fifth of the board's rate (a rate above
    // capacity only measures a queue that grows for as long as the line runs).
    const searchLabel = `search q="${SEARCH_TERM}" (2% of jobs, not cached)`;
    await warm(searchUrl, 50);
    const searchSat = await load(searchUrl);
    say(row(`${searchLabel}, saturation`, searchSat, "(no target: its capacity)"));
    const searchRate = Math.max(10, rate / 5);
    const searchLoad = await load(searchUrl, searchRate);
    say(row(`${searchLabel} at ${searchRate}`, searchLoad, mark({ met: searchLoad.p99 < p99Target && searchLoad.non2xx + searchLoad.errors === 0, text: `p99 < ${p99Target} ms` })));

    // What one searcher waits for: one client, one request at a time, on an otherwise idle server,
    // for searches of every breadth (a word in 2% of the jobs, a rare one, one in every job).
    for (const [label, q] of SEARCHES) {
      const url = searchFrom(q);
      await warm(url, 20);
      const r = await load(url, undefined, Math.min(SECONDS, 5), "application/json", 1);
      say(row(`search ${label}, one client`, r, mark({ met: r.p99 < 50 && r.non2xx + r.errors === 0, text: "p99 < 50 ms" })));
    }

    // The thread page is HTML rendered by React on the server: a tenth of the API's rate.
    const threadUrl = `${server.url}/forum/${data.threadSlug}`;
    await warm(threadUrl, 20, "text/html");
    const thread = await load(threadUrl, Math.max(10, rate / 10), SECONDS, "text/html");
    say(row(`thread page, 500 replies (HTML) at ${Math.max(10, rate / 10)}`, thread, mark({ met: thread.p50 < 150 && thread.non2xx + thread.errors === 0, text: "p50 < 150 ms" })));

    if (name === "PostgreSQL") {
      const empty = await measureFirstLoadJs(`${server.url}/empty`);
      const page = await measureFirstLoadJs(threadUrl);
      const extra = (page.totalGzipBytes - empty.totalGzipBytes) / 1000;
      say(`  thread page first-load JavaScript: +${extra.toFixed(1)} kB gzip over /empty (${(empty.totalGzipBytes / 1000).toFixed(1)} kB)   target ≤ 15 kB: ${mark({ met: extra <= 15, text: "" }).met ? "MET" : "MISSED"}`);
    }
  } finally {
    await server.stop();
  }
  return results;
}

async function main() {
  // The PGlite half must not inherit a PostgreSQL from the caller's environment.
  delete process.env.DATABASE_URL;
  // Built once, before anything is measured: a later change of the sources does not rebuild midway.
  const distDir = ensureBuild([process.env.BENCH_DIST_DIR || ".next-bench"]);
  say(`benchmark on ${os.availableParallelism()} cores (${os.loadavg()[0]!.toFixed(1)} load average at start: other work on this machine shares them)`);

  // PostgreSQL: a database of its own, created when missing, seeded once.
  const admin = new pg.Client({ connectionString: PG_URL.replace(/\/[^/]+$/, "/postgres") });
  await admin.connect();
  const dbName = new URL(PG_URL).pathname.slice(1);
  const exists = await admin.query("select 1 from pg_database where datname = $1", [dbName]);
  if (exists.rowCount === 0) await admin.query(`create database "${dbName}"`);
  await admin.end();
  const pgDb = await openDatabase({ databaseUrl: PG_URL, maxConnections: 2 });
  const pgData = await seedBench(pgDb, JOBS, console.log);
  await pgDb.destroy();
  const pgResults = await benchDatabase(distDir, "PostgreSQL", pgData, { DATABASE_URL: PG_URL }, PG_URL, Number(process.env.BENCH_RATE || 500), 50);

  const liteDb = await openDatabase({ dataDir: PGLITE_DIR });
  const liteData = await seedBench(liteDb, JOBS, console.log);
  await liteDb.destroy();
  const liteResults = await benchDatabase(distDir, "PGlite", liteData, { DATA_DIR: PGLITE_DIR }, `pglite:${PGLITE_DIR}`, Number(process.env.BENCH_PGLITE_RATE || 200), 100);

  const all = [...pgResults, ...liteResults];
  say(`\ntargets: ${all.filter((t) => t.met).length} of ${all.length} met`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
