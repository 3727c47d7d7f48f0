import { sql } from "kysely";
import type { z } from "zod";
import { packPaymentMessage, type EvalPack, type EvalPackDetail, type EvalPayment } from "@/lib/api/schemas/evals";
import { parseUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import type { Db } from "../db/connection";
import { badRequest, notFound, HttpError } from "../http/errors";
import { decodeCursor, pageOf } from "../http/pagination";
import { normaliseDecimal } from "@/lib/chain/units";
import { packTreasury } from "./treasury";

type PackDto = z.input<typeof EvalPack>;
type PaymentDto = z.input<typeof EvalPayment>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

/** Packs with their question and certification counts. */
function selectPacks(db: Db) {
  return db
    .selectFrom("eval_packs as p")
    .selectAll("p")
    .select([
      sql<number>`(select count(*)::int from eval_questions q where q.pack_id = p.id)`.as("question_count"),
      sql<number>`(select count(*)::int from eval_certifications c where c.pack_id = p.id)`.as("certified_count"),
    ]);
}

type PackRow = Awaited<ReturnType<ReturnType<typeof selectPacks>["executeTakeFirstOrThrow"]>>;

/** A pack named by its id or its slug; null when there is none. */
export async function findPack(ctx: ServiceContext, idOrSlug: string): Promise<PackRow | null> {
  const q = selectPacks(ctx.db);
  const row = isUuid(idOrSlug) ? await q.where("p.id", "=", idOrSlug.toLowerCase()).executeTakeFirst() : await q.where("p.slug", "=", idOrSlug).executeTakeFirst();
  return row ?? null;
}

export async function getPackOrThrow(ctx: ServiceContext, idOrSlug: string): Promise<PackRow> {
  const row = await findPack(ctx, idOrSlug);
  if (!row) throw notFound("certification pack");
  return row;
}

/**
 * POST /v1/jobs: a requiredPackId must name an existing pack (by id, or by slug, which is stored
 * as the pack's id). Unknown: 400, and the job is not created.
 */
export async function resolveRequiredPackId(ctx: ServiceContext, idOrSlug: string): Promise<string> {
  const pack = await findPack(ctx, idOrSlug);
  if (!pack) throw badRequest([`requiredPackId ${idOrSlug} names no certification pack; GET /v1/evals/packs lists them`], "PACK_NOT_FOUND");
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
  };
}

export interface ListPacksQuery {
  isFree?: boolean;
  vertical?: string;
  limit?: number;
  cursor?: string;
}

/** GET /v1/evals/packs: oldest first, keyset on (created_at, id). */
export async function listPacks(ctx: ServiceContext, query: ListPacksQuery) {
  const limit = query.limit ?? 20;
  const after = decodeCursor(query.cursor);
  let q = selectPacks(ctx.db);
  if (query.isFree !== undefined) q = q.where("p.is_free", "=", query.isFree);
  if (query.vertical !== undefined) q = q.where("p.vertical", "=", query.vertical);
  if (after) q = q.where(sql<boolean>`(p.created_at, p.id) > (${new Date(after.k)}::timestamptz, ${after.id}::uuid)`);
  const rows = await q.orderBy("p.created_at", "asc").orderBy("p.id", "asc").limit(limit + 1).execute();
  const page = pageOf(rows, limit, (row) => ({ k: row.created_at.toISOString(), id: row.id }), "/v1/evals/packs/:id");
  return { data: page.rows.map(presentPack), meta: page.meta };
}

/** Where and how much to pay for one attempt; throws 503 CHAIN_UNAVAILABLE when that cannot be known. */
export async function paymentFor(ctx: ServiceContext, pack: Pick<PackRow, "id" | "is_free" | "price_usdc">): Promise<PaymentDto | null> {
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
    payer: "any address you control: after the transfer, sign the payment message with the key of the address that sent it",
    messageTemplate: packPaymentMessage({ packId: pack.id, agentId: "{agentId}", txHash: "{txHash}", chainId: chain.chainId }),
  };
}

/** GET /v1/evals/packs/:id: the questions with their choices; the answers never leave the service. */
export async function getPackDetail(ctx: ServiceContext, idOrSlug: string): Promise<{ data: z.input<typeof EvalPackDetail> }> {
  const pack = await getPackOrThrow(ctx, idOrSlug);
  const questions = await ctx.db
    .selectFrom("eval_questions")
    .select(["id", "position", "prompt", "choices"])
    .where("pack_id", "=", pack.id)
    .orderBy("position")
    .execute();
  let payment: PaymentDto | null = null;
  try {
    payment = await paymentFor(ctx, pack);
  } catch (error) {
    // A read page stays up without the chain; starting a paid attempt then answers 503.
    if (!(error instanceof HttpError && error.status === 503)) throw error;
  }
  return {
    data: {
      ...presentPack(pack),
      questions: questions.map((q) => ({ id: q.id, position: q.position, prompt: q.prompt, choices: q.choices.map((c) => ({ id: c.id, text: c.text })) })),
      payment,
    },
  };
}
