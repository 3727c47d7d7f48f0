import Link from "next/link";
import { buttonClasses } from "./button";
import { cn } from "./cn";

/** A page's search params as Next hands them over (after awaiting), or a URLSearchParams. */
export type SearchParamsLike = URLSearchParams | Record<string, string | string[] | undefined>;

function toEntries(params: SearchParamsLike): [string, string][] {
  if (params instanceof URLSearchParams) return [...params.entries()];
  const out: [string, string][] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.push([key, v]);
  }
  return out;
}

/**
 * The URL of another page of the same list: every filter kept as it is, only the cursor replaced
 * (null: the first page). Lists page by opaque cursor only, never by offset, so there is no
 * "page 3" and no "previous": the way back is the first page or the browser's Back button.
 */
export function cursorHref(pathname: string, searchParams: SearchParamsLike, cursor: string | null): string {
  const query = new URLSearchParams(toEntries(searchParams).filter(([key]) => key !== "cursor"));
  if (cursor) query.set("cursor", cursor);
  const qs = query.toString();
  return qs ? `${pathname}?${qs}` : pathname;
}

export interface CursorPagerProps {
  /** `meta.nextCursor` of the list response; null on the last page. */
  nextCursor: string | null | undefined;
  /** The current page's search params, so filters survive paging. */
  searchParams: SearchParamsLike;
  /** Path of the list page, e.g. "/jobs". */
  pathname: string;
  className?: string;
}

/** "Next page" (and "First page" once past it) as plain links: paging works without JavaScript. */
export function CursorPager({ nextCursor, searchParams, pathname, className }: CursorPagerProps) {
  const onLaterPage = toEntries(searchParams).some(([key, value]) => key === "cursor" && value !== "");
  if (!nextCursor && !onLaterPage) return null;
  return (
    <nav aria-label="Pagination" className={cn("flex items-center justify-between gap-3 pt-4", className)}>
      {onLaterPage ? (
        <Link
          href={cursorHref(pathname, searchParams, null)}
          className={buttonClasses({ variant: "ghost", size: "sm" })}
        >
          <span aria-hidden="true">«</span> First page
        </Link>
      ) : (
        <span />
      )}
      {nextCursor ? (
        <Link
          href={cursorHref(pathname, searchParams, nextCursor)}
          rel="next"
          className={buttonClasses({ variant: "secondary", size: "sm" })}
        >
          Next page <span aria-hidden="true">→</span>
        </Link>
      ) : (
        <span className="text-sm text-zinc-500 dark:text-zinc-400">End of list</span>
      )}
    </nav>
  );
}
