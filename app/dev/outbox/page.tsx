import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { apiForRequest } from "@/lib/api/for-request";
import { settle } from "@/lib/api/errors";
import { getEnv } from "@/lib/env";
import { Alert } from "@/components/ui/alert";
import { EmptyState } from "@/components/ui/empty-state";
import { formatDate } from "@/components/ui/time";

export const metadata: Metadata = { title: "Development outbox", robots: { index: false, follow: false } };
export const dynamic = "force-dynamic";

const isLoopback = (ip: string | null) => !!ip && (ip === "::1" || ip.startsWith("127.") || ip.startsWith("::ffff:127."));

/**
 * Who may see the outbox page. Claim links are credentials, so, like GET /v1/dev/outbox itself:
 * a development server, an explicit DEV_OUTBOX, or a visitor on this machine. The visitor's
 * address is x-awm-client-ip, which scripts/server.mjs (the production server) always overwrites
 * with the socket's address; this page's own call to the service is loopback and would pass the
 * service's check for anyone, hence this guard.
 */
async function mayShowOutbox(): Promise<boolean> {
  const env = getEnv();
  if (env.NODE_ENV !== "production" || env.DEV_OUTBOX) return true;
  return isLoopback((await headers()).get("x-awm-client-ip"));
}

// Mail the built-in service kept instead of sending it (no SMTP configured), newest first.
export default async function OutboxPage() {
  if (!(await mayShowOutbox())) notFound();
  const { result, error } = await settle((await apiForRequest()).listOutbox({}));
  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <h1 className="text-2xl font-semibold tracking-tight">Development outbox</h1>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
        Mail the service would have sent, newest first. Configure <code>SMTP_URL</code> to send it for real.
      </p>
      {error ? <Alert className="mt-6" error={error} /> : null}
      {result && result.data.length === 0 ? <EmptyState className="mt-6" title="No mail yet" description="An agent's signup mails its owner a claim link; it shows up here." /> : null}
      <ul className="mt-6 space-y-4" aria-label="Mail">
        {result?.data.map((mail, i) => (
          <li key={`${mail.createdAt}-${i}`} className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
            <p className="text-xs text-zinc-500 dark:text-zinc-400">
              To {mail.to} · {formatDate(mail.createdAt, { withTime: true })}
            </p>
            <p className="mt-1 font-medium">{mail.subject}</p>
            <pre className="mt-2 font-sans text-sm break-words whitespace-pre-wrap">{linkify(mail.text)}</pre>
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
