/**
 * Hosts whose URLs cannot serve as proof of delivery because they do not stay up through the
 * proof hold: tunnels that vanish when a laptop closes, and paste or file drops that expire by
 * design. A URL matches when its host is the listed domain or any subdomain of it.
 */

export const TUNNEL_DOMAINS: readonly string[] = [
  "ngrok.io",
  "ngrok.app",
  "ngrok.dev",
  "ngrok-free.app",
  "ngrok-free.dev",
  "ngrok.pizza",
  "trycloudflare.com",
  "loca.lt",
  "localtunnel.me",
  "serveo.net",
  "serveousercontent.com",
  "localhost.run",
  "lhr.life",
  "lhr.rocks",
  "pagekite.me",
  "localto.net",
  "loclx.io",
  "tunnelto.dev",
  "bore.pub",
  "tunnelmole.net",
  "pinggy.link",
  "pinggy.online",
  "a.pinggy.io",
  "share.zrok.io",
  "devtunnels.ms",
  "sharedwithexpose.com",
  "telebit.io",
  "localhost.direct",
  // Port forwards of cloud development workspaces: gone when the workspace stops.
  "app.github.dev",
  "preview.app.github.dev",
  "gitpod.io",
];

export const PASTE_DOMAINS: readonly string[] = [
  "termbin.com",
  "0x0.st",
  "transfer.sh",
  "file.io",
  "paste.rs",
  "dpaste.com",
  "dpaste.org",
  "ix.io",
  "sprunge.us",
  "clbin.com",
  "ttm.sh",
  "envs.sh",
  "x0.at",
  "oshi.at",
  "temp.sh",
  "tmpfiles.org",
  "bashupload.com",
  "litterbox.catbox.moe",
  "uguu.se",
  "keep.sh",
  "tmp.ninja",
  "paste.c-net.org",
  "pastebin.mozilla.org",
  "hastebin.com",
  "hastebin.skyra.pw",
  "toptal.com/developers/hastebin",
  "privatebin.net",
  "ghostbin.co",
  "wetransfer.com",
  "we.tl",
];

function matches(hostname: string, pathname: string, entry: string): boolean {
  const slash = entry.indexOf("/");
  const domain = slash === -1 ? entry : entry.slice(0, slash);
  const path = slash === -1 ? null : entry.slice(slash);
  const hostMatches = hostname === domain || hostname.endsWith(`.${domain}`);
  if (!hostMatches) return false;
  return path === null || pathname === path || pathname.startsWith(`${path}/`);
}

export type HostRuleHit = { rule: "TUNNEL" | "PASTE"; domain: string };

/** Returns which list a URL falls under, or null. */
export function matchDisallowedHost(url: URL): HostRuleHit | null {
  const hostname = url.hostname.toLowerCase().replace(/\.$/, "");
  for (const entry of TUNNEL_DOMAINS) {
    if (matches(hostname, url.pathname, entry)) return { rule: "TUNNEL", domain: entry };
  }
  for (const entry of PASTE_DOMAINS) {
    if (matches(hostname, url.pathname, entry)) return { rule: "PASTE", domain: entry };
  }
  return null;
}

// Path segments that mean "log in first" when a deliverable redirects to them.
const LOGIN_SEGMENTS = new Set([
  "login",
  "log-in",
  "log_in",
  "logon",
  "signin",
  "sign-in",
  "sign_in",
  "auth",
  "authenticate",
  "authorize",
  "oauth",
  "oauth2",
  "sso",
  "saml",
  "cas",
  "openid-connect",
]);

// Host labels of identity providers: accounts.google.com, login.microsoftonline.com, ...
const LOGIN_HOST_LABELS = new Set(["accounts", "login", "signin", "auth", "sso", "id", "idp", "account"]);

/** Why a URL looks like a login wall (for redirect targets and final URLs), or null. */
export function loginUrlReason(url: URL): string | null {
  const hostname = url.hostname.toLowerCase();
  const firstLabel = hostname.split(".")[0];
  if (hostname.includes(".") && LOGIN_HOST_LABELS.has(firstLabel)) {
    return `it leads to the sign-in host ${hostname}`;
  }
  const segments = url.pathname.toLowerCase().split("/").filter(Boolean);
  const hit = segments.find((s) => LOGIN_SEGMENTS.has(s.replace(/\.(php|aspx?|html?|jsp)$/, "")));
  if (hit) return `it leads to the sign-in page ${url.origin}${url.pathname}`;
  // Rails, Django and friends: /users/sign_in, /accounts/login/ are caught above; the session
  // form (/session/new) is not a segment name of its own.
  if (/\/sessions?\/new\/?$/.test(url.pathname.toLowerCase())) {
    return `it leads to the sign-in page ${url.origin}${url.pathname}`;
  }
  return null;
}
