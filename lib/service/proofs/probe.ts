import { createHash } from "node:crypto";
import { isIpLiteralHost, isLoopbackLiteral } from "./address-policy";
import { loginUrlReason, matchDisallowedHost } from "./host-rules";
import { errorPageReason, errorTextReason, isHtmlType, loginPageReason, summarizeHtml } from "./page-inspect";
import {
  checkUrlShape,
  DEFAULT_MAX_BODY_BYTES,
  safeFetch,
  type SafeFetchFailure,
  type SafeFetchOptions,
} from "./safe-fetch";

/**
 * The deliverable probe: is outputData.url live proof of the work? (Interface, "Deliverable proof
 * rules".) Run at submission, by the review queue, and again at release; only LIVE counts.
 */

export { PROOF_STATUSES, type ProofStatus } from "@/lib/api/schemas/deliverables";
import type { ProofStatus } from "@/lib/api/schemas/deliverables";

export interface ProbeResult {
  status: ProofStatus;
  /** A sentence for posters and agents; null when LIVE. */
  reason: string | null;
  /** Status of the final response, when there was one. */
  httpStatus: number | null;
  /** The last URL reached (after redirects), or the one that failed. */
  finalUrl: string | null;
  /** Media type of the final response, when there was one. */
  contentType: string | null;
  /** ISO 8601 time of the check. */
  checkedAt: string;
  /**
   * SHA-256 (hex) of the text artifact as read (its first 256 KiB, decoded to text, hashed as
   * UTF-8) when the probe found it LIVE; for any other artifact checked against a marker, of its
   * first 256 KiB of bytes; null otherwise (a binary artifact without a marker is not read).
   */
  contentSha256: string | null;
}

export interface ProbeOptions extends Omit<SafeFetchOptions, "checkUrl" | "maxBodyBytes"> {
  /** The job's inputData.proofContentMarker: 8 to 200 literal characters. */
  marker?: string | null;
  /** Clock, for tests. */
  now?: () => Date;
}

export const MARKER_MIN_LENGTH = 8;
export const MARKER_MAX_LENGTH = 200;

/** The interface's bounds, counted in characters (code points), not UTF-16 units. */
export function isValidProofContentMarker(marker: string): boolean {
  const length = [...marker].length;
  return length >= MARKER_MIN_LENGTH && length <= MARKER_MAX_LENGTH;
}

const UNREACHABLE_NOTE = "An inconclusive check is not proof of delivery; make sure the URL is publicly reachable.";

/** Why a host cannot hold a deliverable through the proof hold, or null. */
export function disallowedHostReason(url: URL, allowLoopback: boolean): string | null {
  if (isIpLiteralHost(url.hostname)) {
    // The local stack has no DNS of its own; only there may a loopback literal stand in.
    if (allowLoopback && isLoopbackLiteral(url.hostname)) return null;
    return `the URL uses the raw IP address ${url.hostname}; deliverables must use a domain name`;
  }
  const hit = matchDisallowedHost(url);
  if (!hit) return null;
  return hit.rule === "TUNNEL"
    ? `the host ${url.hostname} is a temporary tunnel (${hit.domain}) that stops working when it is closed; host the deliverable somewhere permanent`
    : `the host ${url.hostname} is a short-retention paste or file-drop service (${hit.domain}) whose content expires; host the deliverable somewhere permanent`;
}

function fromFailure(failure: SafeFetchFailure): Pick<ProbeResult, "status" | "reason"> {
  if (failure.kind === "INCONCLUSIVE") {
    return {
      status: "UNREACHABLE",
      reason: `The deliverable could not be checked: ${failure.reason}. ${UNREACHABLE_NOTE}`,
    };
  }
  switch (failure.code) {
    case "CALLER_POLICY":
      return { status: "DISALLOWED_HOST", reason: sentence(failure.reason) };
    case "USERINFO":
      return {
        status: "LOGIN_REQUIRED",
        reason: "The URL carries a user name or password; deliverables must be readable without signing in.",
      };
    case "INVALID_URL":
    case "SCHEME":
      if (failure.redirects.length === 0) return { status: "INVALID_URL", reason: sentence(failure.reason) };
      return { status: "BLOCKED", reason: sentence(failure.reason) };
    default:
      return { status: "BLOCKED", reason: sentence(failure.reason) };
  }
}

function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

export async function probeDeliverable(url: string, options: ProbeOptions = {}): Promise<ProbeResult> {
  const { marker = null, now = () => new Date(), ...fetchOptions } = options;
  if (marker !== null && !isValidProofContentMarker(marker)) {
    // The job service validates markers on creation; reaching here is a programming error.
    throw new RangeError(`proofContentMarker must be ${MARKER_MIN_LENGTH} to ${MARKER_MAX_LENGTH} characters`);
  }
  const allowLoopback = fetchOptions.allowLoopback === true;
  const checkedAt = now().toISOString();
  const done = (
    status: ProofStatus,
    reason: string | null,
    extra: Partial<Pick<ProbeResult, "httpStatus" | "finalUrl" | "contentType" | "contentSha256">> = {},
  ): ProbeResult => ({
    status,
    reason,
    httpStatus: extra.httpStatus ?? null,
    finalUrl: extra.finalUrl ?? null,
    contentType: extra.contentType ?? null,
    checkedAt,
    contentSha256: extra.contentSha256 ?? null,
  });

  // Refusals that need no network come first, so a refused URL never costs a connection.
  const shape = checkUrlShape(url);
  if (!shape.ok) {
    const failure: SafeFetchFailure = {
      ok: false,
      kind: "BLOCKED",
      code: shape.code,
      reason: shape.reason,
      url,
      redirects: [],
    };
    const { status, reason } = fromFailure(failure);
    return done(status, reason);
  }
  const hostReason = disallowedHostReason(shape.url, allowLoopback);
  if (hostReason) return done("DISALLOWED_HOST", sentence(hostReason), { finalUrl: shape.url.href });

  const result = await safeFetch(shape.url.href, {
    ...fetchOptions,
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    // With a marker, the body is read whatever type the server declares: the rule is decided on the bytes.
    readBytes: marker !== null,
    // Each redirect target is held to the same host rules before it is contacted.
    checkUrl: (hop) => disallowedHostReason(hop, allowLoopback),
  });
  if (!result.ok) {
    const { status, reason } = fromFailure(result);
    return done(status, reason, { finalUrl: result.url });
  }

  const meta = { httpStatus: result.status, finalUrl: result.finalUrl, contentType: result.contentType };
  for (const hop of result.redirects) {
    const loginReason = loginUrlReason(new URL(hop));
    if (loginReason) return done("LOGIN_REQUIRED", sentence(`The URL needs a login: ${loginReason}`), meta);
  }
  if (result.status === 401 || result.status === 407) {
    return done("LOGIN_REQUIRED", `The server answered HTTP ${result.status}: the deliverable needs a login.`, meta);
  }
  if (result.status < 200 || result.status > 299) {
    return done(
      "HTTP_ERROR",
      `The server answered HTTP ${result.status}; a deliverable must answer with a success status.`,
      meta,
    );
  }

  // A body that is not text (an image, an archive, a PDF, application/octet-stream, or no type and
  // a NUL byte): the page heuristics do not apply. Without a marker a 2xx answer is the proof; with
  // one, the marker's UTF-8 bytes must appear in the bytes read, whatever type the server declared,
  // so an unmarked text cannot pass by calling itself binary. A compressed file (zip, gzip, PDF
  // streams) hides its text: it passes only when the marker's bytes appear as they are.
  if (result.text === null) {
    if (marker === null) return done("LIVE", null, meta);
    const bytes = result.bytes ?? null;
    if (bytes === null || !bytes.includes(Buffer.from(marker, "utf8"))) {
      const where =
        bytes === null
          ? "the artifact (its encoding could not be read)"
          : result.truncated
            ? "the first 256 KiB of the artifact's bytes"
            : "the artifact's bytes";
      return done(
        "MARKER_MISSING",
        `The job's proof content marker does not appear in ${where}; a compressed or encoded file must carry it uncompressed.`,
        meta,
      );
    }
    return done("LIVE", null, { ...meta, contentSha256: createHash("sha256").update(bytes).digest("hex") });
  }

  if (isHtmlType(result.contentType, result.text)) {
    const summary = summarizeHtml(result.text);
    const login = loginPageReason(summary);
    if (login) return done("LOGIN_REQUIRED", sentence(`The URL needs a login: ${login}`), meta);
    const error = errorPageReason(summary);
    if (error) return done("ERROR_PAGE", sentence(`The URL shows an error instead of the deliverable: ${error}`), meta);
  } else {
    const error = errorTextReason(result.text);
    if (error) return done("ERROR_PAGE", sentence(`The URL shows an error instead of the deliverable: ${error}`), meta);
  }

  // The decoded text or, whatever charset the server declared, the raw bytes.
  if (
    marker !== null &&
    !result.text.includes(marker) &&
    !(result.bytes?.includes(Buffer.from(marker, "utf8")) ?? false)
  ) {
    const where = result.truncated ? "the first 256 KiB of the artifact" : "the artifact";
    return done("MARKER_MISSING", `The job's proof content marker does not appear in ${where}.`, meta);
  }
  return done("LIVE", null, { ...meta, contentSha256: createHash("sha256").update(result.text, "utf8").digest("hex") });
}
