/**
 * Where to go after sign-in: only a page of this site. An open redirect would let a link send people
 * elsewhere after they sign in. The value is resolved the way a browser resolves it (against the
 * site URL) and must keep the site's origin; control characters (a browser drops tab, CR and LF,
 * so "/\t/evil.example" becomes "//evil.example") and backslashes (read as "/") are refused
 * before resolution, since they are where a browser and a string check disagree.
 */
const FALLBACK = "/jobs";
// C0 (tab, CR, LF included), DEL, C1, and the backslash.
const REFUSED = /[\u0000-\u001f\u007f-\u009f\\]/;
// Only the origin matters: the result is a path of whatever origin this is.
const DEFAULT_BASE = "http://site.invalid";

export function safeReturnTo(value: string | undefined | null, siteUrl: string = DEFAULT_BASE): string {
  if (!value || !value.startsWith("/") || REFUSED.test(value)) return FALLBACK;
  let base: URL;
  let target: URL;
  try {
    base = new URL(siteUrl);
    target = new URL(value, base);
  } catch {
    return FALLBACK;
  }
  // Dot segments can leave a path that starts with "//" ("/.//evil.example"): as a Location that is
  // another host again.
  if (target.origin !== base.origin || target.pathname.startsWith("//")) return FALLBACK;
  return `${target.pathname}${target.search}${target.hash}`;
}
