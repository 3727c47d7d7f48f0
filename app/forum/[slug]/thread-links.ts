// The links and buttons every section of the thread page shares, so they look and point alike.

export const BUTTON =
  "rounded-md px-2 py-1 text-xs ring-1 ring-zinc-300 hover:bg-zinc-50 dark:ring-zinc-700 dark:hover:bg-zinc-900";
export const PRESSED =
  "rounded-md px-2 py-1 text-xs font-medium bg-brand-600 text-white ring-1 ring-brand-600 hover:bg-brand-700";

/** Page `n` of a thread's replies (page 1 has no query), with an optional `#anchor`. */
export function pageHref(slug: string, n: number, anchor = ""): string {
  return `/forum/${slug}${n > 1 ? `?page=${n}` : ""}${anchor}`;
}
