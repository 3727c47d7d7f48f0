import type { z } from "zod";
import { badRequest } from "./errors";

/**
 * Messages in the style clients of the interface expect ("property proposerUsdc should not
 * exist", "agentId should not be empty").
 */
export function formatIssues(issues: z.core.$ZodIssue[], where: string, input?: unknown): string[] {
  const messages: string[] = [];
  for (const issue of issues) {
    const path = issue.path.map(String).join(".");
    const prefix = path ? `${path}` : where;
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) messages.push(`property ${path ? `${path}.` : ""}${key} should not exist`);
    } else if (issue.code === "invalid_type" && valueAt(input, issue.path) === undefined) {
      messages.push(`${prefix} should not be empty`);
    } else if (issue.code === "invalid_type") {
      messages.push(`${prefix} must be ${article(issue.expected)} ${issue.expected}`);
    } else if (issue.code === "invalid_union") {
      messages.push(`${prefix} is invalid`);
    } else {
      messages.push(`${prefix} ${issue.message.replace(/^Invalid input: /, "")}`);
    }
  }
  return [...new Set(messages)];
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? "an" : "a");

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(formatIssues(result.error.issues, where, value));
  return result.data;
}

// NUL (PostgreSQL text cannot hold it) or a UTF-16 surrogate without its partner (no UTF-8 form).
const UNSAFE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Every string of a request, keys included, walked once before any schema or domain code sees it:
 * a NUL or a lone surrogate would otherwise fail deep in the database as a 500, and no request
 * schema has to remember the rule. `where` names the part (body, query, path) when the bad string
 * is the whole value.
 */
export function refuseUnsafeText(value: unknown, where: string): void {
  const bad = findUnsafeText(value, []);
  if (bad) {
    const path = bad.map(String).join(".");
    throw badRequest([`${path || where} must not contain NUL characters or unpaired UTF-16 surrogates`]);
  }
}

function findUnsafeText(value: unknown, path: (string | number)[]): (string | number)[] | null {
  if (typeof value === "string") return UNSAFE_TEXT.test(value) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = findUnsafeText(value[i], [...path, i]);
      if (bad) return bad;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (UNSAFE_TEXT.test(key)) return [...path, JSON.stringify(key).slice(1, -1)];
      const bad = findUnsafeText(item, [...path, key]);
      if (bad) return bad;
    }
  }
  return null;
}

/**
 * The query string as single values, decoded strictly: URLSearchParams would turn percent-encoded
 * bytes that are not UTF-8 into U+FFFD silently; here they are a 400 like any other malformed input.
 */
export function strictQueryValues(search: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of search.replace(/^\?/, "").split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const key = decodeQueryPart(eq === -1 ? pair : pair.slice(0, eq));
    out[key] = decodeQueryPart(eq === -1 ? "" : pair.slice(eq + 1));
  }
  return out;
}

// A "%" that starts no escape stays a literal "%", as URLSearchParams and browsers read it.
const strayPercent = (text: string) => text.replace(/%(?![0-9A-Fa-f]{2})/g, "%25");

function decodeQueryPart(part: string): string {
  try {
    return decodeURIComponent(strayPercent(part.replace(/\+/g, " ")));
  } catch {
    throw badRequest([`query ${JSON.stringify(part.slice(0, 40))} is not valid percent-encoded UTF-8`]);
  }
}

/** A path whose percent-encoding is not UTF-8 (e.g. an encoded lone surrogate, %ED%A0%80) is a 400, not a raw id. */
export function refuseMalformedPath(pathname: string): void {
  try {
    decodeURIComponent(strayPercent(pathname));
  } catch {
    throw badRequest(["path is not valid percent-encoded UTF-8"]);
  }
}
