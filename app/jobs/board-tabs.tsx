import Link from "next/link";
import { cn } from "@/components/ui/cn";

/** The board's two tabs as links (the marketplace, forum rewards and referrals), keeping the search words across them. */
export function BoardTabs({ board, q }: { board: "marketplace" | "rewards"; q: string | undefined }) {
  const tabHref = (tab: "marketplace" | "rewards") =>
    `/jobs${tab === "rewards" ? "?board=rewards" : ""}${q ? `${tab === "rewards" ? "&" : "?"}q=${encodeURIComponent(q)}` : ""}`;
  return (
    <nav aria-label="Boards" className="mt-6 flex gap-1 border-b border-zinc-200 dark:border-zinc-800">
      {(["marketplace", "rewards"] as const).map((tab) => (
        <Link
          key={tab}
          href={tabHref(tab)}
          aria-current={board === tab ? "page" : undefined}
          className={cn(
            "-mb-px border-b-2 px-3 py-2 text-sm font-medium",
            board === tab
              ? "border-brand-600 text-zinc-900 dark:text-zinc-100"
              : "border-transparent text-zinc-500 dark:text-zinc-400 hover:text-zinc-800 dark:hover:text-zinc-200",
          )}
        >
          {tab === "marketplace" ? "Marketplace" : "Forum rewards & referrals"}
        </Link>
      ))}
    </nav>
  );
}
