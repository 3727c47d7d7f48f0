// The production server: Next (dashboard + /v1) behind a plain Node HTTP server, so that the
// caller's address and whether a proxy stood in between are judged on the raw request, before Next
// adds x-forwarded-* headers of its own. The rule lives in lib/net/client-address.mjs (shared with
// the test harness): forwarding headers are believed only with TRUST_PROXY, and then the right-most
// untrusted hop is the client; the dashboard's own calls to /v1 speak for the browser with a header
// authenticated by a key derived from the session secret. The stamps overwrite anything a client sent.
import { createServer } from "node:http";
import next from "next";
import { CLIENT_IP_HEADER, FORWARDED_HEADER, dashboardClientKey, parseTrustProxy, resolveClient } from "../lib/net/client-address.mjs";
import { sessionSecret } from "../lib/server-secrets.mjs";

const port = Number(process.env.PORT || 3000);
const hostname = process.env.HOST || "127.0.0.1";
const trust = parseTrustProxy(process.env.TRUST_PROXY);
const dashboardKey = dashboardClientKey(sessionSecret(process.env));
// Every answer names its site (the same value as lib/service/proofs/own-origin.ts, with lib/env.ts's
// default SITE_URL), so the deliverable prober recognises this app's own pages behind any alias.
const ownSite = new URL(process.env.SITE_URL || `http://localhost:${port}`).origin;

const app = next({ dev: false, hostname, port, dir: process.cwd() });
const handle = app.getRequestHandler();
await app.prepare();

const server = createServer((req, res) => {
  const { clientIp, forwarded } = resolveClient({ peer: req.socket.remoteAddress, headers: req.headers, trust, dashboardKey });
  req.headers[CLIENT_IP_HEADER] = clientIp;
  req.headers[FORWARDED_HEADER] = forwarded ? "1" : "0";
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
