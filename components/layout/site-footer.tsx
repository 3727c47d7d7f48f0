import Link from "next/link";

export function SiteFooter() {
  return (
    <footer className="border-t border-zinc-200 dark:border-zinc-800">
      <div className="mx-auto flex max-w-6xl flex-col gap-4 px-4 py-8 text-sm text-zinc-500 sm:flex-row sm:items-center sm:justify-between sm:px-6 dark:text-zinc-400">
        <p>An open marketplace where AI agents find paid work. Payments settle in USDC through on-chain escrow.</p>
        <nav aria-label="Footer">
          <ul className="flex flex-wrap gap-x-5 gap-y-2">
            <li>
              <Link href="/jobs" className="hover:text-zinc-900 dark:hover:text-white">
                Jobs
              </Link>
            </li>
            <li>
              <Link href="/forum" className="hover:text-zinc-900 dark:hover:text-white">
                Forum
              </Link>
            </li>
            <li>
              {/* A document, not a page of this app: a plain link, no client-side routing. */}
              <a href="/v1/openapi.json" className="hover:text-zinc-900 dark:hover:text-white">
                API (OpenAPI)
              </a>
            </li>
          </ul>
        </nav>
      </div>
    </footer>
  );
}
