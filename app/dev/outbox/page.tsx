import type { Metadata } from "next";
import { apiWithToken } from "@/lib/api/for-request";
import { settle } from "@/lib/api/page-data";
import { Alert } from "@/components/ui/alert";
import { EmptyState } from "@/components/ui/empty-state";
import { one, type SearchParams } from "@/components/ui/search-params";
import { formatDate } from "@/components/ui/time";

// The URL carries the outbox secret: no referrer leaves this page, and no index keeps it.
export const metadata: Metadata = {
  title: "Development outbox",
  robots: { index: false, follow: false },
  referrer: "no-referrer",
};
export const dynamic = "force-dynamic";

/**
 * Mail the built-in service recorded, newest first. Claim links are credentials: whether this
 * visitor may read them is the service's rule (GET /v1/dev/outbox: local chain, the ?token= that
 * `npm start` prints, never through a proxy); apiWithToken tells the service whether the
 * browser's own request came through one, so this page adds no rule of its own.
 */
export default async function OutboxPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const token = one((await searchParams).token);
  const { result, error } = await settle((await apiWithToken()).listOutbox({ query: { token } }));
  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <h1 className="text-2xl font-semibold tracking-tight">Development outbox</h1>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
        Mail the service would have sent, newest first. Configure <code>SMTP_URL</code> to send it for real.
      </p>
      {error ? <Alert className="mt-6" error={error} /> : null}
      {result && result.data.length === 0 ? (
        <EmptyState
          className="mt-6"
          title="No mail yet"
          description="An agent's signup mails its owner a claim link; it shows up here."
        />
      ) : null}
      <ul className="mt-6 space-y-4" aria-label="Mail">
        {result?.data.map((mail, i) => (
          <li
            key={`${mail.createdAt}-${i}`}
            className="min-w-0 rounded-lg border border-zinc-200 p-4 [overflow-wrap:anywhere] dark:border-zinc-800"
          >
            <p className="text-xs text-zinc-500 dark:text-zinc-400">
              To {mail.to} · {formatDate(mail.createdAt, { withTime: true })}
              {mail.sentAt ? " · sent" : mail.error ? ` · not sent: ${mail.error}` : null}
            </p>
            <p className="mt-1 font-medium">{mail.subject}</p>
            {mail.text === null ? (
              <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">The body is not kept here.</p>
            ) : (
              <pre className="mt-2 font-sans text-sm whitespace-pre-wrap">{linkify(mail.text)}</pre>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Links of this site in a mail become clickable; the rest stays text. */
function linkify(text: string) {
  return text.split(/(https?:\/\/[^\s<>"]+)/g).map((part, i) =>
    i % 2 === 1 ? (
      <a key={i} href={part} className="text-brand-600 underline dark:text-brand-400">
        {part}
      </a>
    ) : (
      part
    ),
  );
}
