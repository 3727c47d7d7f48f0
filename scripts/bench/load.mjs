// The load generator of `npm run bench`, in its own process so that it never shares an event loop
// (or a core's time slice) with the server it measures: argv[2] is the options as JSON (or @<file> holding it)
// ({url, connections, duration, headers, overallRate?, sequence?}), stdout one JSON line with the result.
// `sequence` ([{method?, path, headers?, body?}]) gives the requests in turn across every connection
// (e.g. 40 agents each with its own key; bids on one new job each), instead of `url` again and again.
//
// Two models:
// - Saturation (no overallRate): autocannon, closed loop, each connection sends its next request as
//   soon as the last answer is in: the most the server can do.
// - A rate (overallRate): arrivals evenly spaced at that rate (an open model, as wrk2 does), each
//   request's latency counted from when it was due, not from when a connection was free, so a slow
//   server cannot hide its queue (coordinated omission). autocannon's own rate mode is not used for
//   this: each of its connections sends its whole per-second quota back to back at the top of every
//   second (lib/httpClient.js resets `reqsMadeThisSecond` once a second), so "500 req/s" arrives as a
//   burst of 500 and the percentiles measure how long the burst takes to drain.
import { readFileSync } from "node:fs";
import http from "node:http";
import autocannon from "autocannon";

const options = JSON.parse(
  process.argv[2].startsWith("@") ? readFileSync(process.argv[2].slice(1), "utf8") : process.argv[2],
);
const headers = { accept: "application/json", ...(options.headers ?? {}) };
let turn = 0;
/** The next request of the sequence (round robin over every connection), or null without one. */
const nextOf = (sequence) => (sequence ? sequence[turn++ % sequence.length] : null);
const result = options.overallRate ? await atRate(options) : await saturate(options);
process.stdout.write(JSON.stringify(result) + "\n");

async function saturate({ sequence, ...opts }) {
  const requests = sequence
    ? [
        {
          setupRequest: (req) => {
            const next = nextOf(sequence);
            return {
              ...req,
              method: next.method ?? "GET",
              path: next.path,
              headers: { ...headers, ...(next.headers ?? {}) },
              ...(next.body ? { body: next.body } : {}),
            };
          },
        },
      ]
    : undefined;
  const started = performance.now();
  const instance = autocannon({ ...opts, headers, ...(requests ? { requests } : {}) });
  // Answers over the time until the last one came: autocannon's requests.average is a mean of
  // whole-second samples, and a run of a fixed amount (the bids) ends on its next whole-second
  // tick, either of which quantises a run of a few seconds to total / whole seconds.
  let last = started;
  instance.on("response", () => (last = performance.now()));
  const run = await instance;
  const elapsed = (last - started) / 1000;
  return {
    p50: run.latency.p50,
    p99: run.latency.p99,
    rps: Math.round((run.requests.total / elapsed) * 10) / 10,
    total: run.requests.total,
    errors: run.errors + run.timeouts,
    non2xx: run.non2xx,
  };
}

async function atRate({ url, connections, duration, overallRate, sequence }) {
  // At most `connections` requests in flight (keep-alive sockets); a due request waits for a socket,
  // and that wait is part of its latency.
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const intervalMs = 1000 / overallRate;
  const total = Math.round(duration * overallRate);
  const latencies = [];
  let errors = 0;
  let non2xx = 0;
  let sent = 0;
  const pending = new Set();
  const started = performance.now();

  const send = (dueAt) => {
    const next = nextOf(sequence);
    const target = next ? new URL(next.path, url) : url;
    const request = new Promise((resolve) => {
      const req = http.request(
        target,
        { method: next?.method ?? "GET", agent, headers: { ...headers, ...(next?.headers ?? {}) }, timeout: 10_000 },
        (res) => {
          res.on("data", () => {});
          res.on("end", () => {
            if (res.statusCode < 200 || res.statusCode >= 300) non2xx += 1;
            latencies.push(performance.now() - dueAt);
            resolve();
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.on("error", () => {
        errors += 1;
        resolve();
      });
      req.end(next?.body);
    });
    pending.add(request);
    request.then(() => pending.delete(request));
  };

  // Every millisecond or so, send whatever has fallen due since the last tick, each with its own due time.
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && started + sent * intervalMs <= now) {
        send(started + sent * intervalMs);
        sent += 1;
      }
      if (sent < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  await Promise.all(pending);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();

  latencies.sort((a, b) => a - b);
  const at = (q) =>
    latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]) : 0;
  return {
    p50: at(0.5),
    p99: at(0.99),
    rps: Math.round((latencies.length / elapsed) * 10) / 10,
    total: latencies.length,
    errors,
    non2xx,
  };
}
