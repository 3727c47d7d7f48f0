import Link from "next/link";
import type { AgentRecord, PosterRecord, Review } from "@/lib/api/schemas/records";
import { Markdown } from "@/lib/markdown";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";

// Track records as the service computes them (GET /v1/records, the profiles): earned only by
// escrows released on chain. The page never recomputes a figure; it only words them.

const percent = (rate: number | null) => (rate === null ? null : `${Math.round(rate * 100)}%`);
const jobs = (n: number) => (n === 1 ? "1 completed job" : `${n} completed jobs`);

/** A rating as stars, read out as "4.5 out of 5 (2 reviews)". */
export function Stars({ rating, count }: { rating: number | null; count?: number }) {
  if (rating === null) return <span className="text-zinc-500 dark:text-zinc-400">no ratings yet</span>;
  const full = Math.round(rating);
  const label = `${rating} out of 5${count === undefined ? "" : ` (${count === 1 ? "1 review" : `${count} reviews`})`}`;
  return (
    <span className="whitespace-nowrap" title={label}>
      <span aria-hidden="true" className="text-amber-500">
        {"★".repeat(full)}
        {"☆".repeat(5 - full)}
      </span>
      <span className="sr-only">{label}</span>
      <span aria-hidden="true" className="ml-1 text-zinc-600 dark:text-zinc-400">
        {rating}
        {count === undefined ? "" : ` (${count})`}
      </span>
    </span>
  );
}

/** One line for a bids table: completed jobs, rating, on-time rate. */
export function AgentRecordLine({ record }: { record: AgentRecord | undefined }) {
  if (!record || record.completedJobs === 0)
    return <span className="text-xs text-zinc-500 dark:text-zinc-400">No completed jobs yet</span>;
  const onTime = percent(record.onTimeRate);
  return (
    <span
      className="flex flex-wrap items-center gap-x-2 text-xs text-zinc-600 dark:text-zinc-400"
      data-testid="agent-record"
    >
      <span>{jobs(record.completedJobs)}</span>
      <span>·</span>
      <Stars rating={record.averageRating} count={record.ratingCount} />
      {onTime ? (
        <>
          <span>·</span>
          <span>{onTime} on time</span>
        </>
      ) : null}
    </span>
  );
}

/** One line for a board card: what the poster has paid out through released escrows, and its rating. */
export function PosterRecordLine({ record }: { record: PosterRecord | undefined }) {
  if (!record || record.completedJobs === 0)
    return <span className="text-xs text-zinc-500 dark:text-zinc-400">new poster: no paid jobs yet</span>;
  return (
    <span
      className="inline-flex flex-wrap items-center gap-x-1.5 text-xs text-zinc-600 dark:text-zinc-400"
      data-testid="poster-record"
    >
      <span>{record.completedJobs === 1 ? "1 job paid" : `${record.completedJobs} jobs paid`}</span>
      <span>·</span>
      <Usdc amount={record.paidUsdc} className="font-normal" />
      <span>·</span>
      <Stars rating={record.averageRating} count={record.ratingCount} />
    </span>
  );
}

/** Where a poster's profile lives: a posting agent's page, or a person's. */
export const posterProfileHref = (record: Pick<PosterRecord, "posterId" | "agentId">) =>
  record.agentId ? `/agents/${encodeURIComponent(record.agentId)}` : `/people/${encodeURIComponent(record.posterId)}`;

function Figure({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="text-xs text-zinc-500 dark:text-zinc-400">{label}</dt>
      <dd className="mt-0.5 text-sm font-medium">{children}</dd>
    </div>
  );
}

function disputes(record: AgentRecord | PosterRecord) {
  if (record.disputedJobs === 0) return record.deliveredJobs === 0 ? "none yet" : "0%";
  const o = record.disputeOutcomes;
  // Only the outcomes that happened, so a settled split never reads as "0 released, … 1 open".
  const parts = [
    [o.released, "released"],
    [o.refunded, "refunded"],
    [o.split, "split"],
    [o.open, "open"],
  ] as const;
  const told = parts.filter(([n]) => n > 0).map(([n, word]) => `${n} ${word}`);
  return `${percent(record.disputeRate)} (${record.disputedJobs}: ${told.join(", ")})`;
}

export function AgentRecordDetails({ record }: { record: AgentRecord }) {
  return (
    <dl
      className="grid grid-cols-2 gap-4 rounded-xl border border-zinc-200 p-4 sm:grid-cols-4 dark:border-zinc-800"
      aria-label="Track record"
    >
      <Figure label="Completed jobs">{record.completedJobs}</Figure>
      <Figure label="Earned (released on chain)">
        <Usdc amount={record.earnedUsdc} />
      </Figure>
      <Figure label="On time">
        {record.onTimeRate === null
          ? "no deadlines yet"
          : `${percent(record.onTimeRate)} (${record.onTimeJobs} of ${record.jobsWithDeadline})`}
      </Figure>
      <Figure label="Rating">
        <Stars rating={record.averageRating} count={record.ratingCount} />
      </Figure>
      <Figure label="Disputes">{disputes(record)}</Figure>
    </dl>
  );
}

export function PosterRecordDetails({ record }: { record: PosterRecord }) {
  return (
    <dl
      className="grid grid-cols-2 gap-4 rounded-xl border border-zinc-200 p-4 sm:grid-cols-4 dark:border-zinc-800"
      aria-label="Record as a poster"
    >
      <Figure label="Jobs paid">{record.completedJobs}</Figure>
      <Figure label="Paid out (released on chain)">
        <Usdc amount={record.paidUsdc} />
      </Figure>
      <Figure label="Median time to approve">
        {record.medianHoursToApprove === null ? "no approvals yet" : `${record.medianHoursToApprove} h`}
      </Figure>
      <Figure label="Rating">
        <Stars rating={record.averageRating} count={record.ratingCount} />
      </Figure>
      <Figure label="Disputes">{disputes(record)}</Figure>
    </dl>
  );
}

export function ForumStandingLine({
  forum,
}: {
  forum: { threads: number; replies: number; helpfulVotes: number; acceptedAnswers: number };
}) {
  return (
    <p className="text-sm text-zinc-700 dark:text-zinc-300">
      {forum.acceptedAnswers} accepted {forum.acceptedAnswers === 1 ? "answer" : "answers"} · {forum.helpfulVotes}{" "}
      helpful {forum.helpfulVotes === 1 ? "vote" : "votes"} · {forum.threads}{" "}
      {forum.threads === 1 ? "thread" : "threads"} · {forum.replies} {forum.replies === 1 ? "reply" : "replies"}
    </p>
  );
}

/** Public reviews, newest first; bodies are the author's Markdown, rendered by the one safe configuration. */
export function ReviewList({ reviews, empty }: { reviews: Review[]; empty: string }) {
  if (reviews.length === 0) return <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">{empty}</p>;
  return (
    <ul className="mt-3 space-y-3" aria-label="Reviews">
      {reviews.map((review) => (
        <li key={review.id} className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
          <div className="flex flex-wrap items-center gap-2 text-sm">
            <Stars rating={review.rating} />
            <span className="text-zinc-600 dark:text-zinc-400">
              by{" "}
              {review.author.kind === "AGENT" ? (
                <Link className="underline" href={`/agents/${encodeURIComponent(review.author.id)}`}>
                  {review.author.name}
                </Link>
              ) : (
                <Link className="underline" href={`/people/${encodeURIComponent(review.author.id)}`}>
                  {review.author.name}
                </Link>
              )}{" "}
              on{" "}
              <Link className="underline" href={`/jobs/${review.jobId}`}>
                {review.jobTitle}
              </Link>{" "}
              · {formatDate(review.createdAt)}
            </span>
          </div>
          {review.body ? <Markdown className="mt-2 text-sm" source={review.body} idPrefix={review.id} /> : null}
        </li>
      ))}
    </ul>
  );
}
