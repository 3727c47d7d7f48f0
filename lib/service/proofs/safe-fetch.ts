import { promises as dnsPromises } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { IncomingMessage } from "node:http";
import type { LookupFunction, Socket } from "node:net";
import { pipeline, type Readable } from "node:stream";
import zlib from "node:zlib";

import { classifyAddress, isIpLiteralHost, type AddressPolicyOptions } from "./address-policy";
import { ownAddressReason, ownHostReason, ownResponseReason, type OwnOrigin } from "./own-origin";

/**
 * An SSRF-safe GET for URLs that strangers submit (deliverable links).
 *
 * Policy, per hop (the first URL and every redirect target alike):
 * - scheme http or https only; no user name or password in the URL;
 * - any port except the ones browsers refuse (the Fetch standard's "bad ports": SMTP, SSH, IRC,
 *   ...). Deliverables do live on :8080 and the like, and the address check below is what keeps
 *   internal services out; the bad-port list stops the prober being used to poke mail or shell
 *   servers of third parties;
 * - the host is taken from the WHATWG URL parser, which already folds decimal, hexadecimal,
 *   octal and short IPv4 spellings into dotted decimal; a literal IP is judged as is, a name is
 *   resolved once and refused if ANY of its addresses is not public unicast
 *   (see address-policy.ts); single-label names and local-only suffixes are refused by name;
 * - the socket is opened to the very address that was judged (the request's host is the IP, the
 *   Host header and TLS server name carry the original name), so a resolver that answers
 *   differently a second time (DNS rebinding) never gets a second say;
 * - redirects are followed by hand, at most 5, each target judged the same way before any
 *   connection is made;
 * - nothing on any hop may reach this app itself (own-origin.ts): not its names (SITE_URL's host,
 *   any localhost), not its listen port on a loopback, unspecified or own address however it is
 *   spelled or whatever name resolves to it, and no response that carries this site's own header.
 *   That holds with allowLoopback too: loopback means the developer's other servers, never us;
 * - no credentials: no cookies, no Authorization header, nothing but the URL is sent.
 *
 * Failures come back as values, never thrown: BLOCKED for a policy refusal, INCONCLUSIVE when the
 * network did not give an answer (timeouts, DNS failure, resets, TLS errors).
 */

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_REDIRECTS = 5;
/** The interface checks markers in the first 256 KiB; we never read further than that. */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;
const MAX_URL_LENGTH = 4096;
// Trying every address of a name with dozens of records would let one URL eat the whole budget.
const MAX_ADDRESS_ATTEMPTS = 3;

export type Resolver = (hostname: string) => Promise<string[]>;

export interface DialTarget {
  /** The validated address. */
  address: string;
  family: 4 | 6;
  port: number;
  hostname: string;
}

export interface SafeFetchOptions extends AddressPolicyOptions {
  /** Name to addresses; default `dns.promises.lookup(name, { all: true })`. Tests inject one. */
  resolve?: Resolver;
  /** Time allowed to open the connection (TLS handshake included) to one address. */
  connectTimeoutMs?: number;
  /** Time allowed for the whole fetch, every redirect and the body included. */
  timeoutMs?: number;
  maxRedirects?: number;
  maxBodyBytes?: number;
  userAgent?: string;
  signal?: AbortSignal;
  /** Extra trust anchors for HTTPS (the local stack's own CA, tests). */
  ca?: string | Buffer | Array<string | Buffer>;
  /**
   * The caller's own rule for a hop's URL, run after the built-in checks and before any
   * connection: return a reason to refuse (result code CALLER_POLICY), or null.
   */
  checkUrl?: (url: URL) => string | null;
  /**
   * Test seam: where to open the socket for a target that passed the checks. Tests use it to
   * stand a loopback server in for a public address. The answer is not checked again, so it
   * must never be derived from untrusted input; production leaves it unset.
   */
  dial?: (target: DialTarget) => { address: string; port: number };
  /**
   * This app itself (own-origin.ts), refused on every hop. The service always passes it (see
   * fetch-policy.ts); without it only `localhost` names are known to be this machine.
   */
  ownOrigin?: OwnOrigin;
  /**
   * A POST instead of a GET (webhook deliveries): the body and headers are sent on every address
   * tried. Pass maxRedirects 0 with it: a redirect is then refused, never followed with the body.
   */
  post?: { body: string; headers: Record<string, string> };
  /** Read the body of any answer, not only a 2xx one (a webhook's delivery log shows what the receiver said). */
  readAnyStatus?: boolean;
  /**
   * Read a 2xx answer's body whatever its declared type, and return its bytes (`bytes`): the proof
   * marker is decided on what the server sent, not on what it says the body is.
   */
  readBytes?: boolean;
}

export interface SafeFetchSuccess {
  ok: true;
  status: number;
  finalUrl: string;
  headers: Record<string, string>;
  /** Media type without parameters, lower case; null when the server sent none. */
  contentType: string | null;
  /** The body decoded as text (first maxBodyBytes), or null when it is not text-like or the status is not 2xx. */
  text: string | null;
  /**
   * With `readBytes`: the 2xx body as received (its first maxBodyBytes, after any Content-Encoding
   * is undone), of any type; null when it could not be read (an unknown Content-Encoding).
   */
  bytes?: Buffer | null;
  /** True when the body went on beyond maxBodyBytes and we stopped reading. */
  truncated: boolean;
  /** Every redirect target followed, in order (the last one is finalUrl). */
  redirects: string[];
}

export type SafeFetchFailureCode =
  | "INVALID_URL"
  | "SCHEME"
  | "USERINFO"
  | "PORT"
  | "HOST_NAME"
  | "ADDRESS"
  | "CALLER_POLICY"
  | "OWN_ORIGIN"
  | "REDIRECT_LIMIT"
  | "DNS"
  | "TIMEOUT"
  | "NETWORK"
  | "TLS"
  | "ABORTED";

export interface SafeFetchFailure {
  ok: false;
  kind: "BLOCKED" | "INCONCLUSIVE";
  code: SafeFetchFailureCode;
  reason: string;
  /** The URL of the hop that failed. */
  url: string;
  redirects: string[];
}

export type SafeFetchResult = SafeFetchSuccess | SafeFetchFailure;

// Ports the Fetch standard refuses (https://fetch.spec.whatwg.org/#port-blocking).
const BAD_PORTS = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110,
  111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532,
  540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061,
  6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

// Suffixes that only ever mean "this machine" or "this network" (RFC 6761, 6762, 8375, ICANN's
// .internal); refusing them by name saves a lookup that could only end in a refusal or a leak.
const LOCAL_SUFFIXES = ["localhost", "local", "internal", "home.arpa", "lan", "intranet", "corp"];

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/x-ndjson",
  "application/graphql",
  "application/x-sh",
  "application/sql",
  "image/svg+xml",
]);

export function isTextContentType(type: string): boolean {
  return type.startsWith("text/") || TEXT_TYPES.has(type) || type.endsWith("+json") || type.endsWith("+xml");
}

export async function defaultResolve(hostname: string): Promise<string[]> {
  const answers = await dnsPromises.lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => a.address);
}

type HopCheck =
  | { ok: true; url: URL; hostname: string; port: number; secure: boolean; literal: string | null }
  | { ok: false; code: SafeFetchFailureCode; reason: string };

/** The checks that need no network: scheme, credentials, port, host name shape. */
export function checkUrlShape(input: string | URL): HopCheck {
  const text = typeof input === "string" ? input : input.href;
  if (text.length > MAX_URL_LENGTH) {
    return { ok: false, code: "INVALID_URL", reason: `the URL is longer than ${MAX_URL_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, code: "INVALID_URL", reason: "the URL could not be parsed" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      ok: false,
      code: "SCHEME",
      reason: `the scheme "${url.protocol.replace(/:$/, "")}" is not allowed; only http and https are`,
    };
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, code: "USERINFO", reason: "URLs with a user name or password are not allowed" };
  }
  const secure = url.protocol === "https:";
  const port = url.port === "" ? (secure ? 443 : 80) : Number(url.port);
  if (BAD_PORTS.has(port)) {
    return { ok: false, code: "PORT", reason: `port ${port} is reserved for a non-web service` };
  }
  if (isIpLiteralHost(url.hostname)) {
    const literal = url.hostname.replace(/^\[|\]$/g, "");
    return { ok: true, url, hostname: literal, port, secure, literal };
  }
  const hostname = url.hostname.replace(/\.$/, "");
  // `localhost` is refused even with allowLoopback: it names this very app (own-origin.ts); the
  // local stack's other servers are reached by loopback literals.
  const local = LOCAL_SUFFIXES.find((s) => hostname === s || hostname.endsWith(`.${s}`));
  if (local) {
    return { ok: false, code: "HOST_NAME", reason: `host ${hostname} is a local-network name (.${local})` };
  }
  if (!hostname.includes(".")) {
    return { ok: false, code: "HOST_NAME", reason: `host ${hostname} is not a fully qualified domain name` };
  }
  return { ok: true, url, hostname, port, secure, literal: null };
}

class FetchAbort extends Error {
  constructor(
    readonly code: SafeFetchFailureCode,
    message: string,
  ) {
    super(message);
  }
}

function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|HOSTNAME_MISMATCH|ERR_OSSL)/;
// Errors that mean "this address did not take the connection": worth trying the next one.
const CONNECT_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "ETIMEDOUT"]);

function describeNetworkError(err: unknown, where: string): FetchAbort {
  if (err instanceof FetchAbort) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? "";
  const message = err instanceof Error ? err.message : String(err);
  if (TLS_CODE.test(code)) return new FetchAbort("TLS", `the TLS connection to ${where} failed (${code})`);
  if (code === "ECONNREFUSED") return new FetchAbort("NETWORK", `${where} refused the connection`);
  if (code === "ECONNRESET" || /socket hang up|aborted/i.test(message)) {
    return new FetchAbort("NETWORK", `the connection to ${where} was reset`);
  }
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") {
    return new FetchAbort("NETWORK", `${where} is unreachable from here`);
  }
  if (code.startsWith("HPE_")) return new FetchAbort("NETWORK", `${where} sent an invalid HTTP response`);
  return new FetchAbort("NETWORK", `the request to ${where} failed (${code || message})`);
}

interface Attempt {
  hop: Extract<HopCheck, { ok: true }>;
  address: string;
  family: 4 | 6;
  options: Required<Pick<SafeFetchOptions, "connectTimeoutMs" | "userAgent">> & SafeFetchOptions;
  signal: AbortSignal;
}

/** Request options that pin the socket to the validated address. Exported for tests. */
export function buildRequestOptions(
  hop: Extract<HopCheck, { ok: true }>,
  address: string,
  family: 4 | 6,
  opts: Pick<SafeFetchOptions, "dial" | "ca" | "userAgent" | "post">,
): https.RequestOptions {
  const dialed = opts.dial
    ? opts.dial({ address, family, port: hop.port, hostname: hop.hostname })
    : { address, port: hop.port };
  // Node skips name resolution when host is an IP; this lookup is a second lock that can only
  // ever answer the pinned address, whatever name it is asked about.
  const lookup: LookupFunction = (_name, lookupOptions, callback) => {
    const fam = dialed.address.includes(":") ? 6 : 4;
    if ((lookupOptions as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: dialed.address, family: fam },
      ]);
    } else {
      callback(null, dialed.address, fam);
    }
  };
  return {
    protocol: hop.secure ? "https:" : "http:",
    host: dialed.address,
    port: dialed.port,
    method: opts.post ? "POST" : "GET",
    path: `${hop.url.pathname}${hop.url.search}`,
    headers: {
      ...opts.post?.headers,
      Host: hop.url.host,
      "User-Agent": opts.userAgent ?? "AgentWorkMarketplace-ProofProbe/1.0",
      Accept: opts.post ? "*/*" : "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.8",
      "Accept-Encoding": "gzip, deflate, br",
      ...(opts.post ? { "Content-Length": String(Buffer.byteLength(opts.post.body)) } : {}),
    },
    lookup,
    // A fresh agent per request: no pooled socket from another hop can be reused.
    agent: false,
    // The certificate must match the name in the URL, not the IP we dialled. An IP literal URL
    // sends no SNI (RFC 6066) and is checked against the IP itself.
    servername: hop.secure ? (hop.literal === null ? hop.hostname : "") : undefined,
    ca: opts.ca,
  };
}

function requestOnce(attempt: Attempt): Promise<{ res: IncomingMessage } | { connectError: FetchAbort }> {
  const { hop, signal } = attempt;
  const where = hop.url.host;
  return new Promise((resolve, reject) => {
    let settled = false;
    let connected = false;
    let connectTimer: NodeJS.Timeout | undefined;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      if (connectTimer) clearTimeout(connectTimer);
      fn();
    };
    const mod = hop.secure ? https : http;
    const req = mod.request({ ...buildRequestOptions(hop, attempt.address, attempt.family, attempt.options), signal });
    req.on("socket", (socket: Socket) => {
      const ready = hop.secure ? "secureConnect" : "connect";
      const onReady = () => {
        connected = true;
        if (connectTimer) clearTimeout(connectTimer);
      };
      if (socket.connecting || hop.secure) {
        connectTimer = setTimeout(() => {
          req.destroy(
            new FetchAbort(
              "TIMEOUT",
              `could not connect to ${where} within ${attempt.options.connectTimeoutMs / 1000} s`,
            ),
          );
        }, attempt.options.connectTimeoutMs);
        socket.once(ready, onReady);
      } else {
        connected = true;
      }
    });
    req.on("response", (res) => settle(() => resolve({ res })));
    // Stays attached after settling so that late socket errors are swallowed, not thrown.
    req.on("error", (err) => {
      settle(() => {
        if (signal.aborted) return reject(signal.reason);
        const code = (err as NodeJS.ErrnoException).code ?? "";
        const failure = describeNetworkError(err, where);
        if (!connected && (CONNECT_CODES.has(code) || failure.code === "TIMEOUT")) {
          resolve({ connectError: failure });
        } else {
          reject(failure);
        }
      });
    });
    if (attempt.options.post) req.end(attempt.options.post.body);
    else req.end();
  });
}

function mediaType(header: string | undefined): string | null {
  if (!header) return null;
  const essence = header.split(";")[0].trim().toLowerCase();
  return essence === "" ? null : essence;
}

function charsetOf(header: string | undefined): string {
  const match = header ? /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(header) : null;
  return match ? match[1].toLowerCase() : "utf-8";
}

async function readCapped(
  res: IncomingMessage,
  cap: number,
  signal: AbortSignal,
): Promise<{ body: Buffer; truncated: boolean } | null> {
  const encoding = (res.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  let decoder: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null = null;
  if (encoding === "gzip" || encoding === "x-gzip") decoder = zlib.createGunzip();
  else if (encoding === "deflate") decoder = zlib.createInflate();
  else if (encoding === "br") decoder = zlib.createBrotliDecompress();
  else if (encoding !== "identity" && encoding !== "") return null;

  // The cap counts decoded bytes, so a small compressed bomb cannot blow up memory either.
  const stream: Readable = decoder ? (pipeline(res, decoder, () => {}) as Readable) : res;
  const onAbort = () => stream.destroy(signal.reason as Error);
  signal.addEventListener("abort", onAbort, { once: true });
  const chunks: Buffer[] = [];
  let total = 0;
  let truncated = false;
  try {
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      if (total + buf.length > cap) {
        // One byte past the cap is enough to know there is more; stop reading there.
        chunks.push(buf.subarray(0, cap - total));
        total = cap;
        truncated = true;
        break;
      }
      chunks.push(buf);
      total += buf.length;
    }
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    throw err;
  } finally {
    signal.removeEventListener("abort", onAbort);
    res.destroy();
    decoder?.destroy();
  }
  return { body: Buffer.concat(chunks, total), truncated };
}

function decodeText(body: Buffer, contentTypeHeader: string | undefined): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charsetOf(contentTypeHeader));
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  return decoder.decode(body);
}

function flattenHeaders(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

export async function safeFetch(input: string, options: SafeFetchOptions = {}): Promise<SafeFetchResult> {
  const opts = {
    connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS,
    userAgent: "AgentWorkMarketplace-ProofProbe/1.0",
    ...options,
  };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const resolve = options.resolve ?? defaultResolve;

  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new FetchAbort("TIMEOUT", `no complete answer within ${timeoutMs / 1000} s`)),
    timeoutMs,
  );
  const onOuterAbort = () => controller.abort(new FetchAbort("ABORTED", "the check was cancelled"));
  if (options.signal?.aborted) onOuterAbort();
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  const signal = controller.signal;

  const redirects: string[] = [];
  let current = input;
  // Reasons name the redirect hop, so that a poster can see which link in the chain failed.
  const fail = (kind: SafeFetchFailure["kind"], code: SafeFetchFailureCode, reason: string): SafeFetchFailure => ({
    ok: false,
    kind,
    code,
    reason:
      redirects.length === 0
        ? reason
        : kind === "BLOCKED"
          ? `the redirect to ${current} was refused: ${reason}`
          : `the redirect to ${current} could not be followed: ${reason}`,
    url: current,
    redirects: [...redirects],
  });
  const failInconclusive = (err: unknown, where: string): SafeFetchFailure => {
    const failure = describeNetworkError(signal.aborted ? signal.reason : err, where);
    return fail("INCONCLUSIVE", failure.code, failure.message);
  };

  try {
    for (;;) {
      const hop = checkUrlShape(current);
      if (!hop.ok) return fail("BLOCKED", hop.code, hop.reason);
      // A literal address is judged before the caller's rule, so that a private address is
      // reported as such; a name is judged by the caller's rule before it costs a lookup.
      if (hop.literal !== null) {
        const verdict = classifyAddress(hop.literal, opts);
        if (!verdict.allowed) return fail("BLOCKED", "ADDRESS", verdict.reason);
        const own = ownAddressReason(verdict.address, hop.port, opts.ownOrigin);
        if (own) return fail("BLOCKED", "OWN_ORIGIN", own);
      } else {
        const own = ownHostReason(hop.hostname, opts.ownOrigin);
        if (own) return fail("BLOCKED", "OWN_ORIGIN", own);
      }
      const callerReason = opts.checkUrl?.(hop.url) ?? null;
      if (callerReason) return fail("BLOCKED", "CALLER_POLICY", callerReason);

      // Every address must pass, not just the one we would use: a name that also points inside
      // is hostile whatever the order of its records.
      let candidates: string[];
      if (hop.literal !== null) {
        candidates = [hop.literal];
      } else {
        try {
          candidates = await raceSignal(resolve(hop.hostname), signal);
        } catch (err) {
          if (signal.aborted) return failInconclusive(err, hop.url.host);
          return fail("INCONCLUSIVE", "DNS", `could not resolve ${hop.hostname}`);
        }
        if (candidates.length === 0) return fail("INCONCLUSIVE", "DNS", `${hop.hostname} has no addresses`);
      }
      const pinned: { address: string; family: 4 | 6 }[] = [];
      for (const candidate of candidates) {
        const verdict = classifyAddress(candidate, opts);
        if (!verdict.allowed) {
          const reason =
            hop.literal !== null ? verdict.reason : `${hop.hostname} resolves to a refused address: ${verdict.reason}`;
          return fail("BLOCKED", "ADDRESS", reason);
        }
        const own = ownAddressReason(verdict.address, hop.port, opts.ownOrigin);
        if (own)
          return fail(
            "BLOCKED",
            "OWN_ORIGIN",
            hop.literal !== null ? own : `${hop.hostname} resolves to this marketplace: ${own}`,
          );
        if (!pinned.some((p) => p.address === verdict.address)) {
          pinned.push({ address: verdict.address, family: verdict.family });
        }
      }
      // IPv4 first: servers with a published but broken IPv6 address are far more common than
      // the reverse.
      pinned.sort((a, b) => a.family - b.family);

      let res: IncomingMessage | null = null;
      let lastConnectError: FetchAbort | null = null;
      for (const target of pinned.slice(0, MAX_ADDRESS_ATTEMPTS)) {
        const outcome = await requestOnce({
          hop,
          address: target.address,
          family: target.family,
          options: opts,
          signal,
        });
        if ("res" in outcome) {
          res = outcome.res;
          break;
        }
        lastConnectError = outcome.connectError;
      }
      if (!res) {
        const err = lastConnectError ?? new FetchAbort("NETWORK", `could not connect to ${hop.url.host}`);
        return fail("INCONCLUSIVE", err.code, err.message);
      }

      // The last word on "is this us?": an alias the checks above could not see (a name pointed
      // at a proxy in front of this app) still answers with this site's own header.
      const ownAnswer = ownResponseReason(res.headers, opts.ownOrigin);
      if (ownAnswer) {
        res.destroy();
        return fail("BLOCKED", "OWN_ORIGIN", ownAnswer);
      }

      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECT_STATUSES.has(status) && location) {
        res.destroy();
        if (redirects.length >= maxRedirects) {
          return fail("BLOCKED", "REDIRECT_LIMIT", `the URL redirects more than ${maxRedirects} times`);
        }
        let next: URL;
        try {
          next = new URL(location, hop.url);
        } catch {
          return fail("BLOCKED", "INVALID_URL", `${hop.url.host} redirects to an invalid URL`);
        }
        next.hash = "";
        current = next.href;
        redirects.push(current);
        continue;
      }

      const contentTypeHeader = res.headers["content-type"];
      const contentType = mediaType(contentTypeHeader);
      let text: string | null = null;
      let bytes: Buffer | null = null;
      let truncated = false;
      // Only a success answer is read: an error page is nobody's proof, and never reading one
      // keeps a proof marker from becoming a yes/no oracle on what a refusal page says.
      const success = status >= 200 && status <= 299;
      const textLike = contentType === null || isTextContentType(contentType);
      if ((success || opts.readAnyStatus) && (textLike || (success && opts.readBytes))) {
        const read = await readCapped(res, maxBodyBytes, signal);
        if (!read) res.destroy();
        if (read && success && opts.readBytes) {
          bytes = read.body;
          truncated = read.truncated;
        }
        // Without a declared type, a NUL byte is the classic tell of binary content.
        if (read && textLike && !(contentType === null && read.body.includes(0))) {
          text = decodeText(read.body, contentTypeHeader);
          truncated = read.truncated;
        }
      } else {
        // Binary artifacts and error answers are not read: their headers are all the check needs.
        res.destroy();
      }
      return {
        ok: true,
        status,
        finalUrl: hop.url.href,
        headers: flattenHeaders(res),
        contentType,
        text,
        ...(opts.readBytes ? { bytes } : {}),
        truncated,
        redirects,
      };
    }
  } catch (err) {
    let where = current;
    try {
      where = new URL(current).host;
    } catch {
      // keep the raw text
    }
    return failInconclusive(err, where);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onOuterAbort);
  }
}
