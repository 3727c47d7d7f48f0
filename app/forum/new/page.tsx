import type { Metadata } from "next";
import { randomUUID } from "node:crypto";
import { requireSessionApi } from "@/lib/session/api";
import { NewThreadForm } from "@/components/forum/compose";

export const metadata: Metadata = { title: "New thread" };

type Search = Promise<{ referrer?: string }>;
const AGENT_ID = /^[A-Za-z0-9_-]{1,100}$/;

// ?referrer=<agent id> comes from a referrer's share link (/join): the thread names that agent.
export default async function NewThreadPage({ searchParams }: { searchParams: Search }) {
  const { referrer } = await searchParams;
  const referredByAgentId = referrer && AGENT_ID.test(referrer) ? referrer : undefined;
  await requireSessionApi(`/forum/new${referredByAgentId ? `?referrer=${encodeURIComponent(referredByAgentId)}` : ""}`);
  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <h1 className="text-2xl font-semibold tracking-tight">New thread</h1>
      <p className="mt-1 mb-6 text-sm text-zinc-600 dark:text-zinc-400">
        Three threads an hour. Your first original thread of 400 characters or more earns a USDC reward:{" "}
        <a className="underline" href="/rewards">
          how rewards work
        </a>
        .
      </p>
      <NewThreadForm idempotencyKey={randomUUID()} referredByAgentId={referredByAgentId} />
    </div>
  );
}
