import { fail } from "../errors";
import type { z } from "zod";
import type { ModerateForumRequest, ModeratedPost } from "@/lib/api/schemas/admin";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import type { Db } from "../db/connection";
import { asOperator } from "../audit/record-operator-action";
import { publishContributionRemoved } from "./contributions";
import { recountThreadReplies } from "./recount-thread";

type Input = z.output<typeof ModerateForumRequest>;
type PostDto = z.infer<typeof ModeratedPost>;

const ACTION_NAME: Record<Input["action"], string> = {
  HIDE: "post.hide",
  RESTORE: "post.restore",
  LOCK: "thread.lock",
  UNLOCK: "thread.unlock",
  PIN: "thread.pin",
  UNPIN: "thread.unpin",
};

/**
 * POST /v1/admin/forum/moderation. Hiding sets status HIDDEN: every forum read, the search, the
 * rewards' review take VISIBLE posts only, so the post is gone from all of them by the rule that
 * already hides deleted posts; a review not yet paid is declined from the `forum.post.removed` event
 * published in the same transaction (a hidden post earns no reward). Open reports of the post are resolved.
 */
export async function moderatePost(ctx: ServiceContext, actor: Actor | null, input: Input): Promise<PostDto> {
  const subjectType = input.kind === "THREAD" ? "forum_thread" : "forum_reply";
  const result = await asOperator(
    ctx,
    actor,
    { action: ACTION_NAME[input.action], subjectType, subjectId: input.id, reason: input.reason },
    async (trx, operator) => {
      const moderated =
        input.kind === "THREAD" ? await moderateThread(ctx, trx, input) : await moderateReply(ctx, trx, input);
      if (input.action === "HIDE")
        await publishContributionRemoved(trx, operator.userId, {
          kind: input.kind,
          id: input.id,
          threadId: moderated.threadId,
          authorPrincipalId: moderated.authorPrincipalId,
        });
      return moderated;
    },
  );
  return result.post;
}

interface Moderated {
  post: PostDto;
  threadId: string;
  authorPrincipalId: string;
}

async function moderateThread(ctx: ServiceContext, trx: Db, input: Input): Promise<Moderated> {
  const thread = await trx
    .selectFrom("forum_threads")
    .selectAll()
    .where("id", "=", input.id)
    .forUpdate()
    .executeTakeFirst();
  if (!thread || thread.status === "DELETED") throw fail("NOT_FOUND", "thread not found");
  const set: Partial<{ status: "VISIBLE" | "HIDDEN"; hidden_reason: string | null; locked: boolean; pinned: boolean }> =
    {};
  switch (input.action) {
    case "HIDE":
      if (thread.status === "HIDDEN") throw fail("INVALID_STATE", "the thread is already hidden");
      Object.assign(set, { status: "HIDDEN", hidden_reason: input.reason });
      break;
    case "RESTORE":
      if (thread.status !== "HIDDEN") throw fail("INVALID_STATE", "the thread is not hidden");
      Object.assign(set, { status: "VISIBLE", hidden_reason: null });
      break;
    case "LOCK":
    case "UNLOCK":
      if (thread.locked === (input.action === "LOCK"))
        throw fail("INVALID_STATE", `the thread is already ${thread.locked ? "locked" : "unlocked"}`);
      set.locked = input.action === "LOCK";
      break;
    case "PIN":
    case "UNPIN":
      if (thread.pinned === (input.action === "PIN"))
        throw fail("INVALID_STATE", `the thread is already ${thread.pinned ? "pinned" : "unpinned"}`);
      set.pinned = input.action === "PIN";
      break;
  }
  const row = await trx
    .updateTable("forum_threads")
    .set(set)
    .where("id", "=", thread.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (input.action === "HIDE") await resolveReports(ctx, trx, "THREAD", thread.id);
  return {
    post: {
      kind: "THREAD",
      id: row.id,
      threadId: row.id,
      threadSlug: row.slug,
      status: row.status,
      hiddenReason: row.hidden_reason,
      locked: row.locked,
      pinned: row.pinned,
    },
    threadId: row.id,
    authorPrincipalId: row.author_principal_id,
  };
}

async function moderateReply(ctx: ServiceContext, trx: Db, input: Input): Promise<Moderated> {
  if (input.action !== "HIDE" && input.action !== "RESTORE")
    throw fail("INVALID_STATE", "only threads are locked or pinned");
  const found = await trx
    .selectFrom("forum_replies")
    .select(["id", "thread_id"])
    .where("id", "=", input.id)
    .executeTakeFirst();
  if (!found) throw fail("NOT_FOUND", "reply not found");
  // Lock order of the forum: the thread, then its reply (as deleting a reply does).
  const thread = await trx
    .selectFrom("forum_threads")
    .select(["id", "slug"])
    .where("id", "=", found.thread_id)
    .forUpdate()
    .executeTakeFirstOrThrow();
  const reply = await trx
    .selectFrom("forum_replies")
    .selectAll()
    .where("id", "=", input.id)
    .forUpdate()
    .executeTakeFirstOrThrow();
  if (reply.status === "DELETED") throw fail("NOT_FOUND", "reply not found");
  if (input.action === "HIDE" && reply.status === "HIDDEN") throw fail("INVALID_STATE", "the reply is already hidden");
  if (input.action === "RESTORE" && reply.status !== "HIDDEN") throw fail("INVALID_STATE", "the reply is not hidden");
  const row = await trx
    .updateTable("forum_replies")
    .set(
      input.action === "HIDE"
        ? { status: "HIDDEN", hidden_reason: input.reason }
        : { status: "VISIBLE", hidden_reason: null },
    )
    .where("id", "=", reply.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  // The thread's counters count visible replies only, as after a deletion; a hidden accepted answer is no longer accepted.
  await recountThreadReplies(trx, thread.id, input.action === "HIDE" ? reply.id : null);
  if (input.action === "HIDE") await resolveReports(ctx, trx, "REPLY", reply.id);
  return {
    post: {
      kind: "REPLY",
      id: row.id,
      threadId: thread.id,
      threadSlug: thread.slug,
      status: row.status,
      hiddenReason: row.hidden_reason,
      locked: null,
      pinned: null,
    },
    threadId: thread.id,
    authorPrincipalId: row.author_principal_id,
  };
}

async function resolveReports(ctx: ServiceContext, trx: Db, kind: "THREAD" | "REPLY", id: string) {
  await trx
    .updateTable("forum_reports")
    .set({ resolved_at: ctx.now(), resolution: "HIDDEN" })
    .where("target_kind", "=", kind)
    .where("target_id", "=", id)
    .where("resolved_at", "is", null)
    .execute();
}
