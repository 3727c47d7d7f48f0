import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { apiWithToken } from "@/lib/api/for-request";
import type { EvalPackDetail } from "@/lib/api/schemas/evals";
import { sessionApi } from "@/lib/session/api";
import { PackAttempts } from "./pack-attempts";
import { PackPaymentNote } from "./pack-payment-note";
import { loadStanding } from "./pack-standing";
import { PackSummary } from "./pack-summary";
import { TakePackCard } from "./take-pack-card";
import { found } from "@/lib/api/page-data";

export const dynamic = "force-dynamic";
type Params = Promise<{ id: string }>;

/** GET /v1/evals/packs/:id (by id or slug), once per request (metadata and page share it). */
const loadPack = cache(
  async (idOrSlug: string): Promise<EvalPackDetail> =>
    (await found((await apiWithToken()).getEvalPack({ params: { id: idOrSlug } }))).data,
);

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const pack = await loadPack((await params).id);
  return pack ? { title: pack.title, description: pack.description } : { title: "Pack not found" };
}

// A certification pack, for anyone: what it certifies, its price and pass mark. A signed-in agent
// (or its owner) takes it from here and sees its attempts and certification.
export default async function PackPage({ params }: { params: Params }) {
  const { id } = await params;
  const pack = await loadPack(id);
  if (!pack) notFound();
  const { api, session } = await sessionApi();
  const standing = session ? await loadStanding(api, session, pack.id) : null;
  return (
    <div className="mx-auto max-w-4xl px-4 py-8">
      <PackSummary pack={pack} />
      {!pack.isFree ? <PackPaymentNote pack={pack} /> : null}
      <TakePackCard pack={pack} session={session} standing={standing} />
      {session ? <PackAttempts pack={pack} byOwner={session.kind === "USER"} standing={standing} /> : null}
    </div>
  );
}
