import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { apiWithToken } from "@/lib/api/for-request";
import type { ApiClient } from "@/lib/api/client";
import { requireSessionApi } from "@/lib/session/api";
import { DisputeCasePanel } from "@/components/disputes/dispute-case";
import { JobBrief } from "@/components/jobs/job-brief";
import { JobTimeline } from "@/components/jobs/job-timeline";
import { JobConversations } from "@/components/messages/job-conversations";
import { Alert } from "@/components/ui/alert";
import { optional, settle } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "Dispute case" };
export const dynamic = "force-dynamic";

// One dispute case for the operator (the [id] is the job's id: a job has at most one case): the
// statements and evidence, the job's brief and acceptance criteria, the deliverable's proof history, what the poster and the assigned agent
// wrote to each other (read-only), the job's timeline and the ruling form when the operator is the
// case's arbiter now. GET /v1/jobs/:id/dispute decides who reads the case, and GET
// /v1/jobs/:id/messages who reads the conversation.
export default async function AdminDisputePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { api } = await requireSessionApi(`/admin/disputes/${id}`);
  // The case, the chain (for explorer links) and the job (the timeline names the poster and the agent
  // in words) are independent reads: the [id] is the job's id.
  const [res, chain, jobRes] = await Promise.all([
    settle(api.getDispute({ params: { id } })),
    apiWithToken().then((anonymous) => optional(anonymous.getChain({}))),
    settle(api.getJob({ params: { id } })),
  ]);
  if (res.error?.status === 404 || res.error?.status === 400) notFound();
  const explorer = chain?.data.explorerUrl ?? null;
  const kase = res.result?.data ?? null;
  const job = kase ? jobRes.result?.data : undefined;
  const parties = { posterId: job?.posterId ?? "", agentNames: job?.agent ? { [job.agent.id]: job.agent.name } : {} };
  const conversation = job?.agent ? await assignedConversation(api, job.id, job.agent.id) : null;
  return (
    <div className="mx-auto max-w-4xl px-4 py-8">
      <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href="/admin/disputes" className="hover:underline">
          Disputes
        </Link>
      </nav>
      {res.error ? (
        <Alert
          tone="warning"
          className="mt-6"
          title={res.error.status === 403 ? "Not yours to read" : "The case could not be loaded"}
          error={res.error}
        />
      ) : null}
      {kase ? (
        <>
          <h1 className="mt-2 text-2xl font-semibold tracking-tight">
            <Link href={`/jobs/${kase.jobId}`} className="hover:underline">
              {kase.jobTitle}
            </Link>
          </h1>
          <DisputeCasePanel
            kase={kase}
            explorerUrl={explorer}
            feeBps={chain?.data.feeBps ?? null}
            parties={
              job
                ? {
                    poster: { id: job.poster.id, name: job.poster.displayName, address: job.poster.address },
                    agent: job.agent ?? null,
                  }
                : null
            }
          />
          {/* What the job asked for: the arbiter rules against the brief and its criteria. */}
          {job ? <JobBrief job={job} /> : null}
          {conversation && job ? (
            <JobConversations
              jobId={job.id}
              posterName={job.poster.displayName}
              conversations={[conversation.conversation]}
              selected={conversation}
            />
          ) : null}
          <JobTimeline events={kase.timeline} hasMore={false} explorerUrl={explorer} parties={parties} />
        </>
      ) : null}
    </div>
  );
}

/** The conversation between the poster and the assigned agent, as its arbiter reads it (null when it cannot be read). */
async function assignedConversation(api: ApiClient, jobId: string, agentId: string) {
  const [list, messages] = await Promise.all([
    settle(api.listJobConversations({ params: { id: jobId } })),
    settle(api.listJobMessages({ params: { id: jobId }, query: { with: agentId, limit: 200 } })),
  ]);
  const conversation = list.result?.data.find((c) => c.agentId === agentId);
  if (!conversation || !messages.result) return null;
  return { conversation, messages: messages.result.data, hasMore: messages.result.meta.hasMore };
}
