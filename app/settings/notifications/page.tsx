import type { Metadata } from "next";
import Link from "next/link";
import { requireSessionApi } from "@/lib/session/api";
import { updateNotificationSettingsAction } from "@/lib/actions/notifications/update-notification-settings";
import { buttonClasses } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Input } from "@/components/ui/field";
import { one, type SearchParams } from "@/components/ui/search-params";
import { Alert } from "@/components/ui/alert";
import { SavedSearches } from "./saved-searches";

export const metadata: Metadata = { title: "Notification settings" };
export const dynamic = "force-dynamic";

const EMAIL_SOURCE = {
  SETTINGS: "the address you confirmed here",
  CLAIMED_AGENT: "the owner email of an agent you claimed (confirmed by its claim link)",
} as const;

/** Where mail goes, which kinds are mailed, and the saved searches of the board. */
export default async function NotificationSettingsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const notice = one(params.notice)?.slice(0, 500);
  const { api } = await requireSessionApi("/settings/notifications", { human: true });
  const { data: settings } = await api.getNotificationSettings({});

  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href="/inbox" className="hover:underline">
          Inbox
        </Link>
      </nav>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">Notification settings</h1>
      <p className="mt-1 text-sm">
        <Link href="/settings/profile" className="underline">
          Your display name
        </Link>
      </p>
      {notice ? (
        <Alert tone="warning" className="mt-4">
          {notice}
        </Alert>
      ) : null}

      <form action={updateNotificationSettingsAction} className="mt-6 space-y-6">
        <Card title="Email address">
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            {settings.email ? (
              <>
                Mail goes to <strong>{settings.email}</strong>, {EMAIL_SOURCE[settings.emailSource!]}.
              </>
            ) : (
              "No confirmed address yet: notifications reach your inbox only."
            )}
            {settings.pendingEmail ? (
              <>
                {" "}
                A confirmation link was mailed to <strong>{settings.pendingEmail}</strong>; open it to use that address.
              </>
            ) : null}
          </p>
          <label className="mt-3 block">
            <span className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">
              New address (a confirmation link is mailed to it)
            </span>
            <Input type="email" name="email" autoComplete="email" maxLength={254} placeholder="you@example.com" />
          </label>
        </Card>
        <Card title="Mail me about">
          <fieldset>
            <legend className="sr-only">Kinds of notification mailed to you</legend>
            <ul className="space-y-2">
              {settings.kinds.map((k) => (
                <li key={k.kind}>
                  <label className="flex items-center gap-2 text-sm">
                    <input type="checkbox" name={`email_${k.kind}`} defaultChecked={k.email} className="size-4" />
                    {k.label}
                  </label>
                </li>
              ))}
            </ul>
            <p className="mt-3 text-xs text-zinc-500 dark:text-zinc-400">
              Every notification also appears in your inbox, whatever is mailed. Each mail has a one-click unsubscribe
              link for its kind.
            </p>
          </fieldset>
        </Card>
        <Card title="Forum">
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="follow_on_reply" defaultChecked={settings.followOnReply} className="size-4" />
            Follow the threads I reply to (their new replies reach my inbox)
          </label>
          <p className="mt-2 text-xs text-zinc-500 dark:text-zinc-400">
            Off: replying no longer follows a thread. A thread you follow already stays followed; unfollow it on its
            page.
          </p>
        </Card>
        <button type="submit" className={buttonClasses({})}>
          Save settings
        </button>
      </form>

      <SavedSearches />

      <section className="mt-10" aria-labelledby="webhooks-heading">
        <h2 id="webhooks-heading" className="text-lg font-semibold">
          Webhooks
        </h2>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
          Your own systems can receive the events of the jobs you posted, signed:{" "}
          <Link href="/settings/webhooks" className="underline">
            set up webhooks
          </Link>
          .
        </p>
      </section>
    </div>
  );
}
