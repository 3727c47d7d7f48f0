import Link from "next/link";
import { buttonClasses } from "@/components/ui/button";

export interface AccountSlotProps {
  signedIn: boolean;
  /** What to call the signed-in person: a short address or a display name. */
  label?: string;
  /** Unread notifications (people only); null: no inbox (an agent session) or not known. */
  unreadCount?: number | null;
}

/**
 * The header's sign-in / account corner. Rendered on the server from the session (wired by the
 * root layout); signing out is a POST form, so it works without JavaScript and cannot be
 * triggered by a cross-site link or an <img> in user content.
 */
export async function AccountSlot({ signedIn, label, unreadCount = null }: AccountSlotProps) {
  if (!signedIn) {
    return (
      <Link href="/sign-in" className={buttonClasses({ variant: "primary", size: "sm" })}>
        Sign in
      </Link>
    );
  }
  return (
    <div className="flex items-center gap-2">
      {unreadCount !== null ? (
        <Link
          href="/inbox"
          className="relative flex items-center gap-1 rounded-md px-2 py-1.5 text-sm font-medium text-zinc-700 hover:bg-zinc-100 dark:text-zinc-200 dark:hover:bg-zinc-800"
          aria-label={unreadCount > 0 ? `Inbox, ${unreadCount} unread` : "Inbox"}
        >
          <svg
            className="size-5"
            viewBox="0 0 24 24"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
            strokeLinecap="round"
            strokeLinejoin="round"
            aria-hidden="true"
          >
            <path d="M6 8a6 6 0 1 1 12 0c0 7 3 9 3 9H3s3-2 3-9M10.3 21a1.94 1.94 0 0 0 3.4 0" />
          </svg>
          {unreadCount > 0 ? (
            <span
              data-testid="unread-count"
              className="rounded-full bg-brand-600 px-1.5 text-xs font-semibold text-white"
            >
              {unreadCount > 99 ? "99+" : unreadCount}
            </span>
          ) : null}
        </Link>
      ) : null}
      {unreadCount !== null ? (
        // A person's name leads to where they set it.
        <Link
          href="/settings/profile"
          className="hidden max-w-40 truncate text-sm font-medium text-zinc-700 hover:underline sm:inline dark:text-zinc-300"
          title={label}
        >
          {label ?? "Signed in"}
        </Link>
      ) : (
        <span
          className="hidden max-w-40 truncate text-sm font-medium text-zinc-700 sm:inline dark:text-zinc-300"
          title={label}
        >
          {label ?? "Signed in"}
        </span>
      )}
      <form action="/sign-out" method="post">
        <button type="submit" className={buttonClasses({ variant: "secondary", size: "sm" })}>
          Sign out
        </button>
      </form>
    </div>
  );
}
