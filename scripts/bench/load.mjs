// The load generator of `npm run bench`, in its own process so that it never shares an event loop
// (or a core's time slice) with the server it measures: argv[2] is autocannon's options as JSON,
// stdout one JSON line with the result.
import autocannon from "autocannon";

const options = JSON.parse(process.argv[2]);
const result = await autocannon({ ...options, headers: { accept: "application/json", ...(options.headers ?? {}) } });
process.stdout.write(
  JSON.stringify({
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: result.requests.average,
    total: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  }) + "\n",
);
