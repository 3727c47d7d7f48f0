import { fail } from "../errors";
import { sql } from "kysely";
import type { z } from "zod";
import { EVAL_PACK_LIMITS, type PublishEvalPackRequest } from "@/lib/api/schemas/evals";
import { normaliseDecimal } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import type { Db } from "../db/connection";
import type { Actor } from "../auth/actor";
import { isUniqueViolation } from "../db/errors";
import { answerSchemaProblems } from "./answer-schema";
import { getPackOrThrow, presentPack, selectPacks } from "./packs";
import type { EvalGrading } from "../db/schema";

type PackInput = z.output<typeof PublishEvalPackRequest>;

function requirePerson(actor: Actor): string {
  if (actor.kind !== "USER")
    throw fail("FORBIDDEN", "packs are published by a signed-in person (a session), not an agent key");
  return actor.userId;
}

/**
 * The rules of a pack beyond its schema: price range, items per kind, points; answer schemas within
 * their bounds and compiled (off the event loop, answer-schema.ts) only when everything else holds.
 */
async function checkPack(input: PackInput): Promise<string[]> {
  const problems: string[] = [];
  if (input.priceUsdc !== null && input.priceUsdc !== undefined) {
    const price = Number(input.priceUsdc);
    if (!(price >= EVAL_PACK_LIMITS.minPriceUsdc && price <= EVAL_PACK_LIMITS.maxPriceUsdc))
      problems.push(
        `priceUsdc must be between ${EVAL_PACK_LIMITS.minPriceUsdc} and ${EVAL_PACK_LIMITS.maxPriceUsdc} USDC (or null for a free pack)`,
      );
    if (!/^\d+(\.\d{1,6})?$/.test(input.priceUsdc)) problems.push("priceUsdc has at most 6 decimals");
  }
  if (input.itemsPerAttempt !== undefined && input.itemsPerAttempt > input.items.length)
    problems.push("itemsPerAttempt must not exceed the number of items");
  input.items.forEach((item, i) => {
    const at = `items.${i}`;
    const has = {
      choices: item.choices !== undefined,
      answer: item.answer !== undefined,
      keywords: item.keywords !== undefined,
      expected: item.expected !== undefined,
      schema: item.answerSchema !== undefined,
    };
    if (item.kind === "MULTIPLE_CHOICE") {
      if (!has.choices || !has.answer)
        problems.push(`${at}: a MULTIPLE_CHOICE item needs choices and answer (the right choice's id)`);
      else {
        const ids = item.choices!.map((c) => c.id);
        if (new Set(ids).size !== ids.length) problems.push(`${at}.choices ids must be distinct`);
        if (!ids.includes(item.answer!)) problems.push(`${at}.answer must be one of the choice ids`);
      }
      if (has.keywords || has.expected || has.schema)
        problems.push(`${at}: keywords, expected and answerSchema are for other kinds`);
    } else if (item.kind === "SHORT_ANSWER") {
      if (!has.keywords) problems.push(`${at}: a SHORT_ANSWER item needs keywords (any one in the answer is right)`);
      if (has.choices || has.answer || has.expected || has.schema)
        problems.push(`${at}: a SHORT_ANSWER item has keywords only`);
    } else {
      if (has.expected === has.schema)
        problems.push(
          `${at}: a STRUCTURED item needs exactly one of expected (deep equality) or answerSchema (JSON Schema)`,
        );
      if (has.choices || has.answer || has.keywords)
        problems.push(`${at}: a STRUCTURED item has expected or answerSchema only`);
    }
  });
  if (problems.length > 0) return problems;
  const schemas = input.items.flatMap((item, i) =>
    item.kind === "STRUCTURED" && item.answerSchema !== undefined
      ? [{ schema: item.answerSchema, path: `items.${i}.answerSchema` }]
      : [],
  );
  return answerSchemaProblems(schemas);
}

function gradingOf(item: PackInput["items"][number]): EvalGrading | null {
  if (item.kind === "SHORT_ANSWER") return { keywords: item.keywords! };
  if (item.kind === "STRUCTURED")
    return item.answerSchema !== undefined ? { schema: item.answerSchema } : { expected: item.expected };
  return null;
}

async function insertItems(trx: Db, packId: string, items: PackInput["items"], idPrefix: string) {
  await trx
    .insertInto("eval_questions")
    .values(
      items.map((item, index) => ({
        pack_id: packId,
        id: `${idPrefix}-${index + 1}`,
        position: index + 1,
        prompt: item.prompt,
        kind: item.kind,
        section: item.section ?? "General",
        points: item.points ?? 1,
        time_limit_seconds: item.timeLimitSeconds ?? null,
        choices: JSON.stringify(item.kind === "MULTIPLE_CHOICE" ? item.choices : []),
        answer: item.kind === "MULTIPLE_CHOICE" ? item.answer! : "",
        grading: item.kind === "MULTIPLE_CHOICE" ? null : JSON.stringify(gradingOf(item)),
      })),
    )
    .execute();
}

function packColumns(input: PackInput) {
  const free = input.priceUsdc === null || input.priceUsdc === undefined;
  return {
    slug: input.slug,
    title: input.title,
    description: input.description,
    vertical: input.vertical ?? null,
    is_free: free,
    price_usdc: free ? null : normaliseDecimal(input.priceUsdc!),
    // pass_score is the legacy "correct answers" mark; community packs pass on pass_percent.
    pass_score: 1,
    pass_percent: input.passPercent,
    time_limit_seconds: input.timeLimitSeconds,
    items_per_attempt: input.itemsPerAttempt ?? null,
    validity_days: input.validityDays ?? 365,
  };
}

/**
 * POST /v1/evals/packs: anyone signed in publishes a pack (5 to 60 items; free, or 2 to 10 USDC paid
 * to the publisher less the fee). It waits for the operator's approval (PENDING) before it is listed,
 * taken or required by a job.
 */
export async function publishPack(ctx: ServiceContext, actor: Actor, input: PackInput) {
  const userId = requirePerson(actor);
  const problems = await checkPack(input);
  if (problems.length) throw fail("VALIDATION_FAILED", problems);
  let packId: string;
  try {
    packId = await ctx.db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto("eval_packs")
        .values({ ...packColumns(input), publisher_user_id: userId, review_status: "PENDING" })
        .returning("id")
        .executeTakeFirstOrThrow();
      await insertItems(trx, row.id, input.items, "v1");
      return row.id;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw fail("PACK_SLUG_TAKEN", `another pack has the slug ${input.slug}`);
    throw error;
  }
  const pack = await selectPacks(ctx.db).where("p.id", "=", packId).executeTakeFirstOrThrow();
  return presentPack(pack);
}

/**
 * PUT /v1/evals/packs/:id: the publisher replaces the pack's content. The old items are retired
 * (attempts already running keep theirs), and the pack goes back to PENDING: an edit is reviewed
 * like a new pack before it is listed or required again.
 */
export async function editPack(ctx: ServiceContext, actor: Actor, idOrSlug: string, input: PackInput) {
  const userId = requirePerson(actor);
  const existing = await getPackOrThrow(ctx, idOrSlug);
  if (existing.publisher_user_id !== userId) {
    if (existing.review_status !== "APPROVED") throw fail("NOT_FOUND", "certification pack not found");
    throw fail("FORBIDDEN", "only the pack's publisher edits it");
  }
  const problems = await checkPack(input);
  if (problems.length) throw fail("VALIDATION_FAILED", problems);
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const locked = await trx
        .selectFrom("eval_packs")
        .select("id")
        .where("id", "=", existing.id)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const now = ctx.now();
      await trx
        .updateTable("eval_packs")
        .set({
          ...packColumns(input),
          review_status: "PENDING",
          review_reason: null,
          reviewed_at: null,
          updated_at: now,
        })
        .where("id", "=", locked.id)
        .execute();
      await trx
        .updateTable("eval_questions")
        .set({ retired_at: now })
        .where("pack_id", "=", locked.id)
        .where("retired_at", "is", null)
        .execute();
      const version = await trx
        .selectFrom("eval_questions")
        .select(sql<number>`count(distinct split_part(id, '-', 1))::int`.as("n"))
        .where("pack_id", "=", locked.id)
        .executeTakeFirstOrThrow();
      await insertItems(trx, locked.id, input.items, `v${version.n + 1}`);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw fail("PACK_SLUG_TAKEN", `another pack has the slug ${input.slug}`);
    throw error;
  }
  const pack = await selectPacks(ctx.db).where("p.id", "=", existing.id).executeTakeFirstOrThrow();
  return presentPack(pack);
}

/**
 * GET /v1/evals/packs/:id/stats: for the publisher (and the operator): attempts, pass rate, and per
 * live item how often it was answered right; an item every answer failed or passed (at least 3
 * answers) is flagged, as likely broken or trivial.
 */
export async function getPackStats(ctx: ServiceContext, actor: Actor, idOrSlug: string, isOperatorCaller: boolean) {
  const pack = await getPackOrThrow(ctx, idOrSlug);
  if (!(actor.kind === "USER" && pack.publisher_user_id === actor.userId) && !isOperatorCaller)
    throw fail("FORBIDDEN", "a pack's statistics are for its publisher");
  const totals = await ctx.db
    .selectFrom("eval_attempts")
    .select([
      sql<number>`count(*)::int`.as("attempts"),
      sql<number>`count(*) filter (where status <> 'IN_PROGRESS')::int`.as("finished"),
      sql<number>`count(*) filter (where status = 'PASSED')::int`.as("passed"),
    ])
    .where("pack_id", "=", pack.id)
    .executeTakeFirstOrThrow();
  const items = await ctx.db
    .selectFrom("eval_questions as q")
    .leftJoin("eval_attempt_items as i", (join) =>
      join.onRef("i.pack_id", "=", "q.pack_id").onRef("i.question_id", "=", "q.id").on("i.answered_at", "is not", null),
    )
    .select([
      "q.id",
      "q.section",
      "q.kind",
      "q.prompt",
      "q.position",
      sql<number>`count(i.attempt_id)::int`.as("answered"),
      sql<number>`count(i.attempt_id) filter (where i.points_awarded > 0)::int`.as("right"),
    ])
    .where("q.pack_id", "=", pack.id)
    .where("q.retired_at", "is", null)
    .groupBy(["q.id", "q.section", "q.kind", "q.prompt", "q.position"])
    .orderBy("q.position")
    .execute();
  return {
    packId: pack.id,
    attempts: totals.attempts,
    finished: totals.finished,
    passed: totals.passed,
    passRate: totals.finished ? totals.passed / totals.finished : null,
    items: items.map((i) => ({
      id: i.id,
      section: i.section,
      kind: i.kind,
      prompt: i.prompt,
      answered: i.answered,
      correctRate: i.answered ? i.right / i.answered : null,
      flag:
        i.answered >= 3 && i.right === 0
          ? ("ALL_FAIL" as const)
          : i.answered >= 3 && i.right === i.answered
            ? ("ALL_PASS" as const)
            : null,
    })),
  };
}
