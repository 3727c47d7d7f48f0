// The production server: Next (dashboard + /v1) behind a plain Node HTTP server, so that the
// caller's address comes from the socket. Any client-sent x-awm-client-ip is overwritten. The first
// X-Forwarded-For entry is believed from loopback peers (the dashboard's own server calls to /v1
// forward the browser's address that way, and a proxy on this machine does the same), and from any
// peer with TRUST_PROXY=1 (only behind a proxy you run).
import { createServer } from "node:http";
import next from "next";

const port = Number(process.env.PORT || 3000);
const hostname = process.env.HOST || "127.0.0.1";
// Every answer names its site (the same value as lib/service/proofs/own-origin.ts, with lib/env.ts's
// default SITE_URL), so the deliverable prober recognises this app's own pages behind any alias.
const ownSite = new URL(process.env.SITE_URL || `http://localhost:${port}`).origin;
const trustProxy = ["1", "true", "yes"].includes(String(process.env.TRUST_PROXY || "").toLowerCase());

const app = next({ dev: false, hostname, port, dir: process.cwd() });
const handle = app.getRequestHandler();
await app.prepare();

const server = createServer((req, res) => {
  const forwarded = req.headers["x-forwarded-for"];
  const first = typeof forwarded === "string" ? forwarded.split(",")[0].trim() : undefined;
  const peer = req.socket.remoteAddress ?? "unknown";
  const peerIsLoopback = peer === "::1" || peer.startsWith("127.") || peer.startsWith("::ffff:127.");
  req.headers["x-awm-client-ip"] = first && (trustProxy || peerIsLoopback) ? first : peer;
  res.setHeader("x-awm-site", ownSite);
  handle(req, res);
});
server.listen(port, hostname, () => {
  console.log(`[server] listening on http://${hostname}:${port}`);
});

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.close();
    process.exit(0);
  });
}
