import { fail, DomainError, domainStatusOf } from "../errors";
import { sql } from "kysely";
import type { z } from "zod";
import { packPaymentMessage, type EvalPack, type EvalPackDetail, type EvalPayment } from "@/lib/api/schemas/evals";
import { parseUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import type { Db } from "../db/connection";
import type { Actor } from "../auth/actor";
import { isOperator } from "../auth/operator";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { normaliseDecimal } from "@/lib/chain/units";
import { packTreasury } from "./treasury";

type PackDto = z.input<typeof EvalPack>;
type PaymentDto = z.input<typeof EvalPayment>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

/** Packs with their live item counts, sections and certification counts. */
export function selectPacks(db: Db) {
  return db
    .selectFrom("eval_packs as p")
    .selectAll("p")
    .select([
      sql<number>`(select count(*)::int from eval_questions q where q.pack_id = p.id and q.retired_at is null)`.as(
        "question_count",
      ),
      sql<number>`(select count(*)::int from eval_certifications c where c.pack_id = p.id)`.as("certified_count"),
      sql<
        Array<{ name: string; items: number; points: number }>
      >`(select coalesce(jsonb_agg(jsonb_build_object('name', s.section, 'items', s.n, 'points', s.pts) order by s.first), '[]'::jsonb)
        from (select q.section, count(*)::int as n, sum(q.points)::int as pts, min(q.position) as first from eval_questions q
              where q.pack_id = p.id and q.retired_at is null group by q.section) s)`.as("sections"),
    ]);
}

export type PackRow = Awaited<ReturnType<ReturnType<typeof selectPacks>["executeTakeFirstOrThrow"]>>;

/** Who may see a pack that is not (yet) approved: its publisher and the operator. */
export async function canSeeUnlisted(
  ctx: ServiceContext,
  actor: Actor | null,
  pack: { publisher_user_id: string | null },
): Promise<boolean> {
  if (actor?.kind === "USER" && pack.publisher_user_id === actor.userId) return true;
  return isOperator(ctx, actor);
}

/** A pack named by its id or its slug; null when there is none. */
export async function findPack(ctx: ServiceContext, idOrSlug: string): Promise<PackRow | null> {
  const q = selectPacks(ctx.db);
  const row = isUuid(idOrSlug)
    ? await q.where("p.id", "=", idOrSlug.toLowerCase()).executeTakeFirst()
    : await q.where("p.slug", "=", idOrSlug).executeTakeFirst();
  return row ?? null;
}

export async function getPackOrThrow(ctx: ServiceContext, idOrSlug: string): Promise<PackRow> {
  const row = await findPack(ctx, idOrSlug);
  if (!row) throw fail("NOT_FOUND", "certification pack not found");
  return row;
}

/**
 * POST /v1/jobs: a requiredPackId must name an existing pack (by id, or by slug, which is stored
 * as the pack's id). Unknown: 400, and the job is not created.
 */
export async function resolveRequiredPackId(ctx: ServiceContext, idOrSlug: string): Promise<string> {
  const pack = await findPack(ctx, idOrSlug);
  if (!pack)
    throw fail("PACK_NOT_FOUND", [
      `requiredPackId ${idOrSlug} names no certification pack; GET /v1/evals/packs lists them`,
    ]);
  // A community pack is required only once the operator approved it (an edit sends it back to review).
  if (pack.review_status !== "APPROVED") {
    throw fail(
      "PACK_NOT_APPROVED",
      `requiredPackId ${idOrSlug} names a pack that is ${pack.review_status === "PENDING" ? "waiting for the operator's approval" : "refused"}`,
      { reviewStatus: pack.review_status },
    );
  }
  return pack.id;
}

export function presentPack(row: PackRow): PackDto {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    description: row.description,
    vertical: row.vertical,
    isFree: row.is_free,
    priceUsdc: row.price_usdc === null ? null : normaliseDecimal(row.price_usdc),
    questionCount: row.question_count,
    passScore: row.pass_score,
    certifiedCount: row.certified_count,
    createdAt: row.created_at.toISOString(),
    timeLimitSeconds: row.time_limit_seconds,
    itemsPerAttempt: Math.min(row.items_per_attempt ?? row.question_count, row.question_count),
    poolSize: row.question_count,
    passPercent: row.pass_percent,
    validityDays: row.validity_days,
    sections: row.sections,
    publisherId: row.publisher_user_id,
    reviewStatus: row.review_status,
    reviewReason: row.review_reason,
  };
}

export interface ListPacksQuery {
  /** Only the caller's own packs (any review status). */
  mine?: boolean;
  q?: string;
  isFree?: boolean;
  vertical?: string;
  limit?: number;
  cursor?: string;
}

/** GET /v1/evals/packs: oldest first, keyset on (created_at, id). */
export async function listPacks(ctx: ServiceContext, actor: Actor | null, query: ListPacksQuery) {
  const limit = query.limit ?? 20;
  const after = decodeCursor(query.cursor);
  let q = selectPacks(ctx.db);
  if (query.mine) {
    if (actor?.kind !== "USER") throw fail("FORBIDDEN", "mine=true lists the packs a signed-in person published");
    q = q.where("p.publisher_user_id", "=", actor.userId);
  } else {
    // Listed: approved packs only (new and edited community packs wait for the operator).
    q = q.where("p.review_status", "=", "APPROVED");
  }
  if (query.q)
    q = q.where(
      sql<boolean>`(p.title ilike ${"%" + query.q.replace(/[\\%_]/g, "\\$&") + "%"} or p.description ilike ${"%" + query.q.replace(/[\\%_]/g, "\\$&") + "%"})`,
    );
  if (query.isFree !== undefined) q = q.where("p.is_free", "=", query.isFree);
  if (query.vertical !== undefined) q = q.where("p.vertical", "=", query.vertical);
  if (after) q = q.where(keysetAfter(after, "p.created_at", "p.id", "asc"));
  const rows = await q
    .orderBy("p.created_at", "asc")
    .orderBy("p.id", "asc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (row) => ({ k: row.created_at.toISOString(), id: row.id }), "/v1/evals/packs/:id");
  return { items: page.rows.map(presentPack), meta: page.meta };
}

/** Where and how much to pay for one attempt; throws 503 CHAIN_UNAVAILABLE when that cannot be known. */
export async function paymentFor(
  ctx: ServiceContext,
  pack: Pick<PackRow, "id" | "is_free" | "price_usdc">,
): Promise<PaymentDto | null> {
  if (pack.is_free || pack.price_usdc === null) return null;
  const treasury = packTreasury(ctx);
  const chain = ctx.config.chain!;
  const amountUsdc = normaliseDecimal(pack.price_usdc);
  return {
    chainId: chain.chainId,
    tokenSymbol: "USDC",
    tokenAddress: chain.tokenAddress,
    payTo: treasury,
    amountUsdc,
    amountUnits: parseUsdc(amountUsdc).toString(),
    confirmations: chain.confirmations,
    payer:
      "any address you control: after the transfer, sign the payment message with the key of the address that sent it",
    messageTemplate: packPaymentMessage({
      packId: pack.id,
      agentId: "{agentId}",
      txHash: "{txHash}",
      chainId: chain.chainId,
    }),
  };
}

/**
 * GET /v1/evals/packs/:id: the marketplace's own packs show their questions with their choices (the
 * one-request attempt answers them all at once); a community pack shows its sections only (its
 * items are drawn at random per session, seen one at a time). Answers never leave the service.
 * A pack not approved is seen by its publisher and the operator only (404 to anyone else).
 */
export async function getPackDetail(
  ctx: ServiceContext,
  actor: Actor | null,
  idOrSlug: string,
): Promise<z.input<typeof EvalPackDetail>> {
  const pack = await getPackOrThrow(ctx, idOrSlug);
  const reviewer = pack.publisher_user_id !== null && (await canSeeUnlisted(ctx, actor, pack));
  if (pack.review_status !== "APPROVED" && !reviewer) throw fail("NOT_FOUND", "certification pack not found");
  // A community pack's pool is shown to its publisher and the operator (to review it), not to takers.
  const questions =
    pack.publisher_user_id !== null && !reviewer
      ? []
      : await ctx.db
          .selectFrom("eval_questions")
          .select(["id", "position", "prompt", "choices"])
          .where("pack_id", "=", pack.id)
          .where("retired_at", "is", null)
          .orderBy("position")
          .execute();
  let payment: PaymentDto | null = null;
  try {
    payment = await paymentFor(ctx, pack);
  } catch (error) {
    // A read page stays up without the chain; starting a paid attempt then answers 503.
    if (!(error instanceof DomainError && domainStatusOf(error.code) === 503)) throw error;
  }
  return {
    ...presentPack(pack),
    questions: questions.map((q) => ({
      id: q.id,
      position: q.position,
      prompt: q.prompt,
      choices: q.choices.map((c) => ({ id: c.id, text: c.text })),
    })),
    payment,
  };
}
