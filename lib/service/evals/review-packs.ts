import { fail } from "../errors";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { requireOperator } from "../auth/operator";
import { asOperator } from "../audit/record-operator-action";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { getPackOrThrow, presentPack, selectPacks } from "./packs";

/** GET /v1/admin/packs: the operator's review queue (PENDING by default), oldest first. */
export async function listPacksForReview(
  ctx: ServiceContext,
  actor: Actor,
  query: { status?: "PENDING" | "APPROVED" | "REFUSED"; limit?: number; cursor?: string },
) {
  await requireOperator(ctx, actor);
  const limit = query.limit ?? 20;
  const after = decodeCursor(query.cursor);
  let q = selectPacks(ctx.db)
    .where("p.review_status", "=", query.status ?? "PENDING")
    .where("p.publisher_user_id", "is not", null);
  if (after) q = q.where(keysetAfter(after, "p.updated_at", "p.id", "asc"));
  const rows = await q
    .orderBy("p.updated_at", "asc")
    .orderBy("p.id", "asc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (row) => ({ k: row.updated_at.toISOString(), id: row.id }), "/v1/evals/packs/:id");
  return { items: page.rows.map(presentPack), meta: page.meta };
}

/**
 * POST /v1/admin/packs/:id/approve and /refuse: the operator decides whether a community pack is
 * listed (and may be required by jobs), with a reason, audited (asOperator). The publisher is told
 * the reason on the pack (reviewReason).
 */
export async function reviewPack(
  ctx: ServiceContext,
  actor: Actor,
  idOrSlug: string,
  decision: "APPROVED" | "REFUSED",
  reason: string,
) {
  const pack = await getPackOrThrow(ctx, idOrSlug);
  if (pack.publisher_user_id === null) throw fail("NOT_FOUND", "community pack not found");
  await asOperator(
    ctx,
    actor,
    {
      action: decision === "APPROVED" ? "pack.approve" : "pack.refuse",
      subjectType: "eval_pack",
      subjectId: pack.id,
      reason,
      details: { slug: pack.slug, title: pack.title },
    },
    async (trx) => {
      await trx
        .updateTable("eval_packs")
        .set({ review_status: decision, review_reason: reason, reviewed_at: ctx.now() })
        .where("id", "=", pack.id)
        .execute();
    },
  );
  const row = await selectPacks(ctx.db).where("p.id", "=", pack.id).executeTakeFirstOrThrow();
  return presentPack(row);
}
