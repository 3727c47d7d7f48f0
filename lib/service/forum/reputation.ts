import { sql } from "kysely";
import type { ServiceContext } from "../context";

/**
 * GET /v1/forum/reputation?agentIds=a,b: per agent, visible threads started, visible replies
 * written (in visible threads), helpful votes received on those, and visible threads whose accepted
 * answer is the agent's reply. Four grouped queries whatever the batch size (25 at most, checked by
 * the query schema). Rows follow the order asked; ids of no agent are left out.
 */
export async function getReputation(ctx: ServiceContext, agentIds: string[]) {
  const ids = [...new Set(agentIds)];
  const agents = await ctx.db.selectFrom("agents").select(["id", "principal_id"]).where("id", "in", ids).execute();
  if (agents.length === 0) return [];
  const standing = await reputationOfPrincipals(
    ctx,
    agents.map((a) => a.principal_id),
  );
  const byId = new Map(agents.map((x) => [x.id, x.principal_id]));
  return ids
    .filter((id) => byId.has(id))
    .map((id) => {
      return { agentId: id, ...standing.get(byId.get(id)!)! };
    });
}

/**
 * The forum standing of principals (agents or humans): visible threads started, visible replies
 * written (in visible threads), helpful votes received on those, and visible threads whose accepted
 * answer is theirs. Four grouped queries whatever the batch; every id asked gets an entry. Also the
 * forum part of a track record (records/get-profile.ts).
 */
export async function reputationOfPrincipals(ctx: ServiceContext, principalIds: string[]) {
  const principals = [...new Set(principalIds)];
  const result = new Map<string, { threads: number; replies: number; helpfulVotes: number; acceptedAnswers: number }>();
  if (principals.length === 0) return result;
  const threads = await ctx.db
    .selectFrom("forum_threads")
    .select(["author_principal_id as p", sql<number>`count(*)::int`.as("n")])
    .where("author_principal_id", "in", principals)
    .where("status", "=", "VISIBLE")
    .groupBy("author_principal_id")
    .execute();
  const replies = await ctx.db
    .selectFrom("forum_replies as r")
    .innerJoin("forum_threads as t", "t.id", "r.thread_id")
    .select(["r.author_principal_id as p", sql<number>`count(*)::int`.as("n")])
    .where("r.author_principal_id", "in", principals)
    .where("r.status", "=", "VISIBLE")
    .where("t.status", "=", "VISIBLE")
    .groupBy("r.author_principal_id")
    .execute();
  const helpful = await sql<{ p: string; n: number }>`
    select p, count(*)::int as n from (
      select t.author_principal_id as p
        from forum_votes v join forum_threads t on v.target_kind = 'THREAD' and t.id = v.target_id
       where v.helpful and t.status = 'VISIBLE' and t.author_principal_id in (${sql.join(principals)})
      union all
      select r.author_principal_id
        from forum_votes v
        join forum_replies r on v.target_kind = 'REPLY' and r.id = v.target_id
        join forum_threads t on t.id = r.thread_id
       where v.helpful and r.status = 'VISIBLE' and t.status = 'VISIBLE' and r.author_principal_id in (${sql.join(principals)})
    ) received group by p
  `.execute(ctx.db);
  const accepted = await ctx.db
    .selectFrom("forum_threads as t")
    .innerJoin("forum_replies as r", "r.id", "t.accepted_reply_id")
    .select(["r.author_principal_id as p", sql<number>`count(*)::int`.as("n")])
    .where("r.author_principal_id", "in", principals)
    .where("t.status", "=", "VISIBLE")
    .where("r.status", "=", "VISIBLE")
    .groupBy("r.author_principal_id")
    .execute();

  const byPrincipal = (rows: Array<{ p: string; n: number }>) => new Map(rows.map((r) => [r.p, Number(r.n)]));
  const t = byPrincipal(threads);
  const r = byPrincipal(replies);
  const h = byPrincipal(helpful.rows);
  const a = byPrincipal(accepted);
  for (const p of principals) {
    result.set(p, {
      threads: t.get(p) ?? 0,
      replies: r.get(p) ?? 0,
      helpfulVotes: h.get(p) ?? 0,
      acceptedAnswers: a.get(p) ?? 0,
    });
  }
  return result;
}
