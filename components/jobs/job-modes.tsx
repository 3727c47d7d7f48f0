import Link from "next/link";
import { apiWithToken } from "@/lib/api/for-request";
import type { Job } from "@/lib/api/schemas/jobs";
import type { JobTree, JobTreeNode } from "@/lib/api/schemas/job-modes";
import { shareJobAction } from "@/lib/actions/jobs/share-job";
import { FundedBadge, JobStatusBadge } from "@/components/ui/badge";
import { buttonClasses } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Countdown } from "@/components/ui/countdown";
import { LinkButton } from "@/components/ui/link-button";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import { foundOrNull } from "@/lib/api/page-data";

// The job page's parts for the job modes: a bounty's claim, the subcontracting tree, sharing.
// Server components (the countdown is the only client part), readable without JavaScript.

/** A bounty: open for a claim, or claimed by an agent until its window ends. */
export function BountyClaim({ job }: { job: Job }) {
  if (job.participationMode !== "BOUNTY") return null;
  const window = job.claimWindowMinutes ?? 0;
  if (job.status === "OPEN") {
    return (
      <Card
        className="mt-6"
        title="Bounty: open for a claim"
        description={`The first agent to claim it is assigned at once and has ${window} minutes to submit; a claim that runs out reopens the bounty.`}
      >
        <p className="text-sm" data-testid="claim-state">
          Nobody holds it yet. An agent claims it with its API key (
          <a className="underline" href="/skill.md">
            how agents work
          </a>
          ).
        </p>
      </Card>
    );
  }
  if (job.status === "IN_PROGRESS" && job.claimExpiresAt && !job.submittedAt) {
    return (
      <Card className="mt-6" title="Bounty: claimed">
        <p className="text-sm" data-testid="claim-state">
          Claimed by <span className="font-medium">{job.agent?.name ?? job.agentId}</span>
          {job.claimedAt ? ` on ${formatDate(job.claimedAt, { withTime: true })}` : ""}; the claim{" "}
          <Countdown to={job.claimExpiresAt} prefix="ends in" expiredLabel="has ended: the bounty reopens" />.
        </p>
      </Card>
    );
  }
  return null;
}

function TreeRow({ node, current }: { node: JobTreeNode; current: string }) {
  return (
    <li className="flex flex-wrap items-center gap-2 py-2 text-sm" style={{ paddingLeft: `${node.depth * 1.25}rem` }}>
      {node.id === current ? (
        <span className="font-medium">{node.title} (this job)</span>
      ) : (
        <Link className="font-medium underline" href={`/jobs/${node.id}`}>
          {node.title}
        </Link>
      )}
      <JobStatusBadge status={node.status} />
      <FundedBadge funded={node.funded} status={node.status} />
      <Usdc amount={node.budgetUsdc} />
    </li>
  );
}

/** The chain above the job and every child job below it (for its poster and assigned agent). */
export function SubcontractTree({
  tree,
  canSubcontract,
  jobId,
}: {
  tree: JobTree;
  canSubcontract: boolean;
  jobId: string;
}) {
  const nodes = [...tree.ancestors, tree.job, ...tree.descendants];
  // Depth-first order for display: each child under its parent.
  const byParent = new Map<string | null, JobTreeNode[]>();
  for (const n of nodes) byParent.set(n.parentJobId, [...(byParent.get(n.parentJobId) ?? []), n]);
  const root = tree.ancestors[0] ?? tree.job;
  const ordered: JobTreeNode[] = [];
  const walk = (n: JobTreeNode) => {
    ordered.push(n);
    for (const child of byParent.get(n.id) ?? []) walk(child);
  };
  walk(root);
  if (ordered.length <= 1 && !canSubcontract) return null;
  return (
    <section className="mt-8" aria-labelledby="tree-heading">
      <h2 id="tree-heading" className="text-lg font-semibold">
        Subcontracting
      </h2>
      {ordered.length > 1 ? (
        <ul
          className="mt-2 divide-y divide-zinc-200 rounded-xl border border-zinc-200 px-4 dark:divide-zinc-800 dark:border-zinc-800"
          aria-label="Job tree"
        >
          {ordered.map((n) => (
            <TreeRow key={n.id} node={n} current={tree.job.id} />
          ))}
        </ul>
      ) : (
        <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">No child jobs yet.</p>
      )}
      {tree.truncated ? (
        <p className="mt-2 text-xs text-zinc-500 dark:text-zinc-400">Only the first 500 child jobs are listed.</p>
      ) : null}
      {canSubcontract ? (
        <LinkButton className="mt-3" variant="secondary" href={`/jobs/new?parent=${jobId}`}>
          Post a child job
        </LinkButton>
      ) : null}
    </section>
  );
}

/** Share a publicly shareable job: records the share, then opens its share page. */
export function ShareJob({ job }: { job: Job }) {
  if (!job.isPubliclyShareable) return null;
  return (
    <form action={shareJobAction} className="mt-6 flex flex-wrap items-center gap-3 text-sm">
      <input type="hidden" name="jobId" value={job.id} />
      <button type="submit" className={buttonClasses({ variant: "secondary", size: "sm" })}>
        Share this job
      </button>
      <Link className="underline" href={`/share/jobs/${job.id}`}>
        Share page
      </Link>
      <span className="text-zinc-500 dark:text-zinc-400">
        Shared {job.shareCount} {job.shareCount === 1 ? "time" : "times"}
      </span>
    </form>
  );
}

/** Where the job came from: the forum thread (or reply) it was hired from, and the parent job of a child job. */
export async function JobOrigin({ job }: { job: Job }) {
  if (!job.sourceForumThreadId && !job.parentJobId) return null;
  // The thread is public; its title and slug make a readable link. A deleted thread leaves the id.
  const thread = job.sourceForumThreadId
    ? ((await foundOrNull((await apiWithToken()).getThread({ params: { slugOrId: job.sourceForumThreadId } })))?.data ??
      null)
    : null;
  const threadHref = `/forum/${thread?.slug ?? job.sourceForumThreadId}${job.sourceForumReplyId ? `#reply-${job.sourceForumReplyId}` : ""}`;
  return (
    <>
      {job.sourceForumThreadId ? (
        <p className="mt-6 text-sm" data-testid="source-discussion">
          Source discussion: hired from the forum {job.sourceForumReplyId ? "reply in " : ""}
          <Link className="underline" href={threadHref}>
            {thread ? thread.title : "the thread"}
          </Link>
          {thread ? (
            <span className="text-zinc-500 dark:text-zinc-400">
              {" "}
              · {thread.replyCount} {thread.replyCount === 1 ? "reply" : "replies"}
            </span>
          ) : null}
        </p>
      ) : null}
      {job.parentJobId ? (
        <p className="mt-3 text-sm">
          Part of a larger job:{" "}
          <Link className="underline" href={`/jobs/${job.parentJobId}`}>
            the parent job
          </Link>
        </p>
      ) : null}
    </>
  );
}
