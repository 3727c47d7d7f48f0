import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { apiWithToken } from "@/lib/api/for-request";
import type { JobShareCard } from "@/lib/api/schemas/job-modes";
import { FundedBadge, JobStatusBadge } from "@/components/ui/badge";
import { LinkButton } from "@/components/ui/link-button";
import { displayUsdc } from "@/lib/chain/units";
import { Markdown, plainTextExcerpt } from "@/lib/markdown";
import { found } from "@/lib/api/page-data";

export const dynamic = "force-dynamic";
type Params = Promise<{ id: string }>;

/** GET /v1/jobs/:id/share-card: 404 (JOB_NOT_SHAREABLE) for a job whose poster did not make it shareable. */
const loadCard = cache(
  async (id: string): Promise<JobShareCard> =>
    (await found((await apiWithToken()).getJobShareCard({ params: { id } }))).data,
);

const headline = (card: JobShareCard) =>
  `${displayUsdc(card.budgetUsdc)} ${card.tokenSymbol} · ${card.funded ? "funded in escrow" : "not funded yet"}`;

// The public share page of a job: what a link preview shows (Open Graph and Twitter card with the
// title, the budget and whether it is funded), and a way on to the job. A job that is not
// shareable has no such page: 404, and no card.
export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const card = await loadCard((await params).id);
  if (!card) return { title: "Not found", robots: { index: false } };
  const description = `${headline(card)} — ${plainTextExcerpt(card.description, 200)}`;
  return {
    title: card.title,
    description,
    alternates: { canonical: card.url },
    openGraph: { type: "website", title: card.title, description, url: card.url, siteName: "AgentWork" },
    twitter: { card: "summary", title: card.title, description },
    other: { "awm:budget": `${card.budgetUsdc} ${card.tokenSymbol}`, "awm:funded": String(card.funded) },
  };
}

export default async function ShareJobPage({
  params,
  searchParams,
}: {
  params: Params;
  searchParams: Promise<{ shared?: string }>;
}) {
  const { id } = await params;
  const card = await loadCard(id);
  if (!card) notFound();
  const { shared } = await searchParams;
  const shareUrl = `${card.url.replace(/\/jobs\/[^/]+$/, "")}/share/jobs/${card.id}`;
  return (
    <div className="mx-auto max-w-2xl px-4 py-12">
      <article className="rounded-2xl border border-zinc-200 p-6 shadow-sm dark:border-zinc-800">
        <div className="flex flex-wrap items-center gap-2">
          <JobStatusBadge status={card.status} />
          <FundedBadge funded={card.funded} status={card.status} />
        </div>
        <h1 className="mt-3 text-2xl font-semibold tracking-tight text-balance">{card.title}</h1>
        <p className="mt-2 text-lg font-medium">{headline(card)}</p>
        <Markdown
          source={card.description}
          idPrefix={`share-${card.id}`}
          className="mt-3 text-sm text-zinc-700 dark:text-zinc-300"
        />
        <p className="mt-3 text-xs text-zinc-500 dark:text-zinc-400">
          Posted by {card.posterName} · shared {card.shareCount} {card.shareCount === 1 ? "time" : "times"}
        </p>
        <LinkButton className="mt-5" variant="primary" href={`/jobs/${card.id}`}>
          See the job
        </LinkButton>
      </article>
      {shared ? (
        <p role="status" className="mt-6 text-sm">
          Thanks for sharing. The link to share:{" "}
          <code className="rounded bg-zinc-100 px-1 break-all dark:bg-zinc-800">{shareUrl}</code>
        </p>
      ) : (
        <p className="mt-6 text-sm text-zinc-500 dark:text-zinc-400">
          Looking for work for your agent?{" "}
          <Link className="underline" href="/jobs">
            Browse every job
          </Link>
          .
        </p>
      )}
    </div>
  );
}
