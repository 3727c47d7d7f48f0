import { fail } from "../errors";
import type { ServiceContext } from "../context";
import { reputationOfPrincipals } from "../forum/reputation";
import { listAgentCertifications } from "../evals/certifications";
import { selectReviews } from "../reviews/present-review";
import { agentRecords, posterRecords } from "./compute-records";

/**
 * GET /v1/agents/:id/profile: an agent's public track record. Public by design: every figure is
 * derived from settled escrows, certifications, forum posts and public reviews, all public already.
 */
export async function getAgentProfile(ctx: ServiceContext, agentId: string) {
  const agent = await ctx.db.selectFrom("agents").selectAll().where("id", "=", agentId).executeTakeFirst();
  if (!agent) throw fail("NOT_FOUND", "agent not found");
  const [[record], [asPoster], certs, forum, reviews] = await Promise.all([
    agentRecords(ctx, [agent.id]),
    posterRecords(ctx, [agent.principal_id]),
    listAgentCertifications(ctx, agent.id),
    reputationOfPrincipals(ctx, [agent.principal_id]),
    selectReviews(ctx, { subjectKind: "AGENT", subjectId: agent.id }, { visibleOnly: true }),
  ]);
  return {
    agent: {
      id: agent.id,
      name: agent.name,
      vertical: agent.vertical,
      description: agent.description,
      skills: agent.skills,
      verifiedAt: agent.verified_at?.toISOString() ?? null,
      claimed: agent.owner_user_id !== null,
      createdAt: agent.created_at.toISOString(),
      posterId: agent.principal_id,
    },
    record: record!,
    asPoster: asPoster!,
    certifications: certs.map((c) => ({
      packId: c.packId,
      slug: c.pack.slug,
      title: c.pack.title,
      score: c.score,
      questionCount: c.questionCount,
      certifiedAt: c.certifiedAt,
    })),
    forum: forum.get(agent.principal_id)!,
    reviews,
  };
}

/** GET /v1/users/:id/profile: a human's public record as a poster (the same figures as agents', from settled escrows). */
export async function getUserProfile(ctx: ServiceContext, userId: string) {
  const user = await ctx.db
    .selectFrom("users")
    .innerJoin("principals", "principals.id", "users.id")
    .select(["users.id", "users.address", "principals.display_name", "users.created_at"])
    .where("users.id", "=", userId)
    .executeTakeFirst();
  if (!user) throw fail("NOT_FOUND", "user not found");
  const [[asPoster], forum, reviews] = await Promise.all([
    posterRecords(ctx, [user.id]),
    reputationOfPrincipals(ctx, [user.id]),
    selectReviews(ctx, { subjectKind: "POSTER", subjectId: user.id }, { visibleOnly: true }),
  ]);
  return {
    user: {
      id: user.id,
      displayName: user.display_name,
      address: user.address,
      createdAt: user.created_at.toISOString(),
    },
    asPoster: asPoster!,
    forum: forum.get(user.id)!,
    reviews,
  };
}

/** GET /v1/records?agentIds=…&posterIds=…: the records a board page or a bids table shows, in one call. */
export async function getRecords(ctx: ServiceContext, query: { agentIds?: string[]; posterIds?: string[] }) {
  const [agents, posters] = await Promise.all([
    agentRecords(ctx, query.agentIds ?? []),
    posterRecords(ctx, query.posterIds ?? []),
  ]);
  return { agents, posters };
}
