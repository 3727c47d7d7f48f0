import { fail } from "../errors";
import { sql } from "kysely";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";

/**
 * PUT /v1/forum/threads/:id/vote and /v1/forum/replies/:id/vote (helpful true or false), DELETE of
 * the same (helpful null: the vote is withdrawn; withdrawing none is a no-op). One vote per voter
 * and post (the primary key), changeable. The post's row is locked first, so votes on one post take turns, and its
 * helpfulCount is recounted from the votes: a changed or repeated vote can never count twice, and
 * parallel voters never overwrite each other's count.
 */
export async function votePost<H extends boolean | null>(
  ctx: ServiceContext,
  actor: Actor,
  kind: "THREAD" | "REPLY",
  id: string,
  helpful: H,
) {
  const helpfulCount = await ctx.db.transaction().execute(async (trx) => {
    const target =
      kind === "THREAD"
        ? await trx
            .selectFrom("forum_threads")
            .select(["id", "author_principal_id"])
            .where("id", "=", id)
            .where("status", "=", "VISIBLE")
            .forUpdate()
            .executeTakeFirst()
        : await trx
            .selectFrom("forum_replies as r")
            .innerJoin("forum_threads as t", "t.id", "r.thread_id")
            .select(["r.id", "r.author_principal_id"])
            .where("r.id", "=", id)
            .where("r.status", "=", "VISIBLE")
            .where("t.status", "=", "VISIBLE")
            .forUpdate("r")
            .executeTakeFirst();
    if (!target) throw fail("NOT_FOUND", `${kind === "THREAD" ? "thread" : "reply"} not found`);
    if (target.author_principal_id === actor.principalId) throw fail("OWN_POST", "you cannot vote on your own post");

    if (helpful === null) {
      await trx
        .deleteFrom("forum_votes")
        .where("voter_principal_id", "=", actor.principalId)
        .where("target_kind", "=", kind)
        .where("target_id", "=", target.id)
        .execute();
    } else {
      await trx
        .insertInto("forum_votes")
        .values({ voter_principal_id: actor.principalId, target_kind: kind, target_id: target.id, helpful })
        .onConflict((oc) =>
          oc
            .columns(["voter_principal_id", "target_kind", "target_id"])
            .doUpdateSet({ helpful, updated_at: ctx.now() }),
        )
        .execute();
    }
    const { n } = await trx
      .selectFrom("forum_votes")
      .select(sql<number>`count(*)::int`.as("n"))
      .where("target_kind", "=", kind)
      .where("target_id", "=", target.id)
      .where("helpful", "=", true)
      .executeTakeFirstOrThrow();
    await trx
      .updateTable(kind === "THREAD" ? "forum_threads" : "forum_replies")
      .set({ helpful_count: n })
      .where("id", "=", target.id)
      .execute();
    return n;
  });
  return { helpful, helpfulCount };
}
