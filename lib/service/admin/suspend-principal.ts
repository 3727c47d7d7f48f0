import { fail, DomainError, domainStatusOf } from "../errors";
import type { z } from "zod";
import type { AdminPerson, SuspendResult } from "@/lib/api/schemas/admin";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import type { Db } from "../db/connection";
import { asOperator } from "../audit/record-operator-action";
import { requireOperator } from "../auth/operator";
import { publishEvent } from "../events/publish-event";
import { publishControl } from "../events/stream-hub";
import { openDisputeCase } from "../disputes/open-dispute";
import { presentPerson, selectPeople } from "./list-people";

type Result = z.infer<typeof SuspendResult>;

/**
 * POST /v1/admin/agents/:id/suspend. One transaction with its audit line: the agent's principal is
 * suspended (lib/service/auth/suspension.ts refuses its bids, claims, submissions and posts from
 * then on), its PENDING bids become WITHDRAWN, and every job it holds IN_PROGRESS or REVIEW goes to
 * dispute through the same core as POST /v1/jobs/:id/dispute (a job whose escrow is already being
 * settled cannot be disputed and is left as it is). The principal row is locked first, so a second
 * suspension waits and then finds it suspended (409).
 */
export async function suspendAgent(
  ctx: ServiceContext,
  actor: Actor | null,
  agentId: string,
  reason: string,
): Promise<Result> {
  await requireOperator(ctx, actor);
  const agent = await ctx.db
    .selectFrom("agents")
    .select(["id", "principal_id", "owner_user_id"])
    .where("id", "=", agentId)
    .executeTakeFirst();
  if (!agent) throw fail("NOT_FOUND", "agent not found");
  const outcome = await asOperator(
    ctx,
    actor,
    { action: "agent.suspend", subjectType: "agent", subjectId: agent.id, reason },
    async (trx, operator) => {
      await lockSuspension(ctx, trx, agent.principal_id, reason, "suspend");
      const withdrawn = await trx
        .updateTable("bids")
        .set({ status: "WITHDRAWN", updated_at: ctx.now() })
        .where("agent_id", "=", agent.id)
        .where("status", "=", "PENDING")
        .returning("id")
        .execute();
      const assigned = await trx
        .selectFrom("jobs")
        .select("id")
        .where("agent_id", "=", agent.id)
        .where("status", "in", ["IN_PROGRESS", "REVIEW"])
        .orderBy("created_at")
        .execute();
      const disputed: string[] = [];
      for (const job of assigned) {
        try {
          await openDisputeCase(ctx, trx, job.id, `agent suspended by the operator: ${reason}`, {
            side: null,
            kind: "USER",
            id: operator.userId,
          });
          disputed.push(job.id);
        } catch (error) {
          // Its escrow is being settled already: the money is on its way, nothing to dispute.
          if (!(error instanceof DomainError && domainStatusOf(error.code) === 409)) throw error;
        }
      }
      await publishEvent(trx, {
        type: "agent.suspended",
        to: [agent.id, agent.owner_user_id],
        actorId: operator.userId,
        data: { agentId: agent.id, reason, withdrawnBidIds: withdrawn.map((b) => b.id), disputedJobIds: disputed },
      });
      return { withdrawnBidIds: withdrawn.map((b) => b.id), disputedJobIds: disputed };
    },
  );
  return { person: await personOf(ctx, agent.principal_id), ...outcome };
}

/** POST /v1/admin/agents/:id/restore: the suspension ends; withdrawn bids and opened disputes stay. */
export async function restoreAgent(
  ctx: ServiceContext,
  actor: Actor | null,
  agentId: string,
  reason: string,
): Promise<Result> {
  await requireOperator(ctx, actor);
  const agent = await ctx.db
    .selectFrom("agents")
    .select(["id", "principal_id", "owner_user_id"])
    .where("id", "=", agentId)
    .executeTakeFirst();
  if (!agent) throw fail("NOT_FOUND", "agent not found");
  await asOperator(
    ctx,
    actor,
    { action: "agent.restore", subjectType: "agent", subjectId: agent.id, reason },
    async (trx, operator) => {
      await lockSuspension(ctx, trx, agent.principal_id, reason, "restore");
      await publishEvent(trx, {
        type: "agent.restored",
        to: [agent.id, agent.owner_user_id],
        actorId: operator.userId,
        data: { agentId: agent.id, reason },
      });
    },
  );
  return { person: await personOf(ctx, agent.principal_id), withdrawnBidIds: [], disputedJobIds: [] };
}

/** POST /v1/admin/users/:id/suspend: the person can no longer post jobs or forum posts. */
export async function suspendUser(
  ctx: ServiceContext,
  actor: Actor | null,
  userId: string,
  reason: string,
): Promise<Result> {
  const operator = await requireOperator(ctx, actor);
  const user = await ctx.db.selectFrom("users").select("id").where("id", "=", userId).executeTakeFirst();
  if (!user) throw fail("NOT_FOUND", "user not found");
  if (user.id === operator.userId) throw fail("INVALID_STATE", "an operator cannot suspend their own account");
  await asOperator(ctx, actor, { action: "user.suspend", subjectType: "user", subjectId: user.id, reason }, (trx) =>
    lockSuspension(ctx, trx, user.id, reason, "suspend"),
  );
  return { person: await personOf(ctx, user.id), withdrawnBidIds: [], disputedJobIds: [] };
}

export async function restoreUser(
  ctx: ServiceContext,
  actor: Actor | null,
  userId: string,
  reason: string,
): Promise<Result> {
  await requireOperator(ctx, actor);
  const user = await ctx.db.selectFrom("users").select("id").where("id", "=", userId).executeTakeFirst();
  if (!user) throw fail("NOT_FOUND", "user not found");
  await asOperator(ctx, actor, { action: "user.restore", subjectType: "user", subjectId: user.id, reason }, (trx) =>
    lockSuspension(ctx, trx, user.id, reason, "restore"),
  );
  return { person: await personOf(ctx, user.id), withdrawnBidIds: [], disputedJobIds: [] };
}

async function lockSuspension(
  ctx: ServiceContext,
  trx: Db,
  principalId: string,
  reason: string,
  change: "suspend" | "restore",
): Promise<void> {
  const row = await trx
    .selectFrom("principals")
    .select("suspended_at")
    .where("id", "=", principalId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  if (change === "suspend") {
    if (row.suspended_at) throw fail("INVALID_STATE", "already suspended");
    await trx
      .updateTable("principals")
      .set({ suspended_at: ctx.now(), suspension_reason: reason })
      .where("id", "=", principalId)
      .execute();
    // Its open event streams end on every instance once this commits (and it may open no new one).
    await publishControl(ctx, trx, { kind: "principal.suspended", principalId });
  } else {
    if (!row.suspended_at) throw fail("INVALID_STATE", "not suspended");
    await trx
      .updateTable("principals")
      .set({ suspended_at: null, suspension_reason: null })
      .where("id", "=", principalId)
      .execute();
  }
}

async function personOf(ctx: ServiceContext, principalId: string): Promise<AdminPerson> {
  return presentPerson(await selectPeople(ctx.db).where("p.id", "=", principalId).executeTakeFirstOrThrow());
}
