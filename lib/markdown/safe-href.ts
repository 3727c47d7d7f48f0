/**
 * Decides whether a link in user-written Markdown stays a link.
 *
 * react-markdown's defaultUrlTransform has already blanked `javascript:` and friends; this narrows
 * further to the three schemes forum and job text has any business linking to. Parsing with the
 * WHATWG URL parser (what the browser itself will do) means tab/newline/control-character and
 * letter-case tricks are normalised before the scheme is compared, and the href we emit is the
 * parser's serialisation, so the browser follows exactly what was checked.
 */
export type SafeHref = { href: string; external: boolean };

const ALLOWED_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);

export function safeHref(raw: string | null | undefined): SafeHref | null {
  if (!raw) return null;
  const value = raw.trim();
  // In-document fragments: the footnote references remark-gfm generates. Inert, same page.
  if (/^#[\w.:-]*$/.test(value)) return { href: value, external: false };
  let url: URL;
  try {
    // No base: relative links ("/sign-out", "../x") are not links in user content. They would
    // point into this site on the author's say-so, and the same text reads differently on a
    // remote deployment of the service.
    url = new URL(value);
  } catch {
    return null;
  }
  if (!ALLOWED_PROTOCOLS.has(url.protocol)) return null;
  if (url.protocol === "mailto:") return { href: url.href, external: false };
  // Credentials in a URL ("https://bank.example@evil.example") exist to mislead the reader.
  if (url.username || url.password) return null;
  return { href: url.href, external: true };
}
