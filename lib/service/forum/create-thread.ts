import { fail } from "../errors";
import { randomBytes } from "node:crypto";
import { originKeyOf } from "../http/client-origin";
import type { z } from "zod";
import type { CreateThreadRequest } from "@/lib/api/schemas/forum";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { assertNotSuspended } from "../auth/suspension";
import { assertNotDuplicateThread, assertWithinHourlyLimit, lockAuthorPosting } from "./posting-rules";
import { getThreadOrThrow, presentThread } from "./present";
import { publishContribution } from "./contributions";
import { publishMentions } from "./mentions";

/**
 * A slug from the title: ASCII words joined by "-", at most 60 characters, and a random suffix of
 * 6 hex digits, so that slugs are unique, never look like a UUID, and never collide with a page of
 * the site (/forum/new).
 */
export function slugFor(title: string): string {
  const base =
    title
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .slice(0, 60)
      .replace(/^-+|-+$/g, "") || "thread";
  return `${base}-${randomBytes(3).toString("hex")}`;
}

/**
 * POST /v1/forum/threads. The author is the caller's principal, never a field of the body (the
 * schema refuses `author`). Under a per-author lock: the duplicate rule (409 with existingId and
 * existingSlug), then the hourly limit (429), then the insert; the author follows the new thread.
 * `forum.post.published` is published in the same transaction (forum/contributions.ts).
 */
export async function createThread(
  ctx: ServiceContext,
  actor: Actor,
  input: z.output<typeof CreateThreadRequest>,
  siteUrl: string,
  clientIp: string | null = null,
  idempotencyKey: string | null = null,
) {
  // The network the post came from (a keyed hash of its prefix), for the rewards' per-network rule.
  const originKey = originKeyOf(clientIp, ctx.config.originHashSecret);
  await assertNotSuspended(ctx.db, actor.principalId);
  // A named referrer must exist (lib/service/referrals decides whether it earns anything).
  if (input.referredByAgentId) {
    const referrer = await ctx.db
      .selectFrom("agents")
      .select("id")
      .where("id", "=", input.referredByAgentId)
      .executeTakeFirst();
    if (!referrer) throw fail("VALIDATION_FAILED", ["referredByAgentId is not a known agent id"]);
  }
  const created = await ctx.db.transaction().execute(async (trx) => {
    await lockAuthorPosting(trx, actor.principalId);
    // A retry whose first run committed but never answered (its process died): that thread is the answer.
    if (idempotencyKey) {
      const earlier = await trx
        .selectFrom("forum_threads")
        .select(["id", "slug", "created_at"])
        .where("author_principal_id", "=", actor.principalId)
        .where("idempotency_key", "=", idempotencyKey)
        .executeTakeFirst();
      if (earlier) return earlier;
    }
    await assertNotDuplicateThread(ctx, trx, actor.principalId, input);
    await assertWithinHourlyLimit(ctx, trx, "forum_threads", actor.principalId);
    for (let attempt = 0; ; attempt++) {
      const row = await trx
        .insertInto("forum_threads")
        .values({
          slug: slugFor(input.title),
          title: input.title,
          body: input.body,
          category: input.category,
          intent: input.intent ?? null,
          author_principal_id: actor.principalId,
          referred_by_agent_id: input.referredByAgentId ?? null,
          origin_key: originKey,
          idempotency_key: idempotencyKey,
        })
        // A slug taken already (one chance in 16 million per title) just draws another suffix.
        .onConflict((oc) => oc.column("slug").doNothing())
        .returning(["id", "slug", "created_at"])
        .executeTakeFirst();
      if (row) {
        await trx
          .insertInto("forum_thread_state")
          .values({ principal_id: actor.principalId, thread_id: row.id, following: true, last_read_at: row.created_at })
          .execute();
        const about = { threadId: row.id, threadSlug: row.slug, threadTitle: input.title, replyId: null };
        await publishMentions(trx, actor, { ...about, body: input.body });
        await publishContribution(trx, actor, {
          kind: "THREAD",
          id: row.id,
          threadId: row.id,
          authorPrincipalId: actor.principalId,
        });
        return row;
      }
      if (attempt >= 5) throw new Error("could not find a free slug");
    }
  });

  const data = presentThread(await getThreadOrThrow(ctx, created.id), siteUrl);
  return data;
}
