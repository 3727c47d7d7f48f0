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
// Data: 100,000 jobs (half funded), 40 agents with a key each and a 500-reply forum thread
// (scripts/bench/seed.ts), reused between runs: PostgreSQL in BENCH_DATABASE_URL (default awm_bench
// on 127.0.0.1:5432, created when missing), PGlite under BENCH_PGLITE_DIR (default .data-bench).
// Everything listens on loopback, free ports.
//
// Lines: the anonymous board (board), the agents' poll and its conditional form (polling), bids
// (writes), searches (search), the thread page (pages), open event streams (streams, PostgreSQL only:
// scripts/bench/streams.ts); BENCH_LINES=polling,writes runs those alone.
// BENCH_JOBS (a smaller board for a quick run), BENCH_SECONDS, BENCH_BIDS (requests of each write line),
// BENCH_RATE / BENCH_PGLITE_RATE (the board's rates), BENCH_POLL_RATE / BENCH_PGLITE_POLL_RATE.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { openDatabase } from "@/lib/service/db/connection";
import { measureFirstLoadJs } from "@/e2e/fixtures/page-weight";
import { freePort, startAppServer, type AppServer } from "../stack";
import { ensureBuild } from "../build-cache";
import { RARE_SEARCH_TERM, SEARCH_TERM, seedBench, unbidJobs, type BenchData } from "./seed";
import { benchStreams } from "./streams";

const JOBS = Number(process.env.BENCH_JOBS || 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const PG_URL = process.env.BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/awm_bench";
const PGLITE_DIR = path.resolve(process.env.BENCH_PGLITE_DIR || ".data-bench");
const CONNECTIONS = 50;
const LINES = new Set(
  (process.env.BENCH_LINES || "board,polling,writes,search,pages,streams").split(",").map((s) => s.trim()),
);
const BIDS = Number(process.env.BENCH_BIDS || 3000);
/** Bids each side places before its bids line is measured (on jobs of their own), as the other lines warm up. */
const WARM_BIDS = Math.min(300, Math.floor(BIDS / 10));
/** BENCH_DATABASES=postgres (or pglite) measures one side alone. */
const DATABASES = new Set((process.env.BENCH_DATABASES || "postgres,pglite").split(",").map((s) => s.trim()));
/** A request of a sequence (load.mjs): the agents' polls in turn, or one new bid each. */
interface Step {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}
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

let loads = 0;
/** The load generator in its own process; `rate` offers that many requests a second, evenly spaced; without it, saturation. */
function load(
  url: string,
  rate?: number,
  seconds = SECONDS,
  accept = "application/json",
  connections = CONNECTIONS,
  extra: { sequence?: Step[]; amount?: number } = {},
): Promise<Load> {
  const options = {
    url,
    connections,
    duration: seconds,
    headers: { accept },
    ...(rate ? { overallRate: rate } : {}),
    ...extra,
  };
  return new Promise((resolve, reject) => {
    // Through a file: a sequence of bids (a key and a body each) is larger than one argument may be.
    const file = path.join(os.tmpdir(), `awm-bench-load-${process.pid}-${++loads}.json`);
    writeFileSync(file, JSON.stringify(options));
    const child = spawn(process.execPath, [path.resolve("scripts/bench/load.mjs"), `@${file}`], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.once("exit", () => rmSync(file, { force: true }));
    let out = "";
    child.stdout!.on("data", (chunk) => (out += chunk));
    child.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load generator exited with ${code}`)),
    );
  });
}

async function startRaw(db: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [path.resolve("scripts/bench/raw-server.mjs")], {
    env: { ...process.env, RAW_DB: db },
    stdio: ["ignore", "pipe", "inherit"],
  });
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
  for (let i = 0; i < n; i++)
    await fetch(url, { headers: { accept, connection: "close" } }).then((r) => r.arrayBuffer());
}

const ms = (x: number) => `${x.toFixed(1).padStart(6)} ms`;
/** A line of figures; then a target marked MET or MISSED, or a plain note where there is no target. */
const row = (label: string, x: Load, target?: Target | string) =>
  `  ${label.padEnd(44)} p50 ${ms(x.p50)}  p99 ${ms(x.p99)}  ${x.rps.toFixed(0).padStart(5)} req/s${x.errors + x.non2xx ? `  errors ${x.errors} non-2xx ${x.non2xx}` : ""}${
    typeof target === "string" ? `   ${target}` : target ? `   ${target.text}: ${target.met ? "MET" : "MISSED"}` : ""
  }`;

/** n requests of a sequence, each on a new connection, so every app process is warm for each caller. */
async function warmSequence(base: string, steps: Step[], n = 100) {
  for (let i = 0; i < n; i++) {
    const step = steps[i % steps.length]!;
    await fetch(new URL(step.path, base), {
      headers: { accept: "application/json", connection: "close", ...step.headers },
    }).then((r) => r.arrayBuffer());
  }
}

interface Rates {
  board: number;
  poll: number;
  boardP99: number;
  pollP99: number;
}

async function benchDatabase(
  distDir: string,
  name: "PostgreSQL" | "PGlite",
  data: BenchData,
  bidJobs: string[],
  appEnv: Record<string, string>,
  rawDb: string,
  rates: Rates,
) {
  const { board: rate, boardP99: p99Target } = rates;
  const results: Target[] = [];
  const mark = (t: Target) => (results.push(t), t);
  say(
    `\n${name}: ${data.jobs} jobs (${data.funded} funded), ${data.agents.length} polling agents; load ${CONNECTIONS} connections, ${SECONDS} s per line; offered ${rate} req/s where a rate is shown (evenly spaced arrivals)`,
  );
  const pollQuery = (agentId: string) => `status=OPEN&funded=true&excludeBidBy=${encodeURIComponent(agentId)}&limit=50`;
  // Each job of the write lines takes one bid (a new agent-and-job pair): the raw line takes the
  // first share, the app the second, and each warms up on jobs of its own first (WARM_BIDS).
  const bids = Math.floor(bidJobs.length / 2) - WARM_BIDS;
  const bidPairs = (from: number, count = bids) =>
    bidJobs.slice(from, from + count).map((job, i) => ({ job, agent: data.agents[i % data.agents.length]! }));
  const bidsLoad = (url: string, steps: Step[]) =>
    load(url, undefined, 600, "application/json", CONNECTIONS, { sequence: steps, amount: steps.length });

  // The raw baseline first, alone (PGlite's directory can be opened by one process at a time).
  const raw = await startRaw(rawDb);
  let rawSat: Load | undefined,
    rawRate: Load | undefined,
    rawPollSat: Load | undefined,
    rawPollRate: Load | undefined,
    rawBids: Load | undefined;
  try {
    if (LINES.has("board")) {
      await warm(raw.url);
      rawSat = await load(raw.url);
      rawRate = await load(raw.url, rate);
    }
    if (LINES.has("polling")) {
      const polls: Step[] = data.agents.map((a) => ({ path: `/poll?agent=${encodeURIComponent(a.id)}` }));
      await warmSequence(raw.url, polls);
      rawPollSat = await load(raw.url, undefined, SECONDS, "application/json", CONNECTIONS, { sequence: polls });
      rawPollRate = await load(raw.url, rates.poll, SECONDS, "application/json", CONNECTIONS, { sequence: polls });
    }
    if (LINES.has("writes") && bids > 0) {
      const inserts = (pairs: ReturnType<typeof bidPairs>): Step[] =>
        pairs.map(({ job, agent }) => ({
          method: "POST",
          path: `/bid?job=${job}&agent=${encodeURIComponent(agent.id)}`,
        }));
      await bidsLoad(raw.url, inserts(bidPairs(2 * bids, WARM_BIDS)));
      rawBids = await bidsLoad(raw.url, inserts(bidPairs(0)));
    }
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
    nodeArgs: process.env.BENCH_CPU_PROF
      ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`]
      : [],
  });
  try {
    const processes = name === "PostgreSQL" ? Number(process.env.WEB_CONCURRENCY || os.availableParallelism()) : 1;
    const v1 = `${server.url}/v1`;
    say(`  ${processes} app process${processes > 1 ? "es" : ""}`);

    // The agents' poll: each of the agents with its own key, funded work it has not bid on.
    if (rawPollSat && rawPollRate) {
      const polls: Step[] = data.agents.map((a) => ({
        path: `/v1/jobs?${pollQuery(a.id)}`,
        headers: { authorization: `Bearer ${a.key}` },
      }));
      await warmSequence(server.url, polls, 200);
      const pollSat = await load(server.url, undefined, SECONDS, "application/json", CONNECTIONS, { sequence: polls });
      const pollRate = await load(server.url, rates.poll, SECONDS, "application/json", CONNECTIONS, {
        sequence: polls,
      });
      const ratio = pollSat.rps / rawPollSat.rps;
      say(
        `  GET /v1/jobs?status=OPEN&funded=true&excludeBidBy=<own id>&limit=50, ${data.agents.length} agents, each its own key:`,
      );
      say(row("raw node:http + driver, same query, saturation", rawPollSat));
      say(
        row(
          "app, saturation",
          pollSat,
          name === "PostgreSQL"
            ? mark({ met: ratio >= 0.6, text: `${ratio.toFixed(2)}× raw (target ≥ 0.6×)` })
            : `${ratio.toFixed(2)}× raw (no target)`,
        ),
      );
      say(row(`raw at ${rates.poll} req/s`, rawPollRate));
      say(
        row(
          `app at ${rates.poll} req/s`,
          pollRate,
          mark({
            met: pollRate.p99 < rates.pollP99 && pollRate.non2xx + pollRate.errors === 0,
            text: `p99 < ${rates.pollP99} ms`,
          }),
        ),
      );
      // The same polls sent with If-None-Match (nothing changed since each agent's last answer): 304s.
      const conditional: Step[] = [];
      for (const step of polls) {
        const etag = (await fetch(new URL(step.path, server.url), { headers: step.headers })).headers.get("etag");
        conditional.push({ ...step, headers: { ...step.headers, "if-none-match": etag ?? "" } });
      }
      const notModified = await load(server.url, undefined, SECONDS, "application/json", CONNECTIONS, {
        sequence: conditional,
      });
      say(
        row(
          "app, If-None-Match, saturation (304s)",
          { ...notModified, non2xx: 0 },
          `${(notModified.rps / rawPollSat.rps).toFixed(2)}× raw (no target; ${notModified.non2xx} of ${notModified.total} answered 304)`,
        ),
      );
    }

    // Bids: the app's bid (the one-bid rule, the job's and the agent's checks, the event) beside a raw insert.
    if (rawBids) {
      const places = (pairs: ReturnType<typeof bidPairs>): Step[] =>
        pairs.map(({ job, agent }) => ({
          method: "POST",
          path: `/v1/jobs/${job}/bids`,
          headers: { authorization: `Bearer ${agent.key}`, "content-type": "application/json" },
          body: JSON.stringify({ agentId: agent.id, proposedUsdc: "40" }),
        }));
      // Warm, as every line is: each process has loaded the service and compiled the bid's path.
      await bidsLoad(server.url, places(bidPairs(2 * bids + WARM_BIDS, WARM_BIDS)));
      const placed = await bidsLoad(server.url, places(bidPairs(bids)));
      const ratio = placed.rps / rawBids.rps;
      say(`  POST /v1/jobs/:id/bids, ${bids} bids of ${data.agents.length} agents, each on a job of its own:`);
      say(row("raw node:http + driver, one insert each", rawBids));
      say(
        row(
          "app, saturation",
          placed,
          mark({
            met: ratio >= 0.5 && placed.non2xx + placed.errors === 0,
            text: `${ratio.toFixed(2)}× raw (target ≥ 0.5×)`,
          }),
        ),
      );
      // The bids left a dead version of each job they counted; the lines after read a board as
      // autovacuum would keep it (this machine's server runs without it; seed.ts).
      if (!rawDb.startsWith("pglite:")) {
        const client = new pg.Client({ connectionString: rawDb });
        await client.connect();
        await client.query("vacuum analyze jobs, bids, domain_events");
        await client.end();
      }
    }

    if (!rawSat || !rawRate) return results;
    const first = `${v1}/jobs?limit=20`;
    await warm(first, 200);
    const appSat = await load(first);
    const appRate = await load(first, rate);
    const ratio = appSat.rps / rawSat.rps;
    say(`  GET /v1/jobs (the anonymous first page):`);
    say(row("raw node:http + driver, saturation", rawSat));
    say(
      row(
        "app (npm start / production), saturation",
        appSat,
        name === "PostgreSQL"
          ? mark({ met: ratio >= 0.6, text: `${ratio.toFixed(2)}× raw (target ≥ 0.6×)` })
          : `${ratio.toFixed(2)}× raw (no target)`,
      ),
    );
    say(row(`raw at ${rate} req/s`, rawRate));
    say(
      row(
        `app at ${rate} req/s`,
        appRate,
        mark({ met: appRate.p99 < p99Target && appRate.non2xx + appRate.errors === 0, text: `p99 < ${p99Target} ms` }),
      ),
    );

    // The same first page through the keyset path, which nothing caches: what a query of its own costs.
    const viaCursor = `${v1}/jobs?limit=20&cursor=${data.firstCursor}`;
    const deepUrl = `${v1}/jobs?limit=20&cursor=${data.deepCursor}`;
    await warm(viaCursor, 50);
    await warm(deepUrl, 50);
    const topSat = await load(viaCursor);
    say(
      row(
        "first page by cursor (not cached), saturation",
        topSat,
        `${(topSat.rps / rawSat.rps).toFixed(2)}× raw (no target: the raw server runs one query, the app two)`,
      ),
    );
    const top = await load(viaCursor, rate);
    const deep = await load(deepUrl, rate);
    const deepRatio = deep.p50 / Math.max(top.p50, 0.01);
    say(row(`first page by cursor (not cached) at ${rate}`, top));
    say(
      row(
        `page ${data.deepPages} deep at ${rate}`,
        deep,
        mark({
          met: deepRatio <= 1.5 && deep.p99 < p99Target,
          text: `${deepRatio.toFixed(2)}× the first p50 (target ≤ 1.5×), p99 < ${p99Target} ms`,
        }),
      ),
    );

    if (!LINES.has("search")) return results;
    // Searches start at the top of the relevance order by cursor, so the shared cache never answers them.
    const searchFrom = (q: string) => `${v1}/jobs?limit=20&q=${encodeURIComponent(q)}&cursor=${data.firstSearchCursor}`;
    const searchUrl = searchFrom(SEARCH_TERM);
    const detailUrl = `${v1}/jobs/${data.jobId}/public`;
    const forumUrl = `${v1}/forum/threads?limit=20`;
    for (const [label, url] of [
      ["job detail (public)", detailUrl],
      ["forum list", forumUrl],
    ] as const) {
      await warm(url, 50);
      const r = await load(url, rate);
      say(
        row(
          `${label} at ${rate}`,
          r,
          mark({ met: r.p99 < p99Target && r.non2xx + r.errors === 0, text: `p99 < ${p99Target} ms` }),
        ),
      );
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
    say(
      row(
        `${searchLabel} at ${searchRate}`,
        searchLoad,
        mark({
          met: searchLoad.p99 < p99Target && searchLoad.non2xx + searchLoad.errors === 0,
          text: `p99 < ${p99Target} ms`,
        }),
      ),
    );

    // What one searcher waits for: one client, one request at a time, on an otherwise idle server,
    // for searches of every breadth (a word in 2% of the jobs, a rare one, one in every job).
    for (const [label, q] of SEARCHES) {
      const url = searchFrom(q);
      await warm(url, 20);
      const r = await load(url, undefined, Math.min(SECONDS, 5), "application/json", 1);
      say(
        row(
          `search ${label}, one client`,
          r,
          mark({ met: r.p99 < 50 && r.non2xx + r.errors === 0, text: "p99 < 50 ms" }),
        ),
      );
    }

    if (!LINES.has("pages")) return results;
    // The thread page is HTML rendered by React on the server: a tenth of the API's rate.
    const threadUrl = `${server.url}/forum/${data.threadSlug}`;
    await warm(threadUrl, 20, "text/html");
    const thread = await load(threadUrl, Math.max(10, rate / 10), SECONDS, "text/html");
    say(
      row(
        `thread page, 500 replies (HTML) at ${Math.max(10, rate / 10)}`,
        thread,
        mark({ met: thread.p50 < 150 && thread.non2xx + thread.errors === 0, text: "p50 < 150 ms" }),
      ),
    );

    if (name === "PostgreSQL") {
      const empty = await measureFirstLoadJs(`${server.url}/empty`);
      const page = await measureFirstLoadJs(threadUrl);
      const extra = (page.totalGzipBytes - empty.totalGzipBytes) / 1000;
      say(
        `  thread page first-load JavaScript: +${extra.toFixed(1)} kB gzip over /empty (${(empty.totalGzipBytes / 1000).toFixed(1)} kB)   target ≤ 15 kB: ${mark({ met: extra <= 15, text: "" }).met ? "MET" : "MISSED"}`,
      );
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
  say(
    `benchmark on ${os.availableParallelism()} cores (${os.loadavg()[0]!.toFixed(1)} load average at start: other work on this machine shares them)`,
  );

  // The request lines (all but streams) measure each database beside its raw baseline.
  const requestLines = [...LINES].some((line) => line !== "streams");
  const pgResults = requestLines && DATABASES.has("postgres") ? await benchPostgres(distDir) : [];
  const liteResults = requestLines && DATABASES.has("pglite") ? await benchPglite(distDir) : [];
  const streamResults = LINES.has("streams") && DATABASES.has("postgres") ? await streamsOnPostgres(distDir) : [];
  const all = [...pgResults, ...liteResults, ...streamResults];
  say(`\ntargets: ${all.filter((t) => t.met).length} of ${all.length} met`);
}

async function createBenchDatabase() {
  const admin = new pg.Client({ connectionString: PG_URL.replace(/\/[^/]+$/, "/postgres") });
  await admin.connect();
  const dbName = new URL(PG_URL).pathname.slice(1);
  const exists = await admin.query("select 1 from pg_database where datname = $1", [dbName]);
  if (exists.rowCount === 0) await admin.query(`create database "${dbName}"`);
  await admin.end();
}

/** The streams line (scripts/bench/streams.ts): PostgreSQL, one instance and two behind HAProxy. */
async function streamsOnPostgres(distDir: string): Promise<Target[]> {
  await createBenchDatabase();
  const db = await openDatabase({ databaseUrl: PG_URL, maxConnections: 2, timeouts: SEEDING_TIMEOUTS });
  try {
    return await benchStreams({ distDir, databaseUrl: PG_URL, db, say });
  } finally {
    await db.destroy();
  }
}

/**
 * The bench's own connection seeds a fresh database: a bulk update of 50,000 jobs and a vacuum
 * outlast the service's 15 s statement timeout on a first run.
 */
const SEEDING_TIMEOUTS = { statementTimeoutMs: 600_000, queryTimeoutMs: 610_000 };

/** PostgreSQL: a database of its own, created when missing, seeded once. */
async function benchPostgres(distDir: string): Promise<Target[]> {
  await createBenchDatabase();
  const pgDb = await openDatabase({ databaseUrl: PG_URL, maxConnections: 2, timeouts: SEEDING_TIMEOUTS });
  const pgData = await seedBench(pgDb, JOBS, console.log);
  const pgBidJobs = LINES.has("writes") ? await unbidJobs(pgDb, 2 * (BIDS + WARM_BIDS)) : [];
  await pgDb.destroy();
  const pgRates = {
    board: Number(process.env.BENCH_RATE || 500),
    boardP99: 50,
    poll: Number(process.env.BENCH_POLL_RATE || 300),
    pollP99: 50,
  };
  return benchDatabase(distDir, "PostgreSQL", pgData, pgBidJobs, { DATABASE_URL: PG_URL }, PG_URL, pgRates);
}

async function benchPglite(distDir: string): Promise<Target[]> {
  const liteDb = await openDatabase({ dataDir: PGLITE_DIR });
  const liteData = await seedBench(liteDb, JOBS, console.log);
  const liteBidJobs = LINES.has("writes") ? await unbidJobs(liteDb, 2 * (Math.min(BIDS, 1000) + WARM_BIDS)) : [];
  await liteDb.destroy();
  const liteRates = {
    board: Number(process.env.BENCH_PGLITE_RATE || 200),
    boardP99: 100,
    poll: Number(process.env.BENCH_PGLITE_POLL_RATE || 100),
    pollP99: 100,
  };
  return benchDatabase(
    distDir,
    "PGlite",
    liteData,
    liteBidJobs,
    { DATA_DIR: PGLITE_DIR },
    `pglite:${PGLITE_DIR}`,
    liteRates,
  );
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
