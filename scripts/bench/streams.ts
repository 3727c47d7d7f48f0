// The streams line of `npm run bench` (BENCH_LINES=streams): agents' event streams
// (GET /v1/agents/:id/events/stream) held open by the thousand, on one instance and on two behind
// HAProxy, on PostgreSQL. For each count of streams: every stream open, then idle for
// BENCH_STREAM_IDLE_SECONDS (30) while the database's commits are counted (they must not grow with
// the count: an idle stream costs the database nothing), then events at BENCH_STREAM_RATE (200) a
// second for BENCH_STREAM_EVENT_SECONDS (10), each to one agent whose ten streams all get it, with
// the time from its insert to its arrival; and each instance's memory (RSS of its processes) before
// and with the streams open. The clients run in their own process (scripts/bench/stream-clients.mjs).
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { sql } from "kysely";
import type { Db } from "@/lib/service/db/connection";
import { startCluster } from "../cluster-stack";
import { freePort, startAppServer } from "../stack";

const COUNTS = (process.env.BENCH_STREAM_COUNTS || "1000,10000").split(",").map(Number);
const IDLE_SECONDS = Number(process.env.BENCH_STREAM_IDLE_SECONDS || 30);
const RATE = Number(process.env.BENCH_STREAM_RATE || 200);
const EVENT_SECONDS = Number(process.env.BENCH_STREAM_EVENT_SECONDS || 10);
/** BENCH_STREAM_INSTANCES=2 measures the two instances alone. */
const INSTANCES = (process.env.BENCH_STREAM_INSTANCES || "1,2").split(",").map(Number);
/** Streams per agent: the per-credential cap (lib/service/http/stream-slots.ts). */
const PER_AGENT = 10;
/**
 * HAProxy holds two descriptors a connection, and this machine's hard limit is 20,000 a process
 * (haproxy cannot raise it): at most this many streams through one haproxy process, so the bench
 * runs as many as the count needs on the one port (scripts/cluster-stack.ts, startHaproxy).
 */
const HAPROXY_STREAMS_PER_PROCESS = Number(process.env.BENCH_HAPROXY_STREAMS_PER_PROCESS || 9_000);
/** haproxy processes for the largest count; the kernel spreads connections over them by a hash, so each gets about its share. */
const HAPROXY_PROCESSES = Math.ceil((1.2 * Math.max(...COUNTS)) / HAPROXY_STREAMS_PER_PROCESS);
/** The delivery target: p99 under a second from commit to arrival. */
const P99_TARGET_MS = 1000;

const keyOf = (agentId: string) => `awm_sk_${agentId}-streams-000000000000`;

/** Agents with a key each for the streams, made once (a reused data set keeps them). */
export async function seedStreamAgents(db: Db, count: number): Promise<string[]> {
  await sql`
    with wanted as (
      select g from generate_series(1, ${count}::int) g
      where not exists (select 1 from agents where id = 'bench-stream-agent-' || g)
    ), p as (
      insert into principals (kind, display_name)
      select 'AGENT', 'Bench stream agent ' || g from wanted
      returning id, display_name
    ), a as (
      insert into agents (id, principal_id, name, vertical, status, verified_at, verification_method, owner_email, referral_code)
      select 'bench-stream-agent-' || substr(display_name, 20), id, display_name, 'RESEARCH', 'ACTIVE', now(), 'bench',
        'bench-stream-' || substr(display_name, 20) || '@example.test', 'BSTREAM' || substr(display_name, 20)
      from p
      returning id
    )
    insert into api_keys (agent_id, key_hash, key_prefix, scopes)
    select id, encode(sha256(convert_to('awm_sk_' || id || '-streams-000000000000', 'UTF8')), 'hex'),
      substr('awm_sk_' || id, 1, 12), array['jobs:read', 'jobs:write']
    from a`.execute(db);
  return Array.from({ length: count }, (_, i) => `bench-stream-agent-${i + 1}`);
}

/** The resident memory of a process and all its descendants, in MB (Linux /proc). */
function rssOfTree(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  let kb = 0;
  const walk = (p: number) => {
    try {
      const status = readFileSync(`/proc/${p}/status`, "utf8");
      kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {
      return;
    }
    for (const child of children.get(p) ?? []) walk(child);
  };
  walk(pid);
  return kb / 1024;
}

interface Phase {
  phase: string;
  [key: string]: number | string;
}

/** Runs the clients for one count; `sample` is called once every stream is open and the events are in. */
async function runClients(url: string, databaseUrl: string, agents: string[], count: number, sample: () => void) {
  const used = agents.slice(0, Math.ceil(count / PER_AGENT));
  const streams = Array.from({ length: count }, (_, i) => {
    const agentId = used[i % used.length]!;
    return {
      path: `/v1/agents/${agentId}/events/stream`,
      key: keyOf(agentId),
      // A client address each (10.x.y.z): the per-network cap is not what this measures.
      ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    };
  });
  const file = path.join(os.tmpdir(), `awm-bench-streams-${process.pid}-${count}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      url,
      streams,
      agents: used,
      databaseUrl,
      idleSeconds: IDLE_SECONDS,
      rate: RATE,
      eventSeconds: EVENT_SECONDS,
    }),
  );
  // More sockets than the default descriptor limit: raised for the clients' process alone.
  const child = spawn(
    "bash",
    ["-c", `ulimit -n 65536 2>/dev/null || true; exec "${process.execPath}" scripts/bench/stream-clients.mjs @${file}`],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const phases: Record<string, Phase> = {};
  const lines = createInterface({ input: child.stdout! });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for await (const line of lines) {
    const phase = JSON.parse(line) as Phase;
    phases[phase.phase] = phase;
    if (phase.phase === "events") {
      sample();
      child.kill("SIGTERM");
      break;
    }
  }
  await exited;
  rmSync(file, { force: true });
  if (!phases.events) throw new Error(`the stream clients stopped early: ${JSON.stringify(phases)}`);
  return phases as { opened: Phase; idle: Phase; events: Phase };
}

const f = (x: number | string, digits = 1) => Number(x).toFixed(digits);
/** The failed attempts of an opening by cause (", failed attempts: 503 ×3"), or nothing. */
const failuresOf = (opened: Phase) => {
  const failures = Object.entries((opened.failures ?? {}) as unknown as Record<string, number>);
  return failures.length ? `; failed attempts: ${failures.map(([why, n]) => `${why} ×${n}`).join(", ")}` : "";
};

/** The streams line for one and for two instances; returns its targets (MET or MISSED). */
export async function benchStreams(options: {
  distDir: string;
  databaseUrl: string;
  db: Db;
  say: (line: string) => void;
}): Promise<Array<{ met: boolean; text: string }>> {
  const { say } = options;
  const results: Array<{ met: boolean; text: string }> = [];
  // Agents of their own for each count: a count's streams never meet the per-credential cap through
  // the previous count's streams, which the server may not have seen close yet.
  const agentsPerCount = COUNTS.map((count) => Math.ceil(count / PER_AGENT));
  const agents = await seedStreamAgents(
    options.db,
    agentsPerCount.reduce((a, b) => a + b, 0),
  );
  const agentsFor = (index: number) => {
    const from = agentsPerCount.slice(0, index).reduce((a, b) => a + b, 0);
    return agents.slice(from, from + agentsPerCount[index]!);
  };
  say(
    `\nStreams (PostgreSQL): GET /v1/agents/:id/events/stream, ${PER_AGENT} per agent; idle ${IDLE_SECONDS} s, then ${RATE} events/s for ${EVENT_SECONDS} s (each to one agent, all its streams)`,
  );
  const env = {
    DATABASE_URL: options.databaseUrl,
    WORKERS: "off",
    RATE_LIMIT_SCALE: "10000000",
    TRUST_PROXY: "1",
  };
  for (const instances of INSTANCES) {
    const port = await freePort();
    const cluster =
      instances === 1
        ? await startAppServer({
            port,
            distDir: options.distDir,
            quiet: true,
            env: { ...env, SITE_URL: `http://127.0.0.1:${port}` },
          }).then((server) => ({ url: server.url, pids: [server.process.pid!], stop: server.stop }))
        : await startCluster({
            port,
            count: 2,
            distDir: options.distDir,
            quiet: true,
            maxconn: HAPROXY_STREAMS_PER_PROCESS + 200,
            haproxyProcesses: HAPROXY_PROCESSES,
            env: {
              ...env,
              WEB_CONCURRENCY: process.env.WEB_CONCURRENCY || String(os.availableParallelism()),
              // The load generator plays a proxy in front (its X-Forwarded-For names each stream's
              // client), and HAProxy appends its own hop: two trusted hops, or every stream would
              // come from HAProxy's one address and meet the per-client cap (10 a process).
              TRUST_PROXY: "2",
            },
          }).then((c) => ({ url: c.url, pids: c.instances.map((i) => i.process.pid!), stop: c.stop }));
    const processes = Number(process.env.WEB_CONCURRENCY || os.availableParallelism());
    say(
      instances === 1
        ? `  one instance (${processes} processes):`
        : `  two instances (${processes} processes each) behind HAProxy (${HAPROXY_PROCESSES} haproxy processes on one port):`,
    );
    let firstIdle: { count: number; tps: number } | null = null;
    try {
      // Every process loaded and its bus listening before the baseline is read.
      for (let i = 0; i < 20; i++) await fetch(`${cluster.url}/v1/health/ready`, { headers: { connection: "close" } });
      for (const [index, count] of COUNTS.entries()) {
        await new Promise((r) => setTimeout(r, 2000));
        const baseline = cluster.pids.map(rssOfTree);
        let withStreams: number[] = [];
        const run = await runClients(cluster.url, options.databaseUrl, agentsFor(index), count, () => {
          withStreams = cluster.pids.map(rssOfTree);
        });
        const perStreamKb =
          ((withStreams.reduce((a, b) => a + b, 0) - baseline.reduce((a, b) => a + b, 0)) * 1024) /
          Math.max(1, Number(run.opened.opened));
        const e = run.events;
        const p99Met =
          Number(e.p99) < P99_TARGET_MS &&
          Number(e.delivered) === Number(e.expected) &&
          Number(run.opened.refused) === 0;
        results.push({ met: p99Met, text: "" });
        say(
          `    ${String(count).padStart(6)} streams: opened ${run.opened.opened} (refused ${run.opened.refused}; ${run.opened.retried ?? 0} tried again${failuresOf(run.opened)}) in ${f(Number(run.opened.ms) / 1000)} s; ` +
            `idle ${run.idle.seconds} s: ${f(run.idle.tps, 2)} database commits/s (${run.idle.xacts} in all)`,
        );
        say(
          `           ${RATE} events/s: ${e.delivered} of ${e.expected} deliveries, commit to arrival p50 ${f(e.p50)} ms p99 ${f(e.p99)} ms max ${f(e.max)} ms   p99 < ${P99_TARGET_MS} ms, every stream open, none lost: ${p99Met ? "MET" : "MISSED"}`,
        );
        const tps = Number(run.idle.tps);
        if (!firstIdle) firstIdle = { count, tps };
        else {
          // Within one commit a second of the smaller count's (the machine is shared; nothing here commits).
          const met = tps <= firstIdle.tps + 1;
          results.push({ met, text: "" });
          say(
            `           idle commits/s at ${count} streams ${f(tps, 2)} vs ${f(firstIdle.tps, 2)} at ${firstIdle.count}   does not grow with the streams: ${met ? "MET" : "MISSED"}`,
          );
        }
        say(
          `           RSS ${withStreams.map((mb) => `${f(mb, 0)} MB`).join(" + ")} with the streams (${baseline.map((mb) => `${f(mb, 0)} MB`).join(" + ")} before): ${f(perStreamKb, 1)} kB per stream`,
        );
      }
    } finally {
      await cluster.stop();
    }
  }
  // The idle commits must not grow with the count of streams: compared by the caller's reading of the lines.
  return results;
}
