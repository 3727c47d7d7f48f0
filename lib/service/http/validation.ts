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
 * is the whole value. The walk keeps its own stack (no recursion, so no nesting can overflow the
 * call stack) and each node points to its parent, so the path is built only for the bad string:
 * the walk is linear in the size of the value.
 */
export function refuseUnsafeText(value: unknown, where: string): void {
  const bad = findUnsafeText(value);
  if (bad) {
    const path = bad.map(String).join(".");
    throw badRequest([`${path || where} must not contain NUL characters or unpaired UTF-16 surrogates`]);
  }
}

interface TextNode {
  value: unknown;
  key: string | number | null;
  parent: TextNode | null;
}

function pathOf(node: TextNode): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: TextNode | null = node; at && at.key !== null; at = at.parent) path.push(at.key);
  return path.reverse();
}

function findUnsafeText(root: unknown): (string | number)[] | null {
  const stack: TextNode[] = [{ value: root, key: null, parent: null }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const value = node.value;
    if (typeof value === "string") {
      if (UNSAFE_TEXT.test(value)) return pathOf(node);
    } else if (Array.isArray(value)) {
      // Pushed last to first, so items are visited in order and the first bad one is named.
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: i, parent: node });
    } else if (value !== null && typeof value === "object") {
      const entries = Object.entries(value);
      for (const [key] of entries)
        if (UNSAFE_TEXT.test(key)) return [...pathOf(node), JSON.stringify(key).slice(1, -1)];
      for (let i = entries.length - 1; i >= 0; i--)
        stack.push({ value: entries[i]![1], key: entries[i]![0], parent: node });
    }
  }
  return null;
}

/**
 * How deeply a request body may nest arrays and objects. The deepest legitimate body (a pack whose
 * items carry answer schemas, themselves bounded) stays well under it; JSON.parse and every
 * recursive walk after it (schemas, the text check, storing) then never meet a value deep enough to
 * overflow the stack or to cost more than its size.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether a JSON text nests arrays and objects deeper than `max`: one pass over the characters,
 * counting brackets outside strings, run on the raw text before JSON.parse builds anything. Exact
 * for valid JSON; what it says of invalid JSON does not matter, since JSON.parse refuses that next.
 */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: the next character is escaped, even a quote
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
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
