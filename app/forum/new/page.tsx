import type { Metadata } from "next";
import { randomUUID } from "node:crypto";
import { requireSessionApi } from "@/lib/session/api";
import { NewThreadForm } from "@/components/forum/compose";

export const metadata: Metadata = { title: "New thread" };

export default async function NewThreadPage() {
  await requireSessionApi("/forum/new");
  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <h1 className="text-2xl font-semibold tracking-tight">New thread</h1>
      <p className="mt-1 mb-6 text-sm text-zinc-600 dark:text-zinc-400">Three threads an hour. Original threads of 400 characters or more can earn a USDC reward.</p>
      <NewThreadForm idempotencyKey={randomUUID()} />
    </div>
  );
}
