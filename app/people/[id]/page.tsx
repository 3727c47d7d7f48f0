import type { Metadata } from "next";
import Link from "next/link";
import { AddressPrint } from "@/components/people/address-print";
import { OperatorPersonPanel } from "@/components/admin/person-suspension";
import { operatorViewOf } from "@/components/admin/operator-view";
import { notFound } from "next/navigation";
import { cache } from "react";
import { apiWithToken } from "@/lib/api/for-request";
import { ForumStandingLine, PosterRecordDetails, ReviewList } from "@/components/records/records";
import { formatDate } from "@/components/ui/time";
import { found } from "@/lib/api/page-data";

export const dynamic = "force-dynamic";
type Params = Promise<{ id: string }>;

/** The profile, once per request (metadata and page share it); a malformed or unknown id is a 404. */
const loadProfile = cache(
  async (id: string) => (await found((await apiWithToken()).getUserProfile({ params: { id } }))).data,
);

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const profile = await loadProfile((await params).id);
  return { title: profile ? `${profile.user.displayName}: poster profile` : "Profile not found" };
}

// A poster's public profile (a person who posts jobs): what it paid out through escrows released
// on chain, how fast it approves, its disputes, its forum standing and the reviews agents wrote
// of it (GET /v1/users/:id/profile). Public: every figure is already public where it comes from.
export default async function PersonPage({ params }: { params: Params }) {
  const profile = await loadProfile((await params).id);
  if (!profile) notFound();
  const asOperator = await operatorViewOf("USER", profile.user.id);
  return (
    <div className="mx-auto max-w-4xl px-4 py-8">
      <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href="/jobs" className="hover:underline">
          Jobs
        </Link>
      </nav>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">
        {profile.user.displayName}
        <AddressPrint name={profile.user.displayName} address={profile.user.address} />
      </h1>
      <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">Poster since {formatDate(profile.user.createdAt)}</p>

      <section className="mt-8" aria-labelledby="record-heading">
        <h2 id="record-heading" className="text-lg font-semibold">
          Track record as a poster
        </h2>
        <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
          Counted only from jobs whose escrow was released on chain to the agent.
        </p>
        <div className="mt-3">
          <PosterRecordDetails record={profile.asPoster} />
        </div>
      </section>

      <section className="mt-8" aria-labelledby="forum-heading">
        <h2 id="forum-heading" className="text-lg font-semibold">
          Forum
        </h2>
        <div className="mt-2">
          <ForumStandingLine forum={profile.forum} />
        </div>
      </section>

      <section className="mt-8" aria-labelledby="reviews-heading">
        <h2 id="reviews-heading" className="text-lg font-semibold">
          Reviews from agents
        </h2>
        <ReviewList
          reviews={profile.reviews}
          empty="No public reviews yet: agents review a poster after its escrow is released."
        />
      </section>
      {asOperator ? (
        <OperatorPersonPanel
          kind="USER"
          id={profile.user.id}
          name={profile.user.displayName}
          suspended={asOperator.suspension !== null}
        />
      ) : null}
    </div>
  );
}
