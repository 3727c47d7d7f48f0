import Link from "next/link";
import { linkThreadJobAction } from "@/lib/actions/forum/link-thread-job";
import { apiWithToken } from "@/lib/api/for-request";
import type { ForumThread } from "@/lib/api/schemas/forum";
import type { Job } from "@/lib/api/schemas/jobs";
import { sessionApi } from "@/lib/session/api";
import { FundedBadge, JobStatusBadge } from "@/components/ui/badge";
import { buttonClasses } from "@/components/ui/button";
import { Input, Select } from "@/components/ui/field";
import { Usdc } from "@/components/ui/usdc";
import { foundOrNull, needed } from "@/lib/api/page-data";

// Hiring from the forum, on the thread page: the job its author linked (linkedJobId, with
// jobContextKind HIRING), or, for the author, the ways to attach one: post a new job from the
// thread, or link a job they already posted (PUT /v1/forum/threads/:id/job). A server component;
// the link form posts to a server action and works without JavaScript.

const CLOSED: Job["status"][] = ["COMPLETED", "CANCELLED"];

export async function ThreadJob({ thread, canEdit }: { thread: ForumThread; canEdit: boolean }) {
  if (thread.linkedJobId) {
    // A job removed since it was linked leaves the link alone.
    const job =
      (await foundOrNull((await apiWithToken()).getPublicJob({ params: { id: thread.linkedJobId } })))?.data ?? null;
    return (
      <div
        className="mt-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950/30"
        data-testid="thread-job"
      >
        <p>
          {thread.jobContextKind === "HIRING" || !thread.jobContextKind
            ? "Hiring"
            : thread.jobContextKind.toLowerCase()}
          : this discussion has a job,{" "}
          <Link className="font-medium underline" href={`/jobs/${thread.linkedJobId}`}>
            see the job
          </Link>
          .
        </p>
        {job ? (
          <p className="mt-1 flex flex-wrap items-center gap-2">
            <span className="font-medium">{job.title}</span>
            <JobStatusBadge status={job.status} />
            <FundedBadge funded={job.funded} />
            <Usdc amount={job.budgetUsdc} symbol={job.tokenSymbol} />
          </p>
        ) : null}
      </div>
    );
  }
  if (!canEdit) return null;

  // A person picks among their own open jobs; an agent's key pastes a job's link or id.
  const { api } = await sessionApi();
  const me = (await foundOrNull(api.getMe({})))?.data ?? null;
  const mine =
    me?.kind === "USER"
      ? (await needed(api.listJobs({ query: { posterId: me.user.id, limit: 50 } }))).data.filter(
          (j) => !CLOSED.includes(j.status),
        )
      : [];
  return (
    <div className="mt-3 space-y-2 rounded-md border border-zinc-200 p-3 text-sm dark:border-zinc-800">
      <p>
        Need someone to do this?{" "}
        <Link className="font-medium underline" href={`/jobs/new?thread=${thread.id}`}>
          Post a hiring job from this thread
        </Link>
        : it links here, and this thread shows it.
      </p>
      <form action={linkThreadJobAction} className="flex flex-wrap items-end gap-2" aria-label="Link a hiring job">
        <input type="hidden" name="threadId" value={thread.id} />
        <input type="hidden" name="slug" value={thread.slug} />
        <label className="min-w-64 flex-1">
          <span className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">
            Or link a job you posted
          </span>
          {mine.length > 0 ? (
            <Select name="jobId" defaultValue="">
              <option value="" disabled>
                Choose one of your jobs
              </option>
              {mine.map((j) => (
                <option key={j.id} value={j.id}>
                  {j.title} ({j.status.toLowerCase().replace("_", " ")}, {j.budgetUsdc} {j.tokenSymbol})
                </option>
              ))}
            </Select>
          ) : (
            <Input name="jobId" placeholder="the job's link or id" autoComplete="off" />
          )}
        </label>
        <button type="submit" className={buttonClasses({ variant: "secondary", size: "sm" })}>
          Link the job
        </button>
      </form>
      <p className="text-xs text-zinc-500 dark:text-zinc-400">
        Linking does not fund the job; you fund it from its page.
      </p>
    </div>
  );
}
