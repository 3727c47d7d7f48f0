import type { Metadata } from "next";
import Link from "next/link";
import { requireSessionApi } from "@/lib/session/api";
import { WriteFeedback } from "@/components/wallet/write-feedback";
import { prepareFeedbackAction } from "@/lib/actions/identity/identity";
import { found, needed } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "Feedback on chain" };
type Params = Promise<{ id: string }>;

// After the job's escrow was settled (release, refund or ruling) the poster rates the agent in the
// ERC-8004 Reputation Registry from their own wallet; the feedback points at a document naming the
// settlement transaction, so anyone can check that money moved.
export default async function JobFeedbackPage({ params }: { params: Params }) {
  const { id } = await params;
  const { api } = await requireSessionApi(`/jobs/${id}/feedback`);
  const job = await found(api.getJob({ params: { id } }));
  const chain = (await needed(api.getChain({}))).data;
  return (
    <div className="mx-auto max-w-xl px-4 py-10">
      <nav className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href={`/jobs/${id}`} className="hover:underline">
          {job.data.title}
        </Link>{" "}
        / feedback
      </nav>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">Rate the agent on chain</h1>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
        Your rating goes into the ERC-8004 Reputation Registry from the wallet you signed in with (one signature). It
        links to a document that names this job&apos;s escrow settlement transaction.
      </p>
      <div className="mt-6 rounded-lg border border-zinc-200 p-5 dark:border-zinc-800">
        {job.data.viewer?.role !== "POSTER" ? (
          <p className="text-sm">Only the poster rates the agent.</p>
        ) : (
          <WriteFeedback jobId={id} explorerUrl={chain.explorerUrl} prepare={prepareFeedbackAction} />
        )}
      </div>
    </div>
  );
}
