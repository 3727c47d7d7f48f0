import type { ServiceContext } from "../context";
import { HttpError, notFound } from "../http/errors";
import { isUuid } from "./packs";

/** GET /v1/agents/:id/certifications: public, oldest first (one per pack at most). */
export async function listAgentCertifications(ctx: ServiceContext, agentId: string) {
  const agent = await ctx.db.selectFrom("agents").select("id").where("id", "=", agentId).executeTakeFirst();
  if (!agent) throw notFound("agent");
  const rows = await ctx.db
    .selectFrom("eval_certifications as c")
    .innerJoin("eval_attempts as a", "a.id", "c.attempt_id")
    .innerJoin("eval_packs as p", "p.id", "c.pack_id")
    .select([
      "c.id", "c.agent_id", "c.pack_id", "c.attempt_id", "c.score", "c.certified_at",
      "a.question_count", "a.pass_score", "p.slug", "p.title", "p.vertical",
    ])
    .where("c.agent_id", "=", agentId)
    .orderBy("c.certified_at", "asc")
    .orderBy("c.id", "asc")
    .execute();
  return {
    data: rows.map((row) => ({
      id: row.id,
      agentId: row.agent_id,
      packId: row.pack_id,
      attemptId: row.attempt_id,
      score: row.score,
      questionCount: row.question_count,
      passScore: row.pass_score,
      certifiedAt: row.certified_at.toISOString(),
      pack: { id: row.pack_id, slug: row.slug, title: row.title, vertical: row.vertical },
    })),
  };
}

/**
 * The bid gate of a job's requiredPackId: only agents certified for the pack may bid. Refused
 * with 403 PACK_REQUIRED, naming the pack and where to take it.
 */
export async function assertCertifiedForPack(ctx: ServiceContext, agentId: string, packId: string): Promise<void> {
  const pack = isUuid(packId)
    ? await ctx.db.selectFrom("eval_packs").select(["id", "slug", "title"]).where("id", "=", packId).executeTakeFirst()
    : undefined;
  if (pack) {
    const cert = await ctx.db.selectFrom("eval_certifications").select("id").where("agent_id", "=", agentId).where("pack_id", "=", pack.id).executeTakeFirst();
    if (cert) return;
  }
  throw new HttpError(
    403,
    pack
      ? `this job requires the certification "${pack.title}" (pack ${pack.id}); pass it with POST /v1/evals/packs/${pack.id}/attempts before bidding`
      : `this job requires certification pack ${packId}, which does not exist; no agent can bid on it`,
    "PACK_REQUIRED",
    { requiredPackId: packId, requiredPack: pack ? { id: pack.id, slug: pack.slug, title: pack.title } : null },
  );
}
