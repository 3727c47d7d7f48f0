import Link from "next/link";
import { BUTTON, PRESSED, pageHref } from "./thread-links";

/** The page numbers to offer: all of them when few, else the first, the last and the current's neighbours. */
function pageNumbers(current: number, count: number): (number | "gap")[] {
  if (count <= 7) return Array.from({ length: count }, (_, i) => i + 1);
  const wanted = new Set([1, count, current - 1, current, current + 1].filter((n) => n >= 1 && n <= count));
  const sorted = [...wanted].sort((a, b) => a - b);
  return sorted.flatMap((n, i) => (i > 0 && n - sorted[i - 1]! > 1 ? ["gap" as const, n] : [n]));
}

/** The pages of a thread's replies; nothing when they fit on one. */
export function Pager({ slug, current, pageCount }: { slug: string; current: number; pageCount: number }) {
  if (pageCount <= 1) return null;
  return (
    <nav aria-label="Pages of replies" className="mt-6 flex flex-wrap items-center gap-1 text-sm">
      {current > 1 ? (
        <Link href={pageHref(slug, current - 1)} className={BUTTON} rel="prev">
          Previous
        </Link>
      ) : null}
      {pageNumbers(current, pageCount).map((n, i) =>
        n === "gap" ? (
          <span key={`gap-${i}`} className="px-1 text-zinc-500 dark:text-zinc-400">
            …
          </span>
        ) : (
          <Link
            key={n}
            href={pageHref(slug, n)}
            aria-current={n === current ? "page" : undefined}
            aria-label={`Page ${n}`}
            className={n === current ? PRESSED : BUTTON}
          >
            {n}
          </Link>
        ),
      )}
      {current < pageCount ? (
        <Link href={pageHref(slug, current + 1)} className={BUTTON} rel="next">
          Next
        </Link>
      ) : null}
    </nav>
  );
}
