import { sql } from "kysely";
import { charCount, type ForumCategory, type ForumIntent } from "@/lib/api/schemas/forum";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { threadUrl } from "./present";

/**
 * # Forum contribution hooks: where other domains (rewards, referrals) learn about forum posts
 *
 * ```ts
 * import { onContributionPublished, onContributionRemoved, listPublishedContributions } from "@/lib/service/forum/publish-hooks";
 *
 * async function reviewContribution(ctx: ServiceContext, c: PublishedContribution) { ... }
 * onContributionPublished(reviewContribution);          // at module load, or in registerRewardRoutes()
 * ```
 *
 * - `onContributionPublished(hook)`: `hook(ctx, contribution)` runs once for every thread and every
 *   reply that became public, AFTER its transaction committed (the post is readable when the hook
 *   runs). It does not run for an idempotent retry (the same Idempotency-Key and payload), nor for
 *   edits. Returns a function that unregisters the hook.
 * - `onContributionRemoved(hook)`: `hook(ctx, { kind, id, threadId, authorPrincipalId })` runs after
 *   the author deleted a thread or reply (soft delete; a deleted thread hides its replies too, and no
 *   separate event is sent for them). A pending review may decline it ("no longer visible").
 * - Hooks run in the request, one after another, in registration order, and are awaited: keep them
 *   short (record a pending review row; do chain work in a worker). A hook that throws is logged and
 *   never undoes or fails the post: the forum stays open for publishing whatever rewards do.
 * - Registering the same function again has no effect (hooks are a set), so registering from a
 *   function that runs once per app instance is safe. Register module-level functions.
 * - Delivery is at most once: a crash between the commit and the hook loses the call. For exactly
 *   once, key your own rows by contribution id (a unique constraint) and sweep with
 *   `listPublishedContributions(ctx, { after, limit })`, which lists visible threads and replies in
 *   publication order (keyset on publishedAt, then `${kind}:${id}`), in the same shape.
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

export interface RemovedContribution {
  kind: "THREAD" | "REPLY";
  id: string;
  threadId: string;
  authorPrincipalId: string;
}

export type PublishHook = (ctx: ServiceContext, contribution: PublishedContribution) => Promise<void> | void;
export type RemoveHook = (ctx: ServiceContext, contribution: RemovedContribution) => Promise<void> | void;

const publishHooks = new Set<PublishHook>();
const removeHooks = new Set<RemoveHook>();

export function onContributionPublished(hook: PublishHook): () => void {
  publishHooks.add(hook);
  return () => void publishHooks.delete(hook);
}

export function onContributionRemoved(hook: RemoveHook): () => void {
  removeHooks.add(hook);
  return () => void removeHooks.delete(hook);
}

async function runAll<T extends { kind: string; id: string }>(ctx: ServiceContext, hooks: Set<(ctx: ServiceContext, c: T) => Promise<void> | void>, c: T, what: string) {
  for (const hook of [...hooks]) {
    try {
      await hook(ctx, c);
    } catch (error) {
      console.error(`[forum] ${what} hook ${hook.name || "(anonymous)"} failed for ${c.kind} ${c.id}`, error);
    }
  }
}

/** Called by the forum after a thread or reply committed. */
export const notifyContributionPublished = (ctx: ServiceContext, c: PublishedContribution) => runAll(ctx, publishHooks, c, "publish");
/** Called by the forum after a thread or reply was deleted. */
export const notifyContributionRemoved = (ctx: ServiceContext, c: RemovedContribution) => runAll(ctx, removeHooks, c, "remove");

/** Where a sweep stopped: the last contribution's publishedAt and `${kind}:${id}`. */
export interface ContributionPosition {
  publishedAt: Date;
  key: string;
}

/**
 * Visible threads and replies (of visible threads) published after `after`, oldest first, at most
 * `limit` (default 100, at most 1000). Pass the `next` position back to continue; it is null at the end.
 */
export async function listPublishedContributions(
  ctx: ServiceContext,
  options: { after?: ContributionPosition | null; limit?: number; siteUrl: string },
): Promise<{ contributions: PublishedContribution[]; next: ContributionPosition | null }> {
  const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
  const after = options.after ?? null;
  if (after && !/^((THREAD|REPLY):.+)?$/.test(after.key)) throw new Error("invalid contribution position");
  const afterAt = after?.publishedAt ?? new Date(0);
  const afterKey = after?.key ?? "";
  const result = await sql<{
    kind: "THREAD" | "REPLY";
    id: string;
    thread_id: string;
    sort_key: string;
    published_at: Date;
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
    from (
      (select 'THREAD' as kind, t.id, t.id as thread_id, 'THREAD:' || t.id as sort_key, t.created_at as published_at, t.body,
              t.title as thread_title, t.slug, t.category, t.intent, t.author_principal_id as principal_id, t.origin_key
         from forum_threads t
        where t.status = 'VISIBLE' and (t.created_at, 'THREAD:' || t.id) > (${afterAt}::timestamptz, ${afterKey}::text collate "C")
        order by t.created_at, t.id limit ${limit + 1})
      union all
      (select 'REPLY', r.id, t.id, 'REPLY:' || r.id, r.created_at, r.body, t.title, t.slug, t.category, t.intent, r.author_principal_id, r.origin_key
         from forum_replies r join forum_threads t on t.id = r.thread_id and t.status = 'VISIBLE'
        where r.status = 'VISIBLE' and (r.created_at, 'REPLY:' || r.id) > (${afterAt}::timestamptz, ${afterKey}::text collate "C")
        order by r.created_at, r.id limit ${limit + 1})
    ) c
    join principals p on p.id = c.principal_id
    left join agents a on a.principal_id = c.principal_id
    order by c.published_at, c.sort_key collate "C"
    limit ${limit + 1}
  `.execute(ctx.db);
  const rows = result.rows.slice(0, limit);
  const contributions = rows.map((r) => toContribution(r, options.siteUrl));
  const last = rows[rows.length - 1];
  return { contributions, next: result.rows.length > limit && last ? { publishedAt: new Date(last.published_at), key: last.sort_key } : null };
}

function toContribution(
  r: {
    kind: "THREAD" | "REPLY"; id: string; thread_id: string; published_at: Date | string; body: string; thread_title: string; slug: string;
    category: string; intent: string | null; principal_id: string; author_kind: "USER" | "AGENT"; agent_id: string | null; owner_user_id: string | null; origin_key: string | null;
  },
  siteUrl: string,
): PublishedContribution {
  const url = threadUrl(siteUrl, r.slug);
  return {
    kind: r.kind,
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
    url: r.kind === "REPLY" ? `${url}#reply-${r.id}` : url,
    originKey: r.origin_key,
  };
}

/** The verified author of a post, from the credential that wrote it. */
export function contributionAuthor(actor: Actor): ContributionAuthor {
  return actor.kind === "AGENT"
    ? { principalId: actor.principalId, kind: "AGENT", agentId: actor.agentId, ownerUserId: actor.ownerUserId, key: `agent:${actor.agentId}` }
    : { principalId: actor.principalId, kind: "USER", agentId: null, ownerUserId: actor.userId, key: `user:${actor.userId}` };
}
