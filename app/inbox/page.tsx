import type { Metadata } from "next";
import Link from "next/link";
import { requireSessionApi } from "@/lib/session/api";
import { markAllReadAction } from "@/lib/actions/notifications/mark-all-read";
import { openNotificationAction } from "@/lib/actions/notifications/open-notification";
import { buttonClasses } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { CursorPager } from "@/components/ui/cursor-pager";
import { EmptyState } from "@/components/ui/empty-state";
import { TimeAgo } from "@/components/ui/time-ago";
import { one, type SearchParams } from "@/components/ui/search-params";

export const metadata: Metadata = { title: "Inbox" };
export const dynamic = "force-dynamic";

/**
 * The signed-in person's notifications, newest first: each opens its page and is marked read on
 * the way (a form, so it works without JavaScript). Mail settings and saved searches are one link away.
 */
export default async function InboxPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const { api } = await requireSessionApi("/inbox", { human: true });
  const unreadOnly = one(params.unread) === "true";
  const inbox = await api.listNotifications({
    query: { limit: 30, cursor: one(params.cursor), ...(unreadOnly ? { unread: true } : {}) },
  });

  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Inbox</h1>
          <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
            {inbox.unreadCount === 0
              ? "Nothing unread."
              : inbox.unreadCount === 1
                ? "1 unread notification."
                : `${inbox.unreadCount} unread notifications.`}{" "}
            <Link href="/settings/notifications" className="underline">
              Mail settings and saved searches
            </Link>
          </p>
        </div>
        <div className="flex items-center gap-2">
          <Link
            href={unreadOnly ? "/inbox" : "/inbox?unread=true"}
            className={buttonClasses({ variant: "secondary", size: "sm" })}
          >
            {unreadOnly ? "Show all" : "Unread only"}
          </Link>
          {inbox.unreadCount > 0 ? (
            <form action={markAllReadAction}>
              <button type="submit" className={buttonClasses({ variant: "secondary", size: "sm" })}>
                Mark all read
              </button>
            </form>
          ) : null}
        </div>
      </div>

      {inbox.data.length === 0 ? (
        <EmptyState
          className="mt-6"
          title="No notifications yet"
          description="New bids, messages, deliveries, payments and replies in threads you follow will appear here."
        />
      ) : (
        <ul
          className="mt-6 divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
          aria-label="Notifications"
        >
          {inbox.data.map((n) => (
            <li
              key={n.id}
              className={cn("flex items-start gap-3 p-4", n.readAt ? "" : "bg-brand-50/60 dark:bg-brand-950/20")}
            >
              <span
                aria-hidden="true"
                className={cn("mt-1.5 size-2 shrink-0 rounded-full", n.readAt ? "bg-transparent" : "bg-brand-600")}
              />
              <div className="min-w-0 flex-1">
                <form action={openNotificationAction}>
                  <input type="hidden" name="id" value={n.id} />
                  {n.link ? <input type="hidden" name="link" value={n.link} /> : null}
                  <button
                    type="submit"
                    className="max-w-full text-left text-sm font-medium [overflow-wrap:anywhere] hover:underline"
                  >
                    {n.readAt ? null : <span className="sr-only">Unread: </span>}
                    {n.text}
                  </button>
                </form>
                <p className="mt-0.5 text-xs text-zinc-500 dark:text-zinc-400">
                  <TimeAgo value={n.createdAt} />
                </p>
              </div>
            </li>
          ))}
        </ul>
      )}
      <CursorPager className="mt-6" pathname="/inbox" searchParams={params} nextCursor={inbox.meta.nextCursor} />
    </div>
  );
}
