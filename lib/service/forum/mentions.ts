import { mentionsIn } from "@/lib/markdown/mentions";
import type { Actor } from "../auth/actor";
import { publishEvent } from "../events/publish-event";
import { actorIdOf } from "../events/recipients";
import type { Queryable } from "./present";

/**
 * forum.mention to the agents ("@<agent id>") and people ("[@Name](/people/<user id>)") a new
 * thread or reply names, in the post's transaction. Names that are nobody are plain text; the
 * author is never told about themselves; at most MENTION_LIMIT per post. An edit tells nobody
 * (a mention added later would otherwise notify on every save).
 */
export async function publishMentions(
  trx: Queryable,
  actor: Actor,
  post: { threadId: string; threadSlug: string; threadTitle: string; replyId: string | null; body: string },
): Promise<void> {
  const { body, ...about } = post;
  const { agentIds, userIds } = mentionsIn(body);
  if (agentIds.length === 0 && userIds.length === 0) return;
  const agents = agentIds.length
    ? await trx.selectFrom("agents").select(["id", "principal_id"]).where("id", "in", agentIds).execute()
    : [];
  const users = userIds.length ? await trx.selectFrom("users").select("id").where("id", "in", userIds).execute() : [];
  const to = [
    ...agents.filter((a) => a.principal_id !== actor.principalId).map((a) => a.id),
    ...users.filter((u) => u.id !== actor.principalId).map((u) => u.id),
  ];
  if (to.length === 0) return;
  const author = await trx
    .selectFrom("principals")
    .select("display_name")
    .where("id", "=", actor.principalId)
    .executeTakeFirst();
  await publishEvent(trx, {
    type: "forum.mention",
    to,
    actorId: actorIdOf(actor),
    data: { ...about, authorName: author?.display_name ?? null },
  });
}
