import os from "node:os";
import ipaddr from "ipaddr.js";

/**
 * The service's own origin: what a URL that strangers submit (deliverables, criteria checks) must
 * never reach. The prober fetches from inside the service's host, so a URL that comes back to
 * this app is not proof of anything: the job's own public page carries its proof marker (a
 * submission that "proves" itself), and a page answered only to loopback clients (the development
 * outbox with its claim links) would turn the marker into a yes/no oracle on a private page.
 *
 * Three ways a URL reaches this app, all refused (safe-fetch.ts applies them on every hop):
 * - by name: SITE_URL's host (any port), and `localhost` / `*.localhost` always (RFC 6761: they
 *   only ever mean this machine);
 * - by address and port: a loopback or unspecified address (0.0.0.0, ::, 127.0.0.0/8, ::1, and
 *   IPv4-mapped forms of them), or an address this app listens on, with one of this app's ports
 *   (its listen port, SITE_URL's port). Any spelling of an address is parsed again first, so
 *   127.1, 2130706433, 0x7f000001 or [::ffff:127.0.0.1] are the same as 127.0.0.1;
 * - by answer: a response that carries this app's own header (OWN_ORIGIN_HEADER, set on every
 *   /v1 response and by scripts/server.mjs on every page) with this site's value. That catches
 *   aliases the first two cannot see (a DNS name pointed at a proxy that forwards any host here).
 */

export interface OwnOrigin {
  /** Host names of this app (lower case, no trailing dot): refused on any port. */
  hostnames: string[];
  /** Ports this app answers on, on any local address. */
  ports: number[];
  /** Non-loopback addresses this app listens on (canonical text); loopback and unspecified always count. */
  addresses: string[];
  /** The value of OWN_ORIGIN_HEADER this app sends; null: not known. */
  headerValue: string | null;
}

/** Every response of this app says which site it is, so the prober can recognise itself. */
export const OWN_ORIGIN_HEADER = "x-awm-site";

function canonical(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const raw = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  try {
    const ip = ipaddr.parse(raw);
    if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) return (ip as ipaddr.IPv6).toIPv4Address();
    return ip;
  } catch {
    return null;
  }
}

function effectivePort(url: URL): number {
  return url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
}

/** The header value for a site URL: its origin (public already), so every instance of one site agrees. */
export function ownOriginHeaderValue(siteUrl: string): string {
  return new URL(siteUrl).origin;
}

/**
 * What "this app" is, from its site URL and the socket it listens on. An app that listens on all
 * interfaces (0.0.0.0 or ::) is reachable on every address of this machine.
 */
export function ownOriginOf(input: {
  siteUrl: string | null;
  listen: { host: string; port: number } | null;
}): OwnOrigin {
  const hostnames = new Set<string>();
  const ports = new Set<number>();
  const addresses = new Set<string>();
  if (input.siteUrl) {
    const site = new URL(input.siteUrl);
    hostnames.add(
      site.hostname
        .toLowerCase()
        .replace(/\.$/, "")
        .replace(/^\[|\]$/g, ""),
    );
    ports.add(effectivePort(site));
  }
  if (input.listen) {
    ports.add(input.listen.port);
    const host = input.listen.host.toLowerCase();
    const ip = canonical(host);
    if (ip === null) {
      hostnames.add(host.replace(/\.$/, ""));
    } else if (ip.range() === "unspecified") {
      for (const list of Object.values(os.networkInterfaces())) {
        for (const info of list ?? []) {
          const local = canonical(info.address.split("%")[0]!);
          if (local) addresses.add(local.toString());
        }
      }
    } else {
      addresses.add(ip.toString());
    }
  }
  // A literal IP in SITE_URL is an address of this app too.
  for (const name of [...hostnames]) {
    const ip = canonical(name);
    if (ip) {
      hostnames.delete(name);
      addresses.add(ip.toString());
    }
  }
  return {
    hostnames: [...hostnames],
    ports: [...ports],
    addresses: [...addresses],
    headerValue: input.siteUrl ? ownOriginHeaderValue(input.siteUrl) : null,
  };
}

/** Why a host name names this app, or null. Needs no network. */
export function ownHostReason(hostname: string, own: OwnOrigin | null | undefined): string | null {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) {
    return `host ${name} is this machine; URLs of this marketplace itself are not accepted`;
  }
  if (own?.hostnames.includes(name)) return `host ${name} is this marketplace itself; its own pages are not accepted`;
  return null;
}

/** Why an address and port reach this app, or null. */
export function ownAddressReason(address: string, port: number, own: OwnOrigin | null | undefined): string | null {
  if (!own || !own.ports.includes(port)) return null;
  const ip = canonical(address);
  if (!ip) return null;
  const range = ip.range();
  if (range === "loopback" || range === "unspecified" || own.addresses.includes(ip.toString())) {
    return `address ${ip.toString()} port ${port} is this marketplace itself; its own pages are not accepted`;
  }
  return null;
}

/**
 * The check of a whole URL that needs no network (name, literal address and port), for refusing a
 * URL up front (a submission, a job's criteria). safeFetch applies the same rules to every hop,
 * and to the addresses a name resolves to.
 */
export function ownUrlReason(input: string | URL, own: OwnOrigin | null | undefined): string | null {
  let url: URL;
  try {
    url = typeof input === "string" ? new URL(input) : input;
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (canonical(host)) return ownAddressReason(host, effectivePort(url), own);
  return ownHostReason(host, own);
}

/** Why a response is this app's own (it carries this site's OWN_ORIGIN_HEADER), or null. */
export function ownResponseReason(
  headers: Record<string, string | string[] | undefined>,
  own: OwnOrigin | null | undefined,
): string | null {
  if (!own?.headerValue) return null;
  const value = headers[OWN_ORIGIN_HEADER];
  const values = Array.isArray(value) ? value : value === undefined ? [] : value.split(",").map((v) => v.trim());
  return values.includes(own.headerValue)
    ? "the URL is served by this marketplace itself; its own pages are not accepted"
    : null;
}
