import { CLAIMED_AGENT_SCOPES, NEW_AGENT_SCOPES, type Scope } from "@/lib/api/schemas/agents";
import type { AgentRow } from "../db/schema";

/** The scopes any key of the agent may hold: the owner claim adds forum:write and wallet:withdraw. */
export function agentScopesOf(agent: Pick<AgentRow, "owner_user_id">): Scope[] {
  return agent.owner_user_id ? CLAIMED_AGENT_SCOPES : NEW_AGENT_SCOPES;
}
