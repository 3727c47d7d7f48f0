// Who is calling, decided once, in front of Next: scripts/server.mjs (production) and the test
// harness (lib/service/testing/harness.ts) both call resolveClient() on the raw request, before
// Next adds its own x-forwarded-* headers (Next sets X-Forwarded-For to the socket address on every
// request, so nothing behind it can tell a proxied request from a direct one). The verdict travels
// to the service and the pages in two headers that the server always overwrites:
//   x-awm-client-ip    the caller's address (per-IP rate budgets)
//   x-awm-forwarded    "1" when the request carried X-Forwarded-For, Forwarded or X-Real-IP, i.e.
//                      came through some proxy (the development outbox refuses those), else "0"
//
// Forwarding headers are believed only with TRUST_PROXY (see parseTrustProxy), and then the client
// is the right-most X-Forwarded-For address that is not a trusted hop: a client may write anything
// into the left of the list, but each trusted proxy appends the address it saw.
//
// The dashboard's own server-side calls to /v1 come from loopback; to keep per-IP budgets per
// browser they carry the browser's address in x-awm-dashboard-client, authenticated with an HMAC
// of a key derived from the session secret (which only this app holds) and fresh for five minutes.
// A header that does not verify is ignored, so a stranger cannot choose their address with it.
// Plain .mjs because scripts/server.mjs runs without a TypeScript loader; types in the .d.mts.
import { createHmac, timingSafeEqual } from "node:crypto";
import ipaddr from "ipaddr.js";

export const CLIENT_IP_HEADER = "x-awm-client-ip";
export const FORWARDED_HEADER = "x-awm-forwarded";
export const DASHBOARD_CLIENT_HEADER = "x-awm-dashboard-client";
/**
 * The path of the page being served (no query: it may hold a token), stamped by scripts/server.mjs
 * over anything a client sent, so the dashboard's log names the page a failed call served.
 */
export const PAGE_PATH_HEADER = "x-awm-page-path";

/** Headers that say a proxy (or a client pretending to be one) stands between the caller and us. */
const FORWARDING_HEADERS = ["x-forwarded-for", "forwarded", "x-real-ip"];

const DASHBOARD_CLIENT_MAX_AGE_MS = 5 * 60_000;

/**
 * TRUST_PROXY: unset, "", "0", "false", "no": forwarding headers are ignored (the socket's peer is
 * the client). A whole number N ("1", or "true"/"yes" meaning 1): N proxies stand in front, so skip
 * N hops from the right (the peer, then X-Forwarded-For right to left). Otherwise a comma list of
 * the proxies' addresses or CIDRs ("loopback" stands for 127.0.0.0/8 and ::1): skip hops while
 * they are in the list.
 * @param {string | undefined} value
 * @returns {{ kind: "off" } | { kind: "hops", hops: number } | { kind: "list", ranges: Array<[any, number]> }}
 */
export function parseTrustProxy(value) {
  const v = String(value ?? "")
    .trim()
    .toLowerCase();
  if (["", "0", "false", "no", "off"].includes(v)) return { kind: "off" };
  if (["true", "yes", "on"].includes(v)) return { kind: "hops", hops: 1 };
  if (/^\d+$/.test(v)) return { kind: "hops", hops: Number(v) };
  const ranges = [];
  for (const raw of v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (raw === "loopback") {
      ranges.push(ipaddr.parseCIDR("127.0.0.0/8"), ipaddr.parseCIDR("::1/128"));
      continue;
    }
    try {
      ranges.push(raw.includes("/") ? ipaddr.parseCIDR(raw) : cidrOfAddress(ipaddr.process(raw)));
    } catch {
      throw new Error(`TRUST_PROXY: "${raw}" is not an address, a CIDR, "loopback" or a number of hops`);
    }
  }
  return { kind: "list", ranges };
}

function cidrOfAddress(address) {
  return [address, address.kind() === "ipv4" ? 32 : 128];
}

/** An address in its plain form (IPv4-mapped IPv6 as IPv4), or null when it is none. */
function normalise(address) {
  if (typeof address !== "string") return null;
  try {
    return ipaddr.process(address.trim()).toString();
  } catch {
    return null;
  }
}

function inRanges(address, ranges) {
  const parsed = ipaddr.process(address);
  return ranges.some(([range, bits]) => parsed.kind() === range.kind() && parsed.match(range, bits));
}

/** One header's value from a Node header object or a fetch Headers. */
function header(headers, name) {
  if (typeof headers.get === "function") return headers.get(name) ?? undefined;
  const value = headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

/** Did the request come through a proxy (or claim to)? Judged on the raw request, before Next. */
export function carriesForwardingHeaders(headers) {
  return FORWARDING_HEADERS.some((name) => header(headers, name) !== undefined);
}

/**
 * The client's address: the socket's peer, or with TRUST_PROXY the right-most X-Forwarded-For hop
 * that is not trusted. An entry that is not an address ends the walk at the hop that reported it.
 */
export function clientAddress(peer, forwardedFor, trust) {
  const peerAddress = normalise(peer) ?? "unknown";
  if (trust.kind === "off" || !forwardedFor || peerAddress === "unknown") return peerAddress;
  const hops = forwardedFor
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .reverse();
  let client = peerAddress;
  for (let i = 0; i < hops.length; i += 1) {
    const trusted = trust.kind === "hops" ? i < trust.hops : inRanges(client, trust.ranges);
    if (!trusted) break;
    const next = normalise(hops[i]);
    if (!next) break;
    client = next;
  }
  return client;
}

/** The key of x-awm-dashboard-client, derived from the session secret so that nothing else needs setting. */
export function dashboardClientKey(sessionSecret) {
  return createHmac("sha256", sessionSecret).update("awm dashboard client address v1").digest();
}

function dashboardSignature(key, payload) {
  return createHmac("sha256", key).update(payload).digest("base64url");
}

/** x-awm-dashboard-client for a server-side call made for a browser at `address` (forwarded: it came through a proxy). */
export function signDashboardClient(key, address, forwarded, now = Date.now()) {
  const payload = `${address} ${forwarded ? 1 : 0} ${now}`;
  return `${payload} ${dashboardSignature(key, payload)}`;
}

/** The browser's address and proxy verdict from x-awm-dashboard-client, or null if it does not verify or is stale. */
export function verifyDashboardClient(key, value, now = Date.now()) {
  if (!key || typeof value !== "string") return null;
  const parts = value.trim().split(" ");
  if (parts.length !== 4) return null;
  const [address, forwarded, at, signature] = parts;
  const expected = Buffer.from(dashboardSignature(key, `${address} ${forwarded} ${at}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  if (!/^\d+$/.test(at) || Math.abs(now - Number(at)) > DASHBOARD_CLIENT_MAX_AGE_MS) return null;
  const normalised = normalise(address);
  if (!normalised || (forwarded !== "0" && forwarded !== "1")) return null;
  return { clientIp: normalised, forwarded: forwarded === "1" };
}

/**
 * The one rule, for the raw request in front of Next: the client's address and whether a proxy
 * stood in between. A verified dashboard header speaks for the browser behind the dashboard.
 * @param {{ peer: string | undefined, headers: any, trust: ReturnType<typeof parseTrustProxy>, dashboardKey?: Buffer | null, now?: number }} input
 */
export function resolveClient({ peer, headers, trust, dashboardKey = null, now = Date.now() }) {
  const dashboard = verifyDashboardClient(dashboardKey, header(headers, DASHBOARD_CLIENT_HEADER), now);
  const forwarded = carriesForwardingHeaders(headers);
  if (dashboard) return { clientIp: dashboard.clientIp, forwarded: dashboard.forwarded || forwarded };
  return { clientIp: clientAddress(peer, header(headers, "x-forwarded-for"), trust), forwarded };
}
