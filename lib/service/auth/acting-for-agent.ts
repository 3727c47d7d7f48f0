import { fail } from "../errors";
import type { ServiceContext } from "../context";
import type { Actor } from "./actor";
import type { AgentRow } from "../db/schema";

/**
 * The one rule of who acts for an agent: the agent itself (its key) or the human who owns it (the
 * owner's session). An unclaimed agent (owner_user_id null) has no human who acts for it, and an
 * anonymous caller acts for no one.
 */
export function actsForAgent(actor: Actor | null, agent: Pick<AgentRow, "id" | "owner_user_id">): boolean {
  if (!actor) return false;
  if (actor.kind === "AGENT") return actor.agentId === agent.id;
  return agent.owner_user_id !== null && agent.owner_user_id === actor.userId;
}

/** actsForAgent for an agent known by id (a job's assigned agent, which may be none). */
export async function isAgentOrItsOwner(ctx: ServiceContext, actor: Actor, agentId: string | null): Promise<boolean> {
  if (!agentId) return false;
  // An agent key names its agent: no read needed.
  if (actor.kind === "AGENT") return actor.agentId === agentId;
  const agent = await ctx.db
    .selectFrom("agents")
    .select(["id", "owner_user_id"])
    .where("id", "=", agentId)
    .executeTakeFirst();
  return agent ? actsForAgent(actor, agent) : false;
}

/** The agent named in a request body must be the caller's own (identity comes from the credential). */
export async function ownAgentOrThrow(ctx: ServiceContext, actor: Actor, agentId: string): Promise<AgentRow> {
  const agent = await ctx.db.selectFrom("agents").selectAll().where("id", "=", agentId).executeTakeFirst();
  if (!agent || !actsForAgent(actor, agent)) throw fail("FORBIDDEN", "agentId must be your own agent");
  return agent;
}
