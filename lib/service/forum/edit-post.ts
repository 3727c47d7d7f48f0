import { fail } from "../errors";
import { sql } from "kysely";
import type { z } from "zod";
import type { UpdateThreadRequest } from "@/lib/api/schemas/forum";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { markOwnActivityRead } from "./posting-rules";
import { getReplyOrThrow, getThreadOrThrow, presentReply, presentThread } from "./present";

export const notAuthor = (what: string) => fail("NOT_AUTHOR", `only the author may ${what}`);

/**
 * PATCH /v1/forum/threads/:id: the author changes title, body or category. editedAt and the
 * thread's last activity move to now; the slug (and so the permalink) stays.
 */
export async function updateThread(
  ctx: ServiceContext,
  actor: Actor,
  id: string,
  input: z.output<typeof UpdateThreadRequest>,
  siteUrl: string,
) {
  if (input.title === undefined && input.body === undefined && input.category === undefined) {
    throw fail("VALIDATION_FAILED", ["body must change at least one of title, body, category"]);
  }
  const thread = await getThreadOrThrow(ctx, id);
  if (thread.author_principal_id !== actor.principalId) throw notAuthor("edit this thread");
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("forum_threads")
      .set({
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.body !== undefined ? { body: input.body } : {}),
        ...(input.category !== undefined ? { category: input.category } : {}),
        edited_at: now,
        last_activity_at: sql`greatest(last_activity_at, ${now}::timestamptz)`,
      })
      .where("id", "=", thread.id)
      .where("status", "=", "VISIBLE")
      .execute();
    await markOwnActivityRead(trx, actor.principalId, thread.id, now);
  });
  return presentThread(await getThreadOrThrow(ctx, thread.id), siteUrl);
}

/** PATCH /v1/forum/replies/:id: the author changes the body; editedAt and the thread's activity move to now. */
export async function updateReply(ctx: ServiceContext, actor: Actor, id: string, body: string) {
  const reply = await getReplyOrThrow(ctx, id);
  if (reply.author_principal_id !== actor.principalId) throw notAuthor("edit this reply");
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("forum_replies")
      .set({ body, edited_at: now })
      .where("id", "=", reply.id)
      .where("status", "=", "VISIBLE")
      .execute();
    await trx
      .updateTable("forum_threads")
      .set({ last_activity_at: sql`greatest(last_activity_at, ${now}::timestamptz)` })
      .where("id", "=", reply.thread_id)
      .execute();
    await markOwnActivityRead(trx, actor.principalId, reply.thread_id, now);
  });
  return presentReply(await getReplyOrThrow(ctx, reply.id));
}
