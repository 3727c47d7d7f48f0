import type { Metadata } from "next";
import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { ReviewPackForm } from "@/components/packs/review-pack-form";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";

export const metadata: Metadata = { title: "Pack review" };
export const dynamic = "force-dynamic";

// The operator's review queue of community packs (GET /v1/admin/packs). The service decides who
// the operator is: anyone else gets its 403, shown here. Decisions are audited by the service.
export default async function AdminPacksPage() {
  const { api } = await requireSessionApi("/admin/packs", { human: true });
  const queue = await settle(api.listPacksForReview({ query: { status: "PENDING", limit: 50 } }));
  if (queue.error?.status === 403) {
    return (
      <div className="mx-auto max-w-3xl px-4 py-8">
        <Alert title="For the operator only" error={queue.error} />
      </div>
    );
  }
  return (
    <div className="mx-auto max-w-4xl px-4 py-8">
      <h1 className="text-2xl font-semibold tracking-tight">Packs waiting for review</h1>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
        New and edited community packs are listed, taken and required by jobs only once approved.
      </p>
      {queue.error ? <Alert className="mt-6" title="The queue could not be loaded" error={queue.error} /> : null}
      {queue.result?.data.length === 0 ? (
        <p className="mt-6 text-sm text-zinc-500 dark:text-zinc-400">Nothing to review.</p>
      ) : null}
      <div className="mt-6 space-y-6">
        {queue.result?.data.map((pack) => (
          <Card
            key={pack.id}
            title={
              <Link className="hover:underline" href={`/packs/${pack.id}`}>
                {pack.title}
              </Link>
            }
            description={pack.description}
          >
            <p className="mb-3 text-xs text-zinc-500 dark:text-zinc-400">
              {pack.poolSize} items · {pack.sections.map((s) => s.name).join(", ")} ·{" "}
              {pack.isFree ? "free" : `${pack.priceUsdc} USDC`} · pass {pack.passPercent}% · publisher{" "}
              {pack.publisherId}
            </p>
            <ReviewPackForm packId={pack.id} />
          </Card>
        ))}
      </div>
    </div>
  );
}
