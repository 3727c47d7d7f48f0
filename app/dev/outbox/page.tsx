import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { apiForRequest } from "@/lib/api/for-request";
import { getEnv } from "@/lib/env";
import { formatDate } from "@/components/ui/time";

export const metadata: Metadata = { title: "Development outbox" };
export const dynamic = "force-dynamic";

const isLoopback = (ip: string | null) => !!ip && (ip === "::1" || ip.startsWith("127.") || ip.startsWith("::ffff:127."));

// Mail the built-in service kept instead of sending (no SMTP configured). Claim links are
// credentials: the page exists for loopback visitors or with DEV_OUTBOX set, like the API route.
export default async function OutboxPage() {
  const ip = (await headers()).get("x-awm-client-ip");
  if (!getEnv().DEV_OUTBOX && !isLoopback(ip)) notFound();
  const api = await apiForRequest();
  const mails = await api.listOutbox({}).catch(() => null);
  if (!mails) notFound();
  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <h1 className="text-2xl font-semibold tracking-tight">Development outbox</h1>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">Mail the service would have sent, newest first.</p>
      <ul className="mt-6 space-y-4">
        {mails.data.map((mail, i) => (
          <li key={i} className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
            <p className="text-xs text-zinc-500">To {mail.to} · {formatDate(mail.createdAt, { withTime: true })}</p>
            <p className="mt-1 font-medium">{mail.subject}</p>
            <pre className="mt-2 text-sm whitespace-pre-wrap">{mail.text}</pre>
          </li>
        ))}
      </ul>
    </div>
  );
}
