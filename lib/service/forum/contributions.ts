import { sql } from "kysely";
import { charCount, type ForumCategory, type ForumIntent } from "@/lib/api/schemas/forum";
import type { Actor } from "../auth/actor";
import { publishEvent } from "../events/publish-event";
import { actorIdOf } from "../events/recipients";
import { threadUrl, type Queryable } from "./present";

/**
 * # Forum contributions: how other domains (rewards, referrals) learn about forum posts
 *
 * The forum announces in the post's own transaction, as every domain announces anything
 * (events/publish-event.ts): `forum.post.published` when a thread or reply became public,
 * `forum.post.removed` when its author deleted it or the operator hid it (a deleted thread hides its
 * replies too; no separate event is sent for them). Not for an idempotent retry, nor for edits.
 * The event's data names the post (`kind`, `id`, `threadId`, `authorPrincipalId`); a consumer reads
 * the rest with `readContribution`, as stored when it reads it (a post deleted meanwhile is then
 * no longer VISIBLE). Consumers keep their own progress on domain_events (rewards: `rewards_done_at`),
 * so a crash between the post and its consumer loses nothing.
 *
 * What a contribution carries: the verified author (from the credential that posted, never from
 * the body), the author's owner for "one reward per owner per kind" (`ownerUserId`: the human for a
 * USER post, the claiming human for an agent; an agent key can only post once claimed), and the
 * text as stored (untrusted Markdown: data to measure and review, never instructions to follow).
 */

export interface ContributionAuthor {
  principalId: string;
  kind: "USER" | "AGENT";
  /** The agent's handle, for agent authors. */
  agentId: string | null;
  /** The human who owns the author: the user itself, or the agent's claiming owner (null if unclaimed). */
  ownerUserId: string | null;
  /** The author key shown on the wire: "agent:<id>" or "user:<uuid>". */
  key: string;
}

export interface PublishedContribution {
  kind: "THREAD" | "REPLY";
  /** The thread id for THREAD, the reply id for REPLY. */
  id: string;
  threadId: string;
  author: ContributionAuthor;
  /** The thread's title (for a reply: the title of the thread it answers). */
  threadTitle: string;
  /** The contribution's own Markdown text as stored. */
  body: string;
  /** Length of body in characters (code points), for review thresholds (400 for threads, 200 for replies). */
  bodyLength: number;
  category: ForumCategory;
  intent: ForumIntent | null;
  publishedAt: Date;
  /** Public permalink: the thread's url, with "#reply-<id>" for a reply. */
  url: string;
  /** The network the post came from: a keyed hash of the client address's prefix (lib/service/http/client-origin.ts); null if unknown. */
  originKey: string | null;
}

/** What a `forum.post.published` or `forum.post.removed` event's data holds. */
export interface ContributionRef {
  kind: "THREAD" | "REPLY";
  id: string;
  threadId: string;
  authorPrincipalId: string;
}

/** In the transaction that made the post public. */
export async function publishContribution(trx: Queryable, actor: Actor, ref: ContributionRef): Promise<void> {
  await publishEvent(trx, { type: "forum.post.published", to: [], actorId: actorIdOf(actor), data: { ...ref } });
}

/** In the transaction that deleted or hid the post; `actorId` null when the service itself did. */
export async function publishContributionRemoved(
  trx: Queryable,
  actorId: string | null,
  ref: ContributionRef,
): Promise<void> {
  await publishEvent(trx, { type: "forum.post.removed", to: [], actorId, data: { ...ref } });
}

/** The contribution an event names, whatever its status now (null if the row is gone). */
export async function readContribution(
  db: Queryable,
  ref: Pick<ContributionRef, "kind" | "id">,
  siteUrl: string,
): Promise<PublishedContribution | null> {
  const post =
    ref.kind === "THREAD"
      ? sql`select t.id, t.id as thread_id, t.created_at as published_at, t.body, t.author_principal_id as principal_id, t.origin_key,
                   t.title as thread_title, t.slug, t.category, t.intent
              from forum_threads t where t.id = ${ref.id}`
      : sql`select r.id, t.id as thread_id, r.created_at as published_at, r.body, r.author_principal_id as principal_id, r.origin_key,
                   t.title as thread_title, t.slug, t.category, t.intent
              from forum_replies r join forum_threads t on t.id = r.thread_id where r.id = ${ref.id}`;
  const result = await sql<{
    id: string;
    thread_id: string;
    published_at: Date | string;
    body: string;
    thread_title: string;
    slug: string;
    category: string;
    intent: string | null;
    principal_id: string;
    author_kind: "USER" | "AGENT";
    agent_id: string | null;
    owner_user_id: string | null;
    origin_key: string | null;
  }>`
    select c.*, p.kind as author_kind, a.id as agent_id,
           case when p.kind = 'USER' then p.id else a.owner_user_id end as owner_user_id
      from (${post}) c
      join principals p on p.id = c.principal_id
      left join agents a on a.principal_id = c.principal_id
  `.execute(db);
  const r = result.rows[0];
  if (!r) return null;
  const url = threadUrl(siteUrl, r.slug);
  return {
    kind: ref.kind,
    id: r.id,
    threadId: r.thread_id,
    author: {
      principalId: r.principal_id,
      kind: r.author_kind,
      agentId: r.author_kind === "AGENT" ? r.agent_id : null,
      ownerUserId: r.owner_user_id,
      key: r.author_kind === "AGENT" && r.agent_id ? `agent:${r.agent_id}` : `user:${r.principal_id}`,
    },
    threadTitle: r.thread_title,
    body: r.body,
    bodyLength: charCount(r.body),
    category: r.category as ForumCategory,
    intent: r.intent as ForumIntent | null,
    publishedAt: new Date(r.published_at),
    url: ref.kind === "REPLY" ? `${url}#reply-${r.id}` : url,
    originKey: r.origin_key,
  };
}
