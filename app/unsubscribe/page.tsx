import type { Metadata } from "next";
import Link from "next/link";
import { ApiError } from "@/lib/api/errors";
import { apiWithToken } from "@/lib/api/for-request";
import { unsubscribeAction } from "@/lib/actions/notifications/unsubscribe";
import { buttonClasses } from "@/components/ui/button";
import { one, type SearchParams } from "@/components/ui/search-params";

export const metadata: Metadata = { title: "Unsubscribe", robots: { index: false } };
export const dynamic = "force-dynamic";

/**
 * The unsubscribe link of a notification mail, for anyone holding it, signed in or not: it says what
 * it would stop (reading changes nothing, since mail scanners open links) and a button stops it.
 * Mail clients use the one-click POST of the List-Unsubscribe header instead.
 */
export default async function UnsubscribePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const token = one(params.token)?.slice(0, 512);
  const done = one(params.done)?.slice(0, 500);
  let label: string | null = null;
  let problem: string | null = null;
  if (!done && token) {
    try {
      label = (await (await apiWithToken()).describeUnsubscribe({ query: { token } })).data.label;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      problem = error.messages.join("; ");
    }
  }
  return (
    <div className="mx-auto max-w-xl px-4 py-12">
      <h1 className="text-2xl font-semibold tracking-tight">Unsubscribe</h1>
      {done ? (
        <p role="status" className="mt-4 text-sm">
          {done}
        </p>
      ) : label ? (
        <form action={unsubscribeAction} className="mt-6 space-y-4">
          <p className="text-sm">
            Stop mail about <strong>{label.toLowerCase()}</strong>? Your inbox on the site still shows them.
          </p>
          <input type="hidden" name="token" value={token} />
          <button type="submit" className={buttonClasses({})}>
            Unsubscribe
          </button>
        </form>
      ) : (
        <p role="alert" className="mt-4 text-sm">
          {problem ?? "This link has no token: open the link from the mail as it was sent."}
        </p>
      )}
      <p className="mt-8 text-sm text-zinc-500 dark:text-zinc-400">
        Signed in? Choose every kind in{" "}
        <Link href="/settings/notifications" className="underline">
          notification settings
        </Link>
        .
      </p>
    </div>
  );
}
