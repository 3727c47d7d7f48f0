import { fail } from "../errors";
import { sql } from "kysely";
import type { z } from "zod";
import type { EvalAttempt, EvalAttemptStatus } from "@/lib/api/schemas/evals";
import { formatUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import type { ServiceConfig } from "../config";
import { retryAtOf } from "./cooldown";
import type { Db } from "../db/connection";
import type { AgentRow } from "../db/schema";
import type { Actor } from "../auth/actor";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { actsForAgent } from "../auth/acting-for-agent";

type AttemptDto = z.input<typeof EvalAttempt>;

/** Attempts with their pack's summary and the certification they earned. */
export function selectAttempts(db: Db) {
  return db
    .selectFrom("eval_attempts as a")
    .innerJoin("eval_packs as p", "p.id", "a.pack_id")
    .leftJoin("eval_certifications as c", "c.attempt_id", "a.id")
    .selectAll("a")
    .select(["p.slug as pack_slug", "p.title as pack_title", "p.vertical as pack_vertical", "c.id as certification_id"])
    .select(
      sql<number>`(select count(*)::int from eval_attempt_items i where i.attempt_id = a.id and i.answered_at is not null)`.as(
        "answered_items",
      ),
    );
}

type AttemptRow = Awaited<ReturnType<ReturnType<typeof selectAttempts>["executeTakeFirstOrThrow"]>>;

/**
 * A failed attempt's score is never told, only that it failed: with scores, agents that answer
 * alike but for one item learn from the difference whether that item was right, and enough of them
 * (or enough attempts) read off the whole key. A passed attempt shows its score (it is on the
 * certificate anyway).
 */
export function scoreShown(status: string, score: number | null): number | null {
  return status === "PASSED" ? score : null;
}

export function presentAttempt(row: AttemptRow, config: ServiceConfig): AttemptDto {
  const retryAt = retryAtOf(config, row);
  return {
    id: row.id,
    packId: row.pack_id,
    agentId: row.agent_id,
    status: row.status,
    paid: row.payment_tx_hash !== null,
    paymentTxHash: row.payment_tx_hash,
    amountUsdc: row.payment_units === null ? null : formatUsdc(BigInt(row.payment_units)),
    payerAddress: row.payer_address,
    score: scoreShown(row.status, row.score),
    questionCount: row.question_count,
    passScore: row.pass_score,
    passed: row.status === "IN_PROGRESS" ? null : row.status === "PASSED",
    certificationId: row.certification_id,
    startedAt: row.started_at.toISOString(),
    submittedAt: row.submitted_at ? row.submitted_at.toISOString() : null,
    retryAt: retryAt ? retryAt.toISOString() : null,
    failedAttemptsInARow: row.status === "FAILED" ? (row.failure_streak ?? 1) : 0,
    pack: { id: row.pack_id, slug: row.pack_slug, title: row.pack_title, vertical: row.pack_vertical },
    mode: row.mode,
    deadlineAt: row.deadline_at ? row.deadline_at.toISOString() : null,
    itemCount: row.question_count,
    answeredCount: row.mode === null ? (row.answers?.length ?? 0) : row.answered_items,
  };
}

export async function getAttemptDto(ctx: ServiceContext, attemptId: string): Promise<AttemptDto> {
  const row = await selectAttempts(ctx.db).where("a.id", "=", attemptId).executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "attempt not found");
  return presentAttempt(row, ctx.config);
}

/**
 * The agent a request is about: an agent key means its own agent (a body or query may repeat its
 * id, never name another); an owner session must name one of its agents.
 */
export async function agentForActor(
  ctx: ServiceContext,
  actor: Actor,
  agentId: string | undefined,
  field = "agentId",
): Promise<AgentRow> {
  if (actor.kind === "AGENT") {
    if (agentId !== undefined && agentId !== actor.agentId) throw fail("FORBIDDEN", `${field} must be your own agent`);
    const own = await ctx.db.selectFrom("agents").selectAll().where("id", "=", actor.agentId).executeTakeFirst();
    if (!own) throw fail("NOT_FOUND", "agent not found");
    return own;
  }
  if (agentId === undefined) throw fail("VALIDATION_FAILED", [`${field} should not be empty`]);
  const agent = await ctx.db.selectFrom("agents").selectAll().where("id", "=", agentId).executeTakeFirst();
  if (!agent) throw fail("NOT_FOUND", "agent not found");
  if (!actsForAgent(actor, agent)) throw fail("FORBIDDEN", `${field} must be an agent you own`);
  return agent;
}

/** GET /v1/evals/attempts/:id: for the agent and its owner only. */
export async function getAttempt(ctx: ServiceContext, actor: Actor, attemptId: string) {
  const row = await selectAttempts(ctx.db).where("a.id", "=", attemptId).executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "attempt not found");
  const agent = await ctx.db
    .selectFrom("agents")
    .select(["id", "owner_user_id"])
    .where("id", "=", row.agent_id)
    .executeTakeFirstOrThrow();
  if (!actsForAgent(actor, agent))
    throw fail("FORBIDDEN", "an attempt is readable by its agent's key or its owner's session only");
  return presentAttempt(row, ctx.config);
}

export interface ListAttemptsQuery {
  agentId?: string;
  packId?: string;
  status?: EvalAttemptStatus;
  limit?: number;
  cursor?: string;
}

/** GET /v1/evals/attempts: one agent's attempts, newest first. */
export async function listAttempts(ctx: ServiceContext, actor: Actor, query: ListAttemptsQuery) {
  const agent = await agentForActor(ctx, actor, query.agentId);
  const limit = query.limit ?? 20;
  const after = decodeCursor(query.cursor);
  let q = selectAttempts(ctx.db).where("a.agent_id", "=", agent.id);
  if (query.packId) q = q.where("a.pack_id", "=", query.packId);
  if (query.status) q = q.where("a.status", "=", query.status);
  if (after) q = q.where(keysetAfter(after, "a.created_at", "a.id", "desc"));
  const rows = await q
    .orderBy("a.created_at", "desc")
    .orderBy("a.id", "desc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(
    rows,
    limit,
    (row) => ({ k: row.created_at.toISOString(), id: row.id }),
    "/v1/evals/attempts/:id",
  );
  return { items: page.rows.map((row) => presentAttempt(row, ctx.config)), meta: page.meta };
}
