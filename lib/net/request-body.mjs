// The size of a request body, shared by the service (lib/service/router.ts, which refuses a larger
// one with 413) and the server in front of it (scripts/server.mjs in production, the test harness),
// which answers Expect: 100-continue. A refused body costs the client an answer, never a connection
// reset, and costs the server a bounded read.
// Plain .mjs because scripts/server.mjs runs without a TypeScript loader; types in the .d.mts.

/** The largest request body the service reads (a job with a 20,000-character brief fits many times over). */
export const MAX_BODY_BYTES = 256 * 1024;

/**
 * How much of a body over the limit the service still reads, and drops, before it answers 413, and
 * for how long. Answering first and closing the socket with unread data in it sends a TCP reset, and
 * a reset can reach the client before the answer it has not read yet: under load a 32 MiB upload saw
 * "connection reset" instead of its 413. A body larger than this, or slower, is answered at once and
 * its connection closed.
 */
export const DRAIN_BYTES = 48 * 1024 * 1024;
export const DRAIN_MS = 10_000;

/** The request declares a body larger than MAX_BODY_BYTES. */
export function declaresTooLargeBody(req) {
  const declared = Number(req.headers["content-length"]);
  return Number.isFinite(declared) && declared > MAX_BODY_BYTES;
}

/**
 * `Expect: 100-continue`: the client waits for a go-ahead before it sends its body. A request to the
 * service (`isServiceRequest(url)`) that declares too large a body gets none: the service answers
 * 413 at once (it checks Content-Length before reading), the client sends nothing, and the
 * connection closes cleanly. Every other request gets its 100 Continue, as Node gives by default.
 * @param {import("node:http").Server} server
 * @param {(url: string | undefined) => boolean} isServiceRequest
 */
export function answerExpectContinue(server, isServiceRequest) {
  server.on("checkContinue", (req, res) => {
    if (isServiceRequest(req.url) && declaresTooLargeBody(req)) res.setHeader("connection", "close");
    else res.writeContinue();
    server.emit("request", req, res);
  });
}
