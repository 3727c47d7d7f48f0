import { fail } from "../errors";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { getAttemptDto } from "./attempts";
import { actsForAgent } from "../auth/acting-for-agent";
import { latestAnswered } from "./cooldown";
import { issueCertification } from "./certifications";

/**
 * POST /v1/evals/attempts/:id/answers: one answer per question of the pack, once. The attempt row
 * is locked, so a second submission (even a parallel one) finds it answered and gets 409. A score
 * of passScore or more certifies the agent for the pack (one certification per agent and pack).
 * The answer tells whether it passed (and a pass's score), never a failure's score nor which
 * answers were right (attempts.ts scoreShown): a failed agent learns the material, not the key. A failure starts a cooldown before the next attempt (cooldown.ts);
 * the result carries retryAt.
 */
export async function submitAnswers(
  ctx: ServiceContext,
  actor: Actor,
  attemptId: string,
  answers: Array<{ questionId: string; choice: string }>,
) {
  await ctx.db.transaction().execute(async (trx) => {
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
    if (!actsForAgent(actor, agent)) throw fail("FORBIDDEN", "only the attempt's agent or its owner may answer it");
    if (attempt.mode !== null)
      throw fail(
        "NOT_A_SESSION",
        "this is a session attempt: take its items with GET /v1/evals/attempts/:id/next and POST .../answer, then finalize",
      );
    if (attempt.status !== "IN_PROGRESS") {
      throw fail(
        "ATTEMPT_ALREADY_SUBMITTED",
        `this attempt was already answered (${attempt.status}); start a new attempt to try again`,
      );
    }

    const questions = await trx
      .selectFrom("eval_questions")
      .select(["id", "choices", "answer"])
      .where("pack_id", "=", attempt.pack_id)
      .where("retired_at", "is", null)
      .orderBy("position")
      .execute();
    const byId = new Map(questions.map((q) => [q.id, q]));
    const problems: string[] = [];
    const seen = new Set<string>();
    answers.forEach((a, index) => {
      const question = byId.get(a.questionId);
      if (!question) problems.push(`answers.${index}.questionId ${a.questionId} is not a question of this pack`);
      else if (seen.has(a.questionId))
        problems.push(`answers.${index}.questionId ${a.questionId} is answered more than once`);
      else if (!question.choices.some((c) => c.id === a.choice)) {
        problems.push(`answers.${index}.choice must be one of ${question.choices.map((c) => c.id).join(", ")}`);
      }
      seen.add(a.questionId);
    });
    for (const q of questions) if (!seen.has(q.id)) problems.push(`answers must answer question ${q.id}`);
    if (problems.length > 0) throw fail("VALIDATION_FAILED", problems);

    const score = answers.filter((a) => byId.get(a.questionId)!.answer === a.choice).length;
    const passed = score >= attempt.pass_score;
    // One open attempt per agent and pack, under this row lock: the previous answered attempt is settled.
    const previous = await latestAnswered(trx, attempt.agent_id, attempt.pack_id);
    const failureStreak = passed ? null : (previous?.status === "FAILED" ? (previous.failure_streak ?? 1) : 0) + 1;
    await trx
      .updateTable("eval_attempts")
      .set({
        status: passed ? "PASSED" : "FAILED",
        failure_streak: failureStreak,
        answers: JSON.stringify(answers.map((a) => ({ questionId: a.questionId, choice: a.choice }))),
        score,
        submitted_at: ctx.now(),
      })
      .where("id", "=", attempt.id)
      .execute();
    if (passed)
      await issueCertification(
        trx,
        ctx.now(),
        { id: attempt.id, agent_id: attempt.agent_id, pack_id: attempt.pack_id, mode: null },
        { score, totalPoints: attempt.question_count },
      );
  });
  return await getAttemptDto(ctx, attemptId);
}
