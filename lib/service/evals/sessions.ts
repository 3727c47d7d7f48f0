import { fail } from "../errors";
import type { z } from "zod";
import type { EvalNextItem, EvalReport } from "@/lib/api/schemas/evals";
import type { ServiceContext } from "../context";
import type { Db } from "../db/connection";
import type { EvalAttemptsTable, EvalMode } from "../db/schema";
import type { Selectable } from "kysely";
import type { Actor } from "../auth/actor";
import { actsForAgent } from "../auth/acting-for-agent";
import { retryAtOf } from "./cooldown";
import { latestAnswered } from "./cooldown";
import { issueCertification } from "./certifications";
import { gradeItem } from "./grade-item";
import { scoreShown } from "./attempts";
import { answerSatisfiesSchema } from "./answer-schema";

// Session attempts (started with a mode): items one at a time (next), each answered once within
// the session's time and the item's own budget, heartbeats, finalize, report. The clock is the
// service's: deadline_at is fixed at the start, an item's budget runs from when next served it.

type AttemptRow = Selectable<EvalAttemptsTable>;

/** Locks the attempt for the change and checks the caller acts for its agent. */
async function lockSession(trx: Db, actor: Actor, attemptId: string): Promise<AttemptRow> {
  const attempt = await trx
    .selectFrom("eval_attempts")
    .selectAll()
    .where("id", "=", attemptId)
    .forUpdate()
    .executeTakeFirst();
  if (!attempt) throw fail("NOT_FOUND", "attempt not found");
  const agent = await trx
    .selectFrom("agents")
    .select(["id", "owner_user_id"])
    .where("id", "=", attempt.agent_id)
    .executeTakeFirstOrThrow();
  if (!actsForAgent(actor, agent)) throw fail("FORBIDDEN", "only the attempt's agent or its owner may take it");
  if (attempt.mode === null)
    throw fail("NOT_A_SESSION", "this is a one-request attempt: answer it with POST /v1/evals/attempts/:id/answers");
  return attempt;
}

function assertOpen(attempt: AttemptRow, now: Date) {
  if (attempt.status !== "IN_PROGRESS")
    throw fail("ATTEMPT_FINALIZED", "the session was finalized; read GET /v1/evals/attempts/:id/report");
  if (attempt.deadline_at && attempt.deadline_at.getTime() <= now.getTime()) {
    throw fail(
      "SESSION_TIME_EXPIRED",
      `the session's time ran out at ${attempt.deadline_at.toISOString()}; finalize it to read the report`,
      { deadlineAt: attempt.deadline_at.toISOString() },
    );
  }
}

function itemsOf(db: Db, attemptId: string) {
  return db
    .selectFrom("eval_attempt_items as i")
    .innerJoin("eval_questions as q", (join) =>
      join.onRef("q.pack_id", "=", "i.pack_id").onRef("q.id", "=", "i.question_id"),
    )
    .select([
      "i.position",
      "i.served_at",
      "i.answered_at",
      "i.points_awarded",
      "i.max_points",
      "q.kind",
      "q.section",
      "q.prompt",
      "q.choices",
      "q.answer",
      "q.grading",
      "q.time_limit_seconds",
    ])
    .where("i.attempt_id", "=", attemptId)
    .orderBy("i.position");
}

const answerByOf = (item: { served_at: Date | null; time_limit_seconds: number | null }) =>
  item.served_at && item.time_limit_seconds !== null
    ? new Date(item.served_at.getTime() + item.time_limit_seconds * 1000)
    : null;

/**
 * GET /v1/evals/attempts/:id/next: the first unanswered item, served (its budget starts) the first
 * time it is asked for; asking again gives the same item. An item whose budget ran out unanswered
 * is closed with no points and the next one is served. item null: nothing left, finalize.
 */
export async function nextItem(
  ctx: ServiceContext,
  actor: Actor,
  attemptId: string,
): Promise<z.input<typeof EvalNextItem>> {
  return ctx.db.transaction().execute(async (trx) => {
    const now = ctx.now();
    const attempt = await lockSession(trx, actor, attemptId);
    assertOpen(attempt, now);
    const items = await itemsOf(trx, attemptId).execute();
    for (const item of items) {
      if (item.answered_at) continue;
      const answerBy = answerByOf(item);
      if (answerBy && answerBy.getTime() <= now.getTime()) {
        await trx
          .updateTable("eval_attempt_items")
          .set({ answered_at: answerBy, points_awarded: 0, answer: null })
          .where("attempt_id", "=", attemptId)
          .where("position", "=", item.position)
          .execute();
        item.answered_at = answerBy;
        continue;
      }
      if (!item.served_at) {
        await trx
          .updateTable("eval_attempt_items")
          .set({ served_at: now })
          .where("attempt_id", "=", attemptId)
          .where("position", "=", item.position)
          .execute();
        item.served_at = now;
      }
      const remaining = items.filter((i) => !i.answered_at).length;
      return {
        item: {
          position: item.position,
          of: items.length,
          kind: item.kind,
          section: item.section,
          points: item.max_points,
          prompt: item.prompt,
          choices: item.kind === "MULTIPLE_CHOICE" ? item.choices.map((c) => ({ id: c.id, text: c.text })) : [],
          servedAt: item.served_at.toISOString(),
          answerBy: answerByOf(item)?.toISOString() ?? null,
          sessionDeadlineAt: attempt.deadline_at?.toISOString() ?? null,
        },
        remaining,
      };
    }
    return { item: null, remaining: 0 };
  });
}

/**
 * POST /v1/evals/attempts/:id/answer: answers the item next served, once, within the session's time
 * and the item's budget (late answers are refused, not graded). Graded at once; the grade is not told.
 */
export async function answerItem(
  ctx: ServiceContext,
  actor: Actor,
  attemptId: string,
  input: { position: number; answer: unknown; ttfbMs?: number; totalMs?: number },
) {
  const schemaVerdict = await schemaVerdictBeforeLocking(ctx, actor, attemptId, input.position, input.answer);
  return ctx.db.transaction().execute(async (trx) => {
    const now = ctx.now();
    const attempt = await lockSession(trx, actor, attemptId);
    assertOpen(attempt, now);
    const items = await itemsOf(trx, attemptId).execute();
    const item = items.find((i) => i.position === input.position);
    if (!item) throw fail("NOT_FOUND", `item ${input.position} of this attempt not found`);
    if (item.answered_at)
      throw fail(
        "ITEM_ALREADY_ANSWERED",
        `item ${input.position} was already answered (or timed out); each item is answered once`,
      );
    if (!item.served_at) {
      const current = items.find((i) => !i.answered_at && i.served_at);
      throw fail(
        "ITEM_NOT_SERVED",
        `item ${input.position} has not been served yet: GET /v1/evals/attempts/${attemptId}/next gives the item to answer`,
        { currentPosition: current?.position ?? null },
      );
    }
    const answerBy = answerByOf(item);
    if (answerBy && answerBy.getTime() <= now.getTime()) {
      throw fail(
        "ITEM_TIME_EXPIRED",
        `item ${input.position}'s time budget ran out at ${answerBy.toISOString()}; it scores nothing`,
        { answerBy: answerBy.toISOString() },
      );
    }
    if (
      item.kind === "MULTIPLE_CHOICE" &&
      (typeof input.answer !== "string" || !item.choices.some((c) => c.id === input.answer))
    ) {
      throw fail("VALIDATION_FAILED", [
        `answer must be one of the choice ids ${item.choices.map((c) => c.id).join(", ")}`,
      ]);
    }
    if (item.kind === "SHORT_ANSWER" && (typeof input.answer !== "string" || input.answer.length > 4000))
      throw fail("VALIDATION_FAILED", ["answer must be a string of at most 4000 characters"]);
    const right = gradeItem(
      { kind: item.kind, answer: item.answer, grading: item.grading },
      input.answer,
      schemaVerdict,
    );
    await trx
      .updateTable("eval_attempt_items")
      .set({
        answered_at: now,
        answer: JSON.stringify(input.answer),
        points_awarded: right ? item.max_points : 0,
        ttfb_ms: input.ttfbMs ?? null,
        total_ms: input.totalMs ?? null,
      })
      .where("attempt_id", "=", attemptId)
      .where("position", "=", input.position)
      .execute();
    return {
      position: input.position,
      answeredAt: now.toISOString(),
      remaining: items.filter((i) => !i.answered_at && i.position !== input.position).length,
    };
  });
}

/**
 * An answer to a schema item is checked in a worker under a time limit (answer-schema.ts), before the
 * transaction: no row lock or connection waits on it. An item's schema never changes (an edit retires
 * items and adds new ones), so the verdict still holds inside the transaction, which checks
 * everything else. Nothing is checked for a stranger's attempt or an item that is not served and
 * open (the transaction refuses those anyway).
 */
async function schemaVerdictBeforeLocking(
  ctx: ServiceContext,
  actor: Actor,
  attemptId: string,
  position: number,
  answer: unknown,
): Promise<boolean | undefined> {
  const agent = await ctx.db
    .selectFrom("eval_attempts as a")
    .innerJoin("agents as g", "g.id", "a.agent_id")
    .select(["g.id", "g.owner_user_id"])
    .where("a.id", "=", attemptId)
    .executeTakeFirst();
  if (!agent || !actsForAgent(actor, agent)) return undefined;
  const item = await itemsOf(ctx.db, attemptId).where("i.position", "=", position).executeTakeFirst();
  if (!item || item.kind !== "STRUCTURED" || !item.grading || !("schema" in item.grading)) return undefined;
  if (!item.served_at || item.answered_at) return undefined;
  return answerSatisfiesSchema(item.grading.schema, answer);
}

/** POST /v1/evals/attempts/:id/heartbeat: the agent is still at it; tells the time left. */
export async function heartbeat(ctx: ServiceContext, actor: Actor, attemptId: string) {
  return ctx.db.transaction().execute(async (trx) => {
    const now = ctx.now();
    const attempt = await lockSession(trx, actor, attemptId);
    assertOpen(attempt, now);
    await trx.updateTable("eval_attempts").set({ last_heartbeat_at: now }).where("id", "=", attemptId).execute();
    const open = await trx
      .selectFrom("eval_attempt_items")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("attempt_id", "=", attemptId)
      .where("answered_at", "is", null)
      .executeTakeFirstOrThrow();
    return {
      attemptId,
      deadlineAt: attempt.deadline_at?.toISOString() ?? null,
      secondsLeft: attempt.deadline_at
        ? Math.max(0, Math.floor((attempt.deadline_at.getTime() - now.getTime()) / 1000))
        : null,
      remaining: Number(open.n),
    };
  });
}

/**
 * POST /v1/evals/attempts/:id/finalize: scores the session (unanswered items earn nothing), allowed
 * at any time, also after the session's time ran out. A pass issues or renews the certification
 * (eval.certified); a failure extends the agent's failure streak (the cooldown). Once.
 */
export async function finalizeSession(ctx: ServiceContext, actor: Actor, attemptId: string) {
  await ctx.db.transaction().execute(async (trx) => {
    const now = ctx.now();
    const attempt = await lockSession(trx, actor, attemptId);
    if (attempt.status !== "IN_PROGRESS")
      throw fail("ATTEMPT_FINALIZED", "the session was already finalized; read GET /v1/evals/attempts/:id/report");
    const items = await itemsOf(trx, attemptId).execute();
    const sections = new Map<string, { section: string; points: number; maxPoints: number }>();
    let score = 0;
    let total = 0;
    for (const item of items) {
      const s = sections.get(item.section) ?? { section: item.section, points: 0, maxPoints: 0 };
      s.points += item.points_awarded ?? 0;
      s.maxPoints += item.max_points;
      sections.set(item.section, s);
      score += item.points_awarded ?? 0;
      total += item.max_points;
    }
    const passed = score >= attempt.pass_score;
    const previous = await latestAnswered(trx, attempt.agent_id, attempt.pack_id);
    const failureStreak = passed ? null : (previous?.status === "FAILED" ? (previous.failure_streak ?? 1) : 0) + 1;
    // The time used: from the start to the last answer (or the deadline, if it ran out first).
    const end = attempt.deadline_at && attempt.deadline_at.getTime() < now.getTime() ? attempt.deadline_at : now;
    await trx
      .updateTable("eval_attempts")
      .set({
        status: passed ? "PASSED" : "FAILED",
        failure_streak: failureStreak,
        score,
        total_points: total,
        submitted_at: end,
        section_scores: JSON.stringify([...sections.values()]),
      })
      .where("id", "=", attemptId)
      .execute();
    if (passed)
      await issueCertification(
        trx,
        now,
        { id: attempt.id, agent_id: attempt.agent_id, pack_id: attempt.pack_id, mode: attempt.mode },
        { score, totalPoints: total },
      );
  });
  return getReport(ctx, actor, attemptId);
}

/**
 * GET /v1/evals/attempts/:id/report: pass mark, time used, mode; a pass's score and section scores
 * (a failure's are withheld). Never which items were right or wrong. For the agent and its owner.
 */
export async function getReport(
  ctx: ServiceContext,
  actor: Actor,
  attemptId: string,
): Promise<z.input<typeof EvalReport>> {
  const row = await ctx.db
    .selectFrom("eval_attempts as a")
    .innerJoin("eval_packs as p", "p.id", "a.pack_id")
    .leftJoin("eval_certifications as c", "c.attempt_id", "a.id")
    .selectAll("a")
    .select(["p.slug", "p.title", "p.vertical", "p.time_limit_seconds", "c.code", "c.expires_at"])
    .where("a.id", "=", attemptId)
    .executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "attempt not found");
  const agent = await ctx.db
    .selectFrom("agents")
    .select(["id", "owner_user_id"])
    .where("id", "=", row.agent_id)
    .executeTakeFirstOrThrow();
  if (!actsForAgent(actor, agent))
    throw fail("FORBIDDEN", "a report is readable by its agent's key or its owner's session only");
  const retryAt = retryAtOf(ctx.config, row);
  let sections = row.section_scores ?? [];
  if (row.mode === null && row.status !== "IN_PROGRESS")
    sections = [{ section: "General", points: row.score ?? 0, maxPoints: row.question_count }];
  // A failure tells neither its score nor its section points (scoreShown): both would let results
  // that differ by one answer reveal whether that answer was right.
  if (row.status !== "PASSED") sections = [];
  return {
    attemptId: row.id,
    packId: row.pack_id,
    agentId: row.agent_id,
    status: row.status,
    mode: (row.mode as EvalMode | null) ?? null,
    score: scoreShown(row.status, row.score),
    totalPoints: row.total_points ?? row.question_count,
    passScore: row.pass_score,
    passed: row.status === "IN_PROGRESS" ? null : row.status === "PASSED",
    sections,
    timeUsedSeconds: row.submitted_at
      ? Math.max(0, Math.round((row.submitted_at.getTime() - row.started_at.getTime()) / 1000))
      : null,
    timeLimitSeconds: row.mode === null ? null : row.time_limit_seconds,
    certification: row.code && row.expires_at ? { code: row.code, expiresAt: row.expires_at.toISOString() } : null,
    retryAt: retryAt ? retryAt.toISOString() : null,
    pack: { id: row.pack_id, slug: row.slug, title: row.title, vertical: row.vertical },
  };
}
