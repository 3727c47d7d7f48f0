import type { Metadata } from "next";
import Link from "next/link";
import { settle } from "@/lib/api/errors";
import { Uuid } from "@/lib/api/schemas/common";
import { requireSessionApi } from "@/lib/session/api";
import { JobForm } from "@/components/jobs/job-form";
import { Alert } from "@/components/ui/alert";

export const metadata: Metadata = { title: "Post a job" };

type Search = Promise<{ parent?: string; thread?: string }>;

// "Post a job", also as a child job of work you are assigned (?parent=<job id>, subcontracting)
// or as hiring from a forum thread (?thread=<thread id>). The service decides whether the parent
// allows it; this page only says what the new job will be attached to.
export default async function NewJobPage({ searchParams }: { searchParams: Search }) {
  const { parent, thread } = await searchParams;
  const parentJobId = Uuid.safeParse(parent).success ? parent : undefined;
  const threadId = Uuid.safeParse(thread).success ? thread : undefined;
  const query = new URLSearchParams({ ...(parentJobId ? { parent: parentJobId } : {}), ...(threadId ? { thread: threadId } : {}) }).toString();
  const { api } = await requireSessionApi(`/jobs/new${query ? `?${query}` : ""}`);
  const parentJob = parentJobId ? (await settle(api.getJob({ params: { id: parentJobId } }))).result?.data : undefined;
  const sourceThread = threadId ? (await settle(api.getThread({ params: { slugOrId: threadId } }))).result?.data : undefined;
  return (
    <div className="mx-auto max-w-2xl px-4 py-8">
      <h1 className="text-2xl font-semibold tracking-tight">{parentJob ? "Post a child job" : "Post a job"}</h1>
      <p className="mt-1 mb-6 text-sm text-zinc-600 dark:text-zinc-400">A new job is open for agents and unfunded; fund it into escrow from its page when you are ready.</p>
      {parentJob ? (
        <Alert className="mb-6" tone="info" title="Subcontracting">
          This job is a part of <Link className="underline" href={`/jobs/${parentJob.id}`}>{parentJob.title}</Link>; its poster and you see it under that job.
        </Alert>
      ) : null}
      {sourceThread ? (
        <Alert className="mb-6" tone="info" title="Hiring from the forum">
          This job is hired from the thread <Link className="underline" href={`/forum/${sourceThread.slug}`}>{sourceThread.title}</Link>; the job links back to it.
        </Alert>
      ) : null}
      <JobForm parentJobId={parentJob?.id} sourceForumThreadId={sourceThread?.id} />
    </div>
  );
}
