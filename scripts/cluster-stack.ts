// Several app instances behind HAProxy (Debian's `haproxy`), shared by `npm run cluster`
// (scripts/cluster.ts) and its failover test (scripts/cluster.test.ts). docs/deployment.md explains
// the picture and every setting.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, startAppServer, waitForHttp, type AppServer } from "./stack";

export interface Backend {
  name: string;
  port: number;
}

/** Where haproxy is (env HAPROXY_BIN, else on the PATH), or null when it is not installed. */
export function haproxyBinary(): string | null {
  const candidate = process.env.HAPROXY_BIN || "haproxy";
  const found = spawnSync(candidate, ["-v"], { stdio: "ignore" });
  return found.status === 0 ? candidate : null;
}

/**
 * The load balancer's configuration:
 * - A credential stays on one instance (`balance hdr(authorization)`, consistent hashing), so that
 *   instance's read-your-writes memory sees the caller's writes; requests without one go round robin.
 * - `/v1/health/ready` decides whether an instance gets requests: checked every second, out after
 *   two failures, back after two successes.
 * - A request that could not reach an instance (connection refused or reset before it was sent) is
 *   sent to another one (`retries`, `option redispatch`). A GET that got no answer (the instance died
 *   while serving it) is also retried there (`retry-on`); any other method is not, since it may have
 *   taken effect: clients repeat those with an Idempotency-Key (README, "SDK").
 */
export function haproxyConfig(options: { port: number; backends: Backend[]; maxconn?: number }): string {
  return [
    "global",
    // Each connection is two descriptors (client and server side); haproxy raises its own limit to match.
    `  maxconn ${options.maxconn ?? 4096}`,
    "defaults",
    "  mode http",
    "  timeout connect 2s",
    "  timeout client 65s",
    "  timeout server 65s",
    "  timeout http-keep-alive 5s",
    // A health check may wait this long (default: its 1 s interval): an instance busy with a burst
    // (thousands of streams opening) answers late but is alive, and must not be taken out for it.
    "  timeout check 3s",
    "  retries 3",
    "  option redispatch 1",
    "frontend awm",
    `  bind 127.0.0.1:${options.port}`,
    "  option forwardfor",
    // The event streams (GET /v1/agents/:id/events/stream, /v1/jobs/:id/stream) on a backend of
    // their own, which sends each event as it comes (below).
    "  use_backend streams if METH_GET { path_end /stream }",
    "  default_backend app",
    "backend app",
    "  balance hdr(authorization)",
    "  hash-type consistent",
    "  option httpchk",
    // HTTP/1.1 with a Host header: the app refuses a request without one.
    "  http-check send meth GET uri /v1/health/ready ver HTTP/1.1 hdr Host 127.0.0.1",
    "  http-check expect status 200",
    "  retry-on conn-failure empty-response response-timeout",
    "  http-request disable-l7-retry unless METH_GET || METH_HEAD",
    "  default-server inter 1s fastinter 500ms fall 2 rise 2",
    ...options.backends.map((b) => `  server ${b.name} 127.0.0.1:${b.port} check`),
    "backend streams",
    "  balance hdr(authorization)",
    "  hash-type consistent",
    // HAProxy sends with MSG_MORE by default, so a small write waits in the kernel for more (up to
    // the 200 ms of a delayed ACK): every event of a stream arrived about 250 ms late through it
    // (npm run bench, the streams line). HAProxy's documentation keeps this option to the backends
    // that need it.
    "  option http-no-delay",
    "  retry-on conn-failure empty-response",
    // The same instances, up or down as the app backend's checks say.
    ...options.backends.map((b) => `  server ${b.name} 127.0.0.1:${b.port} track app/${b.name}`),
    "",
  ].join("\n");
}

export interface Haproxy {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function startHaproxy(options: {
  port: number;
  backends: Backend[];
  quiet?: boolean;
  /** Connections at once, per haproxy process (default 4096): the streams bench holds ten thousand. */
  maxconn?: number;
  /**
   * haproxy processes on the one port (default 1). Each binds it with SO_REUSEPORT (haproxy's
   * default on Linux) and the kernel spreads new connections over them; they hash credentials to
   * the same instance. More than one only where a process's descriptor limit is below what the
   * connections need (each is two): this machine's hard limit is 20,000 a process, which haproxy,
   * unprivileged, cannot raise, and 10,000 streams need 20,000 and more.
   */
  processes?: number;
}): Promise<Haproxy> {
  const bin = haproxyBinary();
  if (!bin) throw new Error("haproxy is not installed (Debian: apt-get install haproxy; or set HAPROXY_BIN)");
  const dir = mkdtempSync(path.join(os.tmpdir(), "awm-haproxy-"));
  const file = path.join(dir, "haproxy.cfg");
  writeFileSync(file, haproxyConfig(options));
  const check = spawnSync(bin, ["-c", "-q", "-f", file], { encoding: "utf8" });
  if (check.status !== 0) throw new Error(`haproxy refused its configuration: ${check.stderr || check.stdout}`);
  // -db: stay in the foreground, so the process is ours to stop.
  const children = Array.from({ length: Math.max(1, options.processes ?? 1) }, () =>
    spawn(bin, ["-db", "-f", file], { stdio: options.quiet ? ["ignore", "ignore", "inherit"] : "inherit" }),
  );
  const url = `http://127.0.0.1:${options.port}`;
  await waitForHttp(`${url}/v1/health/ready`, 30_000);
  const stopOne = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return {
    url,
    process: children[0]!,
    stop: async () => {
      await Promise.all(children.map(stopOne));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Cluster {
  /** The load balancer: the one address clients use. */
  url: string;
  instances: AppServer[];
  haproxy: Haproxy;
  stop(): Promise<void>;
}

/**
 * `count` app instances (scripts/server.mjs on the same build, each with its own port and
 * processes) on one PostgreSQL and its replicas, behind HAProxy on `port`. They share DATA_DIR (the
 * generated session secret, so a session signed by one is valid on the other) and SITE_URL (the
 * balancer's address).
 */
export async function startCluster(options: {
  port: number;
  count: number;
  distDir: string;
  env: Record<string, string | undefined>;
  quiet?: boolean;
  maxconn?: number;
  /** haproxy processes on the port (startHaproxy). */
  haproxyProcesses?: number;
}): Promise<Cluster> {
  const siteUrl = options.env.SITE_URL ?? `http://127.0.0.1:${options.port}`;
  const ports: number[] = [];
  for (let i = 0; i < options.count; i++) ports.push(await freePort());
  const instances = await Promise.all(
    ports.map((port) =>
      startAppServer({
        port,
        distDir: options.distDir,
        quiet: options.quiet,
        // Behind the balancer: one proxy hop to believe (X-Forwarded-For from HAProxy).
        env: { WEB_CONCURRENCY: "1", WORKERS: "on", TRUST_PROXY: "1", ...options.env, SITE_URL: siteUrl },
      }),
    ),
  );
  let haproxy: Haproxy;
  try {
    haproxy = await startHaproxy({
      port: options.port,
      backends: ports.map((port, i) => ({ name: `app${i + 1}`, port })),
      quiet: options.quiet,
      maxconn: options.maxconn,
      processes: options.haproxyProcesses,
    });
  } catch (error) {
    await Promise.all(instances.map((i) => i.stop()));
    throw error;
  }
  return {
    url: haproxy.url,
    instances,
    haproxy,
    stop: async () => {
      await haproxy.stop();
      await Promise.all(instances.map((i) => i.stop()));
    },
  };
}
