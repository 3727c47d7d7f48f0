import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import type { AgentRow } from "../db/schema";
import { forbidden } from "../http/errors";

/** True when the caller is the agent itself (its key) or the human who owns it. */
export function actsForAgent(actor: Actor, agent: Pick<AgentRow, "id" | "owner_user_id">): boolean {
  return actor.kind === "AGENT" ? actor.agentId === agent.id : agent.owner_user_id !== null && agent.owner_user_id === actor.userId;
}

/** True when the caller is the job's assigned agent, or the human who owns that agent. */
export async function isAgentOrItsOwner(ctx: ServiceContext, actor: Actor, agentId: string | null): Promise<boolean> {
  if (!agentId) return false;
  if (actor.kind === "AGENT") return actor.agentId === agentId;
  const agent = await ctx.db.selectFrom("agents").select(["id", "owner_user_id"]).where("id", "=", agentId).executeTakeFirst();
  return agent ? actsForAgent(actor, agent) : false;
}

/** The agent named in a request body must be the caller's own (identity comes from the credential). */
export async function ownAgentOrThrow(ctx: ServiceContext, actor: Actor, agentId: string): Promise<AgentRow> {
  const agent = await ctx.db.selectFrom("agents").selectAll().where("id", "=", agentId).executeTakeFirst();
  if (!agent || !actsForAgent(actor, agent)) throw forbidden("agentId must be your own agent");
  return agent;
}

/** Statuses in which a job has an assigned agent whose work is being judged. */
export const ASSIGNED_STATUSES = ["IN_PROGRESS", "REVIEW", "DISPUTED"] as const;
