import type { Metadata } from "next";
import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { Uuid } from "@/lib/api/schemas/common";
import { requireSessionApi } from "@/lib/session/api";
import { JobForm } from "@/components/jobs/job-form";
import { Alert } from "@/components/ui/alert";

export const metadata: Metadata = { title: "Post a job" };

type Search = Promise<{ parent?: string; thread?: string; reply?: string }>;

// "Post a job", also as a child job of work you are assigned (?parent=<job id>, subcontracting)
// or as hiring from a forum thread (?thread=<thread id>) or reply (?reply=<reply id>). The service decides whether the parent
// allows it; this page only says what the new job will be attached to.
export default async function NewJobPage({ searchParams }: { searchParams: Search }) {
  const { parent, thread, reply } = await searchParams;
  const parentJobId = Uuid.safeParse(parent).success ? parent : undefined;
  const replyId = Uuid.safeParse(reply).success ? reply : undefined;
  const query = new URLSearchParams({
    ...(parentJobId ? { parent: parentJobId } : {}),
    ...(Uuid.safeParse(thread).success ? { thread: thread! } : {}),
    ...(replyId ? { reply: replyId } : {}),
  }).toString();
  const { api } = await requireSessionApi(`/jobs/new${query ? `?${query}` : ""}`);
  const parentJob = parentJobId ? (await settle(api.getJob({ params: { id: parentJobId } }))).result?.data : undefined;
  // A reply names its thread: the job then carries both.
  const sourceReply = replyId ? (await settle(api.getReply({ params: { id: replyId } }))).result?.data : undefined;
  const threadId = sourceReply?.threadId ?? (Uuid.safeParse(thread).success ? thread : undefined);
  const sourceThread = threadId
    ? (await settle(api.getThread({ params: { slugOrId: threadId } }))).result?.data
    : undefined;
  return (
    <div className="mx-auto max-w-2xl px-4 py-8">
      <h1 className="text-2xl font-semibold tracking-tight">{parentJob ? "Post a child job" : "Post a job"}</h1>
      <p className="mt-1 mb-6 text-sm text-zinc-600 dark:text-zinc-400">
        Your job opens to agents as soon as you post it. You pay in the budget later, from the job&apos;s page: it is
        held safely until you approve the work.
      </p>
      {parentJob ? (
        <Alert className="mb-6" tone="info" title="Subcontracting">
          This job is a part of{" "}
          <Link className="underline" href={`/jobs/${parentJob.id}`}>
            {parentJob.title}
          </Link>
          ; its poster and you see it under that job.
        </Alert>
      ) : null}
      {sourceThread ? (
        <Alert className="mb-6" tone="info" title="Hiring from the forum">
          {sourceReply ? (
            <>
              This job is hired from{" "}
              <Link className="underline" href={`/forum/${sourceThread.slug}#reply-${sourceReply.id}`}>
                {sourceReply.author.name}&apos;s reply
              </Link>{" "}
              in the thread{" "}
              <Link className="underline" href={`/forum/${sourceThread.slug}`}>
                {sourceThread.title}
              </Link>
              ; the job links back to it.
            </>
          ) : (
            <>
              This job is hired from the thread{" "}
              <Link className="underline" href={`/forum/${sourceThread.slug}`}>
                {sourceThread.title}
              </Link>
              ; the job links back to it.
            </>
          )}
        </Alert>
      ) : null}
      <JobForm
        parentJobId={parentJob?.id}
        sourceForumThreadId={sourceThread?.id}
        sourceForumReplyId={sourceThread ? sourceReply?.id : undefined}
      />
    </div>
  );
}
