import ipaddr from "ipaddr.js";

/**
 * Which IP addresses the deliverable prober may open a socket to.
 *
 * The policy is an allow-list: an address passes only when it is global unicast. Everything else
 * (loopback, RFC 1918, link-local and the cloud metadata address, CGNAT, unique-local, multicast,
 * documentation and benchmarking nets, ...) is refused, because a submitted URL is untrusted and
 * the prober runs inside our network. Addresses that embed an IPv4 address (IPv4-mapped, NAT64,
 * 6to4) are judged by the embedded address, since that is where the packets end up.
 */

export interface AddressPolicyOptions {
  /**
   * Permit 127.0.0.0/8 and ::1, and nothing else that is not public. Only for the local stack
   * and tests, and only through an explicit setting: a production prober must never reach its
   * own host. The service grants it only on the local chain (fetch-policy.ts), and even then this
   * app's own socket stays refused (own-origin.ts).
   */
  allowLoopback?: boolean;
}

export type AddressVerdict =
  | {
      allowed: true;
      /** The canonical address to connect to (embedded IPv4 for IPv4-mapped forms). */
      address: string;
      family: 4 | 6;
    }
  | { allowed: false; reason: string };

// Names that ipaddr.js gives to ranges, turned into words for the refusal reason.
const RANGE_WORDS: Record<string, string> = {
  unspecified: "unspecified",
  broadcast: "a broadcast address",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "in the shared carrier-grade NAT range (100.64.0.0/10)",
  private: "private",
  reserved: "reserved",
  as112: "reserved for AS112 DNS service",
  amt: "reserved for AMT relays",
  benchmarking: "reserved for benchmarking",
  uniqueLocal: "unique-local (private)",
  deprecatedSiteLocal: "site-local (private)",
  discard: "in the discard-only range",
  as112v6: "reserved for AS112 DNS service",
  deprecatedOrchid: "an ORCHID identifier",
  orchid2: "an ORCHID identifier",
  droneRemoteIdProtocolEntityTags: "a drone remote ID tag",
  segmentRouting: "reserved for segment routing",
};

const METADATA_V4 = "169.254.169.254";
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR("64:ff9b::/96");
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR("2000::/3");

function describeRange(range: string): string {
  return RANGE_WORDS[range] ?? `not public (${range})`;
}

function v4FromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function classifyV4(ip: ipaddr.IPv4, allowLoopback: boolean): string | null {
  const range = ip.range();
  if (range === "unicast") return null;
  if (range === "loopback" && allowLoopback) return null;
  const text = ip.toString();
  if (text === METADATA_V4) return `address ${text} is link-local (the cloud metadata service)`;
  return `address ${text} is ${describeRange(range)}`;
}

/**
 * Judges one address. The input is what a URL parser or a resolver produced; it is parsed again
 * here so that odd spellings (zero-padded, hexadecimal) cannot slip past a string comparison.
 */
export function classifyAddress(input: string, options: AddressPolicyOptions = {}): AddressVerdict {
  const allowLoopback = options.allowLoopback === true;
  const raw = input.startsWith("[") && input.endsWith("]") ? input.slice(1, -1) : input;
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(raw);
  } catch {
    return { allowed: false, reason: `"${input}" is not an IP address` };
  }

  if (ip.kind() === "ipv4") {
    const v4 = ip as ipaddr.IPv4;
    const reason = classifyV4(v4, allowLoopback);
    return reason ? { allowed: false, reason } : { allowed: true, address: v4.toString(), family: 4 };
  }

  const v6 = ip as ipaddr.IPv6;
  const text = v6.toString();
  if (v6.zoneId) return { allowed: false, reason: `address ${input} is scoped to a local interface` };
  const range: string = v6.range();
  const parts = v6.parts;

  switch (range) {
    case "loopback":
      return allowLoopback
        ? { allowed: true, address: text, family: 6 }
        : { allowed: false, reason: `address ${text} is loopback` };
    case "ipv4Mapped":
    case "rfc6145": {
      // The socket would reach the embedded IPv4 address; judge that one, with no loopback
      // exemption: only the canonical forms 127.0.0.0/8 and ::1 are ever exempt.
      const embedded = v4FromParts(parts[6], parts[7]);
      const reason = classifyV4(embedded, false);
      if (reason) return { allowed: false, reason: `address ${text} maps to IPv4 and ${reason}` };
      return { allowed: true, address: embedded.toString(), family: 4 };
    }
    case "rfc6052": {
      // Only the well-known NAT64 prefix has a fixed layout; a local-use prefix may be
      // translated anywhere by the operator's gateway.
      if (!v6.match(NAT64_WELL_KNOWN)) {
        return { allowed: false, reason: `address ${text} is a local-use NAT64 address` };
      }
      const embedded = v4FromParts(parts[6], parts[7]);
      const reason = classifyV4(embedded, false);
      if (reason) return { allowed: false, reason: `address ${text} is NAT64 and ${reason}` };
      return { allowed: true, address: text, family: 6 };
    }
    case "6to4": {
      const embedded = v4FromParts(parts[1], parts[2]);
      const reason = classifyV4(embedded, false);
      if (reason) return { allowed: false, reason: `address ${text} is 6to4 and ${reason}` };
      return { allowed: true, address: text, family: 6 };
    }
    case "teredo": {
      // Teredo is obsolete; nothing legitimate needs it, and both embedded addresses (server,
      // and the client obfuscated by XOR) would have to be checked.
      const client = v4FromParts(parts[6] ^ 0xffff, parts[7] ^ 0xffff);
      return {
        allowed: false,
        reason: `address ${text} is a Teredo tunnel address (embedding ${client.toString()})`,
      };
    }
    case "unicast":
      // ipaddr.js calls everything outside its special list "unicast", including the
      // deprecated IPv4-compatible ::a.b.c.d block and unallocated space; only 2000::/3 is
      // actually routed on the internet.
      if (!v6.match(GLOBAL_UNICAST_V6)) {
        return { allowed: false, reason: `address ${text} is not a global unicast address` };
      }
      return { allowed: true, address: text, family: 6 };
    default:
      return { allowed: false, reason: `address ${text} is ${describeRange(range)}` };
  }
}

/** True when the host part of a WHATWG URL (brackets included for IPv6) is a literal IP. */
export function isIpLiteralHost(hostname: string): boolean {
  if (hostname.startsWith("[")) return true;
  // The WHATWG parser has already turned every IPv4 spelling into dotted decimal.
  return ipaddr.IPv4.isValidFourPartDecimal(hostname);
}

/** True for 127.0.0.0/8 and ::1 in their canonical forms. */
export function isLoopbackLiteral(hostname: string): boolean {
  const raw = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  try {
    return ipaddr.parse(raw).range() === "loopback";
  } catch {
    return false;
  }
}
