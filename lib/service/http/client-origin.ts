import { createHmac } from "node:crypto";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * The network a request came from, as stored with forum posts for "one reward per kind per
 * network": an HMAC (keyed by config.originHashSecret) of the client address's /24 for IPv4 or
 * /64 for IPv6. A prefix, because one person easily holds several addresses of one network (a
 * home router, a cloud subnet) but rarely many networks; a keyed hash, because the rule needs only
 * "same network or not", and a raw address is personal data a database dump should not reveal.
 * Null when the address is unknown (no socket, e.g. a script calling the service in-process).
 */
export function originKeyOf(clientIp: string | null | undefined, secret: string): string | null {
  const prefix = networkPrefix(clientIp ?? "");
  if (!prefix) return null;
  return createHmac("sha256", secret).update(prefix).digest("hex").slice(0, 32);
}

export function networkPrefix(ip: string): string | null {
  let address = ip.trim();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) address = mapped[1]!;
  const version = isIP(address);
  if (version === 4) return `v4:${address.split(".").slice(0, 3).join(".")}`;
  if (version === 6) return `v6:${expandIpv6(address).slice(0, 4).join(":")}`;
  return null;
}

function expandIpv6(address: string): string[] {
  const [head, tail] = address.split("%")[0]!.split("::");
  const left = head ? head.split(":") : [];
  const right = tail !== undefined && tail ? tail.split(":") : [];
  const fill = tail !== undefined ? Array(8 - left.length - right.length).fill("0") : [];
  return [...left, ...fill, ...right].map((g) => parseInt(g || "0", 16).toString(16));
}

/**
 * The client a rate budget or a stream cap counts: an IPv4 address as it is, an IPv6 address as its
 * /64. One subscriber (a home, a cloud machine) is routinely handed a whole /64, 2^64 addresses, so
 * counting IPv6 addresses one by one would give such a client unlimited budgets. IPv4-mapped IPv6 is
 * the IPv4 address. Anything that is no address ("unknown") is its own key.
 */
export function clientKeyOf(ip: string): string {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.process(ip.trim().split("%")[0]!);
  } catch {
    return ip;
  }
  if (address.kind() === "ipv4") return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(":")}::/64`;
}
