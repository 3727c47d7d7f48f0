// The streams line's clients (`npm run bench`, BENCH_LINES=streams), in their own process so that
// they never share an event loop with the server they measure: argv[2] is the options as JSON (or
// @<file> holding it) ({url, streams: [{path, key, ip}], databaseUrl, idleSeconds, rate,
// eventSeconds, agents: [id]}); stdout one JSON line per phase:
//   {phase: "opened", opened, refused, retried, failures, ms}  every stream open (its headers in), or refused
//     after retries; failures counts the failed attempts by HTTP status or socket error
//   {phase: "idle", xacts, tps, seconds}         the database's commits while every stream idles
//   {phase: "events", sent, expected, delivered, p50, p99, max}
// then it waits for SIGTERM (the caller samples the server's memory meanwhile) and closes them all.
// Events are inserted straight into domain_events at `rate` a second, each addressed to one agent
// (round robin), whose streams all get it; a delivery's time runs from just before its insert is
// sent (a single statement, its own transaction) to the moment its event arrives at a stream.
import { readFileSync } from "node:fs";
import http from "node:http";
import { performance } from "node:perf_hooks";
import pg from "pg";

const options = JSON.parse(
  process.argv[2].startsWith("@") ? readFileSync(process.argv[2].slice(1), "utf8") : process.argv[2],
);
const say = (line) => process.stdout.write(JSON.stringify(line) + "\n");
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const url = new URL(options.url);

/** Arrival times per event number: every stream that got it. */
const sentAt = new Map();
const latencies = [];
let delivered = 0;
const requests = [];

function open(stream) {
  return new Promise((resolve) => {
    const request = http.get(
      {
        host: url.hostname,
        port: url.port,
        path: stream.path,
        agent,
        headers: {
          accept: "text/event-stream",
          authorization: `Bearer ${stream.key}`,
          "x-forwarded-for": stream.ip,
        },
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          return resolve(String(response.statusCode));
        }
        response.setEncoding("utf8");
        let text = "";
        response.on("data", (chunk) => {
          text += chunk;
          let cut;
          while ((cut = text.indexOf("\n\n")) >= 0) {
            const block = text.slice(0, cut);
            text = text.slice(cut + 2);
            const match = /"bench":(\d+)/.exec(block);
            if (!match) continue;
            const at = sentAt.get(Number(match[1]));
            if (at === undefined) continue;
            delivered += 1;
            latencies.push(performance.now() - at);
          }
        });
        response.on("error", () => {});
        resolve(true);
      },
    );
    request.on("error", (error) => resolve(error.code ?? "error"));
    requests.push(request);
  });
}

const started = performance.now();
let opened = 0;
let refused = 0;
let retried = 0;
/** Why attempts failed: an HTTP status, or the socket's error code; counts. */
const failures = {};
/** Open streams per agent (its stream path): each event reaches every open stream of its agent. */
const openPerPath = new Map();
/** As EventSource does: a stream refused (a 503 while a proxy's health check lagged) is tried again after a pause, a few times. */
const ATTEMPTS = 5;
// A few hundred opening at a time: what a crowd of reconnecting agents looks like, without a SYN flood.
const queue = [...options.streams];
await Promise.all(
  Array.from({ length: 200 }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      let ok = false;
      for (let attempt = 1; attempt <= ATTEMPTS && !ok; attempt++) {
        if (attempt > 1) {
          retried += 1;
          await new Promise((r) => setTimeout(r, 1000));
        }
        const outcome = await open(next);
        ok = outcome === true;
        if (!ok) failures[outcome] = (failures[outcome] ?? 0) + 1;
      }
      if (ok) {
        opened += 1;
        openPerPath.set(next.path, (openPerPath.get(next.path) ?? 0) + 1);
      } else refused += 1;
    }
  }),
);
say({ phase: "opened", opened, refused, retried, failures, ms: Math.round(performance.now() - started) });

const db = new pg.Client({ connectionString: options.databaseUrl });
await db.connect();
const commits = async () =>
  Number(
    (await db.query("select xact_commit::text as n from pg_stat_database where datname = current_database()")).rows[0]
      .n,
  );
// Let the opening's own writes (rate leases, last-used stamps) settle before the window, and their
// counts reach pg_stat_database: PostgreSQL 15 has a busy backend flush its statistics at most once
// a second and an idle one within 10 s (PGSTAT_IDLE_INTERVAL), so the opening's commits would
// otherwise be counted in the idle window, the more the more streams were opened.
await new Promise((r) => setTimeout(r, 12_000));
const before = await commits();
await new Promise((r) => setTimeout(r, options.idleSeconds * 1000));
// This reading's own transaction and the one before it are not the streams'.
const xacts = (await commits()) - before - 1;
say({ phase: "idle", xacts, tps: xacts / options.idleSeconds, seconds: options.idleSeconds });

const total = Math.round(options.rate * options.eventSeconds);
const t0 = performance.now();
for (let k = 0; k < total; k++) {
  const due = t0 + (k * 1000) / options.rate;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  sentAt.set(k, performance.now());
  await db.query("insert into domain_events (type, recipient_ids, data) values ('webhook.test', array[$1], $2)", [
    options.agents[k % options.agents.length],
    JSON.stringify({ bench: k }),
  ]);
}
// Stragglers: the last events' deliveries.
// What the open streams should get: each event, every open stream of its agent (a stream refused
// for good gets nothing, and is reported as refused).
let expected = 0;
for (let k = 0; k < total; k++)
  expected += openPerPath.get(`/v1/agents/${options.agents[k % options.agents.length]}/events/stream`) ?? 0;
const deadline = performance.now() + 10_000;
while (delivered < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
latencies.sort((a, b) => a - b);
const pct = (p) =>
  latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] : NaN;
say({
  phase: "events",
  sent: total,
  expected,
  delivered,
  seconds: (performance.now() - t0) / 1000,
  p50: pct(0.5),
  p99: pct(0.99),
  max: latencies.at(-1) ?? NaN,
});
await db.end();

process.on("SIGTERM", () => {
  for (const request of requests) request.destroy();
  process.exit(0);
});
setInterval(() => {}, 60_000);
