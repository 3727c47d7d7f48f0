// The production server: Next (dashboard + /v1) behind a plain Node HTTP server, so that the
// caller's address and whether a proxy stood in between are judged on the raw request, before Next
// adds x-forwarded-* headers of its own. The rule lives in lib/net/client-address.mjs (shared with
// the test harness): forwarding headers are believed only with TRUST_PROXY, and then the right-most
// untrusted hop is the client; the dashboard's own calls to /v1 speak for the browser with a header
// authenticated by a key derived from the session secret. The stamps overwrite anything a client sent.
// Once a process has loaded the service, it answers /v1 itself, without Next's routing
// (lib/net/service-handler.mjs).
//
// One process per core (WEB_CONCURRENCY to choose) with PostgreSQL, sharing the port through
// node:cluster; the background workers start in every process and PostgreSQL decides which one runs
// each (lib/service/worker-leadership.ts), so the processes share nothing in memory. With PGlite one
// process owns the data, so the app stays a single process.
import cluster from "node:cluster";
import os from "node:os";
import { createServer } from "node:http";
import next from "next";
import { getRequestListener } from "@hono/node-server";
import { FRAME_HEADERS } from "../lib/net/frame-headers.mjs";
import { answerExpectContinue } from "../lib/net/request-body.mjs";
import { isServiceTarget, registeredServiceHandler, registeredServiceShutdown } from "../lib/net/service-handler.mjs";
import {
  CLIENT_IP_HEADER,
  FORWARDED_HEADER,
  PAGE_PATH_HEADER,
  dashboardClientKey,
  parseTrustProxy,
  resolveClient,
} from "../lib/net/client-address.mjs";
import { sessionSecret } from "../lib/server-secrets.mjs";

const port = Number(process.env.PORT || 3000);
const hostname = process.env.HOST || "127.0.0.1";
const trust = parseTrustProxy(process.env.TRUST_PROXY);
const dashboardKey = dashboardClientKey(sessionSecret(process.env));
// Every answer names its site (the same value as lib/service/proofs/own-origin.ts, with lib/env.ts's
// default SITE_URL), so the deliverable prober recognises this app's own pages behind any alias.
const ownSite = new URL(process.env.SITE_URL || `http://localhost:${port}`).origin;
// How long a stopping process lets the requests in flight finish (SIGTERM) before it cuts them.
const shutdownMs = Number(process.env.SHUTDOWN_TIMEOUT_MS || 10_000);

/** How many processes serve: WEB_CONCURRENCY, else one per core; always one on PGlite. */
function processCount() {
  if (!process.env.DATABASE_URL) return 1;
  const wanted = Number(process.env.WEB_CONCURRENCY || os.availableParallelism());
  if (!Number.isInteger(wanted) || wanted < 1)
    throw new Error(`WEB_CONCURRENCY=${process.env.WEB_CONCURRENCY} is not a positive whole number`);
  return wanted;
}

const count = processCount();
if (cluster.isPrimary && count > 1) {
  runPrimary(count);
} else {
  if (cluster.isPrimary) {
    console.log(
      process.env.DATABASE_URL
        ? "[server] 1 process (WEB_CONCURRENCY=1)"
        : "[server] 1 process: PGlite keeps the data in this process; set DATABASE_URL (PostgreSQL) to use every core",
    );
  }
  await serve();
}

/** The primary only forks, restarts a process that dies, and stops them all on a signal. */
function runPrimary(n) {
  let stopping = false;
  let listening = 0;
  const fork = () => {
    const worker = cluster.fork();
    worker.once("listening", () => {
      listening += 1;
      if (listening === n)
        console.log(
          `[server] listening on http://${hostname}:${port} with ${n} processes (pids ${Object.values(
            cluster.workers ?? {},
          )
            .map((w) => w?.process.pid)
            .join(", ")})`,
        );
    });
    return worker;
  };
  for (let i = 0; i < n; i++) fork();
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) return;
    console.error(`[server] process ${worker.process.pid} exited (${signal ?? code}); starting another`);
    listening -= 1;
    setTimeout(fork, 1000).unref();
  });
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
      stopping = true;
      const alive = Object.values(cluster.workers ?? {}).filter(Boolean);
      if (alive.length === 0) process.exit(0);
      let left = alive.length;
      for (const worker of alive) {
        worker.once("exit", () => {
          left -= 1;
          if (left === 0) process.exit(0);
        });
        worker.process.kill("SIGTERM");
      }
      // Each process drains for up to shutdownMs; this is only the backstop for one that hangs.
      setTimeout(() => process.exit(0), shutdownMs + 5000).unref();
    });
  }
}

/**
 * Sets headers on the raw request (lower-case names), replacing whatever the client sent under those
 * names, in both forms Node keeps: `headers` (what Next reads) and `rawHeaders` (what
 * @hono/node-server builds the service's Request from). A stamp left only in `headers` would let a
 * client's own x-awm-client-ip or x-awm-forwarded reach the service on the /v1 fast path.
 */
function stamp(req, values) {
  const raw = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (!Object.hasOwn(values, req.rawHeaders[i].toLowerCase())) raw.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  for (const [name, value] of Object.entries(values)) {
    req.headers[name] = value;
    raw.push(name, value);
  }
  req.rawHeaders.splice(0, req.rawHeaders.length, ...raw);
}

async function serve() {
  const app = next({ dev: false, hostname, port, dir: process.cwd() });
  const handle = app.getRequestHandler();
  await app.prepare();

  // /v1 straight to the service once this process's /v1 route has registered it
  // (lib/net/service-handler.mjs). overrideGlobalObjects: false, since Next shares this process and
  // its globals: the listener must not swap the global Request and Response for its own.
  // Node's request goes along: the service reads a body straight from it (ServiceBindings.incoming).
  const serviceListener = getRequestListener((request, env) => registeredServiceHandler()(request, env?.incoming), {
    overrideGlobalObjects: false,
  });

  const server = createServer((req, res) => {
    const { clientIp, forwarded } = resolveClient({
      peer: req.socket.remoteAddress,
      headers: req.headers,
      trust,
      dashboardKey,
    });
    stamp(req, {
      [CLIENT_IP_HEADER]: clientIp,
      [FORWARDED_HEADER]: forwarded ? "1" : "0",
      [PAGE_PATH_HEADER]: (req.url ?? "/").split("?")[0].slice(0, 512),
    });
    res.setHeader("x-awm-site", ownSite);
    if (isServiceTarget(req.url) && registeredServiceHandler()) {
      for (const { key, value } of FRAME_HEADERS) res.setHeader(key, value);
      serviceListener(req, res);
      return;
    }
    handle(req, res);
  });
  // Expect: 100-continue: no go-ahead for a service request whose declared body is too large.
  answerExpectContinue(server, isServiceTarget);
  server.listen(port, hostname, () => {
    if (cluster.isPrimary) console.log(`[server] listening on http://${hostname}:${port}`);
  });

  // Graceful stop (a rolling deploy, the orchestrator, the cluster's primary): stop accepting, let
  // the requests in flight finish (at most shutdownMs, then cut), then stop the workers and close
  // the database pools, and exit 0. Idle keep-alive connections are closed at once, and an answer
  // written meanwhile says `Connection: close`, so clients reconnect to a process that stays.
  let stopping = false;
  /** Answers being written, so a stop can tell them to close their connection. */
  const inFlight = new Set();
  const closeWhenAnswered = (res) => {
    res.shouldKeepAlive = false;
    if (!res.headersSent) res.setHeader("connection", "close");
  };
  const stop = async (signal) => {
    if (stopping) return;
    stopping = true;
    console.log(`[server] ${signal}: finishing the requests in flight (at most ${shutdownMs} ms)`);
    // Answers not yet begun close their connection: the client's next request goes to a process that stays.
    for (const res of inFlight) closeWhenAnswered(res);
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeIdleConnections();
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    let timer;
    const cut = new Promise((resolve) => (timer = setTimeout(() => resolve("cut"), shutdownMs)));
    if ((await Promise.race([closed, cut])) === "cut") {
      console.error(`[server] requests still running after ${shutdownMs} ms: cut`);
      server.closeAllConnections();
    }
    clearTimeout(timer);
    clearInterval(idle);
    try {
      await registeredServiceShutdown()?.();
    } catch (error) {
      console.error(`[server] shutdown: ${error?.message ?? error}`);
    }
    process.exit(0);
  };
  server.on("request", (req, res) => {
    if (stopping) closeWhenAnswered(res);
    inFlight.add(res);
    res.once("close", () => inFlight.delete(res));
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => void stop(signal));
}
