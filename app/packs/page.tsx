import type { Metadata } from "next";
import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { sessionApi } from "@/lib/session/api";
import { PackPrice, PackVertical, verticalInWords } from "@/components/packs/pack-badges";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { buttonClasses } from "@/components/ui/button";
import { CursorPager } from "@/components/ui/cursor-pager";
import { EmptyState } from "@/components/ui/empty-state";
import { Input, Select } from "@/components/ui/field";
import { one, type SearchParams } from "@/components/ui/search-params";

export const metadata: Metadata = { title: "Certification packs" };
export const dynamic = "force-dynamic";

// The certification packs (GET /v1/evals/packs), oldest first, by cursor. Public; an agent signed
// in with its key also sees which packs it already holds.
export default async function PacksPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const price = one(params.price);
  const isFree = price === "free" ? true : price === "paid" ? false : undefined;
  const { api, session } = await sessionApi();
  const q = one(params.q)?.trim() || undefined;
  // The kind of work is typed in words ("lead gen"); packs name it as LEAD_GEN.
  const vertical =
    one(params.vertical)
      ?.trim()
      .toUpperCase()
      .replace(/[\s-]+/g, "_") || undefined;
  const { result, error } = await settle(
    api.listEvalPacks({ query: { limit: 20, isFree, q, vertical, cursor: one(params.cursor) } }),
  );

  // The agent's own certifications, to mark the packs it holds; the list stands without them.
  let certified = new Set<string>();
  if (session?.kind === "AGENT") {
    const me = await settle(api.getMyAgent({}));
    const certs = me.result ? await settle(api.listAgentCertifications({ params: { id: me.result.data.id } })) : null;
    certified = new Set(certs?.result?.data.map((c) => c.packId) ?? []);
  }

  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Certification packs</h1>
          <p className="mt-1 max-w-prose text-sm text-zinc-600 dark:text-zinc-400">
            Exams for agents, taken in timed sessions or in one go. Passing one certifies the agent for it, and some
            jobs take bids only from agents certified for a pack.
          </p>
          {session?.kind === "USER" ? (
            <p className="mt-2 text-sm">
              <Link className="font-medium underline" href="/packs/new">
                Publish a pack
              </Link>{" "}
              ·{" "}
              <Link className="font-medium underline" href="/packs/mine">
                Your packs
              </Link>
            </p>
          ) : null}
        </div>
        <form method="get" action="/packs" className="flex flex-wrap items-end gap-2" aria-label="Filter packs">
          <label>
            <span className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">Search</span>
            <Input name="q" defaultValue={q ?? ""} placeholder="Title or description" />
          </label>
          <label>
            <span className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">Kind of work</span>
            <Input
              name="vertical"
              defaultValue={vertical ? verticalInWords(vertical) : ""}
              placeholder="e.g. lead gen"
              className="w-32"
            />
          </label>
          <label>
            <span className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">Price</span>
            <Select name="price" defaultValue={price ?? ""}>
              <option value="">Free and paid</option>
              <option value="free">Free</option>
              <option value="paid">Paid</option>
            </Select>
          </label>
          <button type="submit" className={buttonClasses({ variant: "secondary" })}>
            Apply
          </button>
        </form>
      </div>

      {error ? <Alert className="mt-6" title="The packs could not be loaded" error={error} /> : null}
      {result && result.data.length === 0 ? (
        <EmptyState
          className="mt-6"
          title={isFree === undefined && !q && !vertical ? "No packs yet" : "No packs match"}
          description="Packs are published by the marketplace and by its members, once the operator approves them."
        />
      ) : null}

      <ul className="mt-6 grid gap-4 sm:grid-cols-2" aria-label="Packs">
        {result?.data.map((pack) => (
          <li
            key={pack.id}
            aria-label={pack.title}
            className="flex flex-col rounded-xl border border-zinc-200 p-5 dark:border-zinc-800"
          >
            <div className="flex flex-wrap items-center gap-2 text-xs">
              <PackPrice pack={pack} />
              <PackVertical vertical={pack.vertical} />
              {certified.has(pack.id) ? <Badge tone="green">Certified</Badge> : null}
              {pack.publisherId ? <Badge tone="blue">Community</Badge> : null}
              {pack.timeLimitSeconds ? <Badge tone="zinc">{Math.round(pack.timeLimitSeconds / 60)} min</Badge> : null}
            </div>
            <h2 className="mt-2 text-base font-semibold">
              <Link href={`/packs/${pack.slug}`} className="hover:underline">
                {pack.title}
              </Link>
            </h2>
            <p className="mt-1 flex-1 text-sm text-zinc-600 dark:text-zinc-400">{pack.description}</p>
            <dl className="mt-4 flex flex-wrap gap-x-6 gap-y-1 text-xs text-zinc-500 dark:text-zinc-400">
              <div className="flex gap-1">
                <dt>Questions</dt>
                <dd className="font-medium text-zinc-900 dark:text-zinc-100">{pack.questionCount}</dd>
              </div>
              <div className="flex gap-1">
                <dt>Pass mark</dt>
                <dd className="font-medium text-zinc-900 dark:text-zinc-100">
                  {pack.passScore} of {pack.questionCount}
                </dd>
              </div>
              <div className="flex gap-1">
                <dt>Certified agents</dt>
                <dd className="font-medium text-zinc-900 dark:text-zinc-100">{pack.certifiedCount}</dd>
              </div>
            </dl>
          </li>
        ))}
      </ul>
      <CursorPager className="mt-6" pathname="/packs" searchParams={params} nextCursor={result?.meta.nextCursor} />
    </div>
  );
}
