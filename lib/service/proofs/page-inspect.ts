/**
 * Heuristics for pages that answer 200 but are not the deliverable: sign-in walls and error
 * pages. They look only at the parts of a page that say what it is (title, top headings, a
 * password field), and match whole phrases, so that an article *about* login forms or error
 * handling is not mistaken for one.
 */

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  middot: "·",
  ndash: "–",
  mdash: "—",
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === "#") {
      const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[body.toLowerCase()] ?? whole;
  });
}

function clean(fragment: string): string {
  return decodeEntities(fragment.replace(/<[^>]*>/g, " "))
    .replace(/\s+/g, " ")
    .trim();
}

// Comments and scripts can hold any words; they say nothing about what the page shows.
function stripInvisible(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<(script|style|noscript|template)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, " ");
}

export interface PageSummary {
  title: string | null;
  headings: string[];
  hasPasswordField: boolean;
}

export function summarizeHtml(html: string): PageSummary {
  const visible = stripInvisible(html);
  const titleMatch = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(visible);
  const headings: string[] = [];
  const headingRe = /<h([12])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi;
  let m: RegExpExecArray | null;
  // The first few headings carry the page's own name; later ones are sections of content.
  while ((m = headingRe.exec(visible)) && headings.length < 3) {
    const text = clean(m[2]);
    if (text) headings.push(text);
  }
  return {
    title: titleMatch ? clean(titleMatch[1]) || null : null,
    headings,
    hasPasswordField: /<input\b[^>]*\btype\s*=\s*["']?password\b/i.test(visible),
  };
}

// A title is usually "<page> | <site>"; each part is judged alone.
function titleParts(title: string): string[] {
  return title
    .split(/\s+[|·•–—-]\s+|\s*[|·•]\s*|:\s+/)
    .map((p) => p.trim())
    .filter(Boolean);
}

const LOGIN_PHRASE =
  /^(?:please\s+)?(?:sign\s*in|log\s*in|login|log\s*on|sign\s*on|authenticate|authentication required|sign\s*in required|login required)(?:\s+(?:to|with|into|on)\b.*)?[.!]?$/i;

const ERROR_PHRASE = new RegExp(
  "^(?:oops[!.,]*\\s*)?(?:" +
    [
      "(?:http\\s*)?(?:error\\s*)?[45]\\d\\d(?:\\s*(?:error|not found|forbidden|unauthorized|internal server error|bad gateway|service unavailable|gateway time-?out))?",
      "(?:an?\\s+)?(?:unexpected\\s+|internal\\s+)?error(?:\\s+(?:[45]\\d\\d|occurred|has occurred))?",
      "(?:page|file|site|resource|document|repository|project)?\\s*not found",
      "(?:this\\s+)?page (?:could not be found|cannot be found|can't be found|isn't available|is not available|does not exist|doesn't exist)",
      "(?:sorry,?\\s+)?something went wrong",
      "access denied",
      "permission denied",
      "forbidden",
      "unauthorized",
      "internal server error",
      "service unavailable",
      "bad gateway",
      "gateway time-?out",
      "(?:this\\s+)?(?:site|page|deployment) (?:can't be reached|is unavailable|has been suspended|was deleted|not found)",
    ].join("|") +
    ")[.!]*$",
  "i",
);

function findPart(candidates: string[], phrase: RegExp): string | null {
  for (const candidate of candidates) {
    if (phrase.test(candidate)) return candidate;
    for (const part of titleParts(candidate)) {
      if (phrase.test(part)) return candidate;
    }
  }
  return null;
}

/** A human reason when the HTML is an obvious sign-in page, or null. */
export function loginPageReason(summary: PageSummary): string | null {
  const named = findPart([...(summary.title ? [summary.title] : []), ...summary.headings], LOGIN_PHRASE);
  if (named) return `the page is a sign-in page ("${named}")`;
  if (summary.hasPasswordField) return "the page asks for a password";
  return null;
}

/** A human reason when the HTML is an error page served with a success status, or null. */
export function errorPageReason(summary: PageSummary): string | null {
  const named = findPart([...(summary.title ? [summary.title] : []), ...summary.headings], ERROR_PHRASE);
  return named ? `the page is an error page ("${named}")` : null;
}

/** The same for plain text or JSON bodies: only a short body that is nothing but an error. */
export function errorTextReason(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed.length === 0) return "the artifact is empty";
  if (trimmed.length > 200) return null;
  const jsonReason = jsonErrorReason(trimmed);
  if (jsonReason) return jsonReason;
  const firstLine = trimmed.split(/\r?\n/)[0].trim();
  if (ERROR_PHRASE.test(firstLine) || titleParts(firstLine).some((p) => ERROR_PHRASE.test(p))) {
    return `the artifact is an error message ("${firstLine.slice(0, 80)}")`;
  }
  return null;
}

// {"error": "Not Found"} or {"statusCode": 404, "message": "..."}: an API's error envelope.
function jsonErrorReason(text: string): string | null {
  if (!text.startsWith("{")) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const envelope = new Set(["error", "errors", "message", "status", "statusCode", "code", "detail", "title"]);
  if (keys.length === 0 || !keys.every((k) => envelope.has(k))) return null;
  const status = Number(record.statusCode ?? record.status);
  if ("error" in record || "errors" in record || (status >= 400 && status <= 599)) {
    return `the artifact is an error response (${text.slice(0, 80)})`;
  }
  return null;
}

export function isHtmlType(contentType: string | null, text: string): boolean {
  if (contentType === "text/html" || contentType === "application/xhtml+xml") return true;
  // Servers that send no type, or text/plain for HTML, still render as pages in a browser.
  return contentType === null && /^\s*(?:<!doctype html|<html\b)/i.test(text);
}
