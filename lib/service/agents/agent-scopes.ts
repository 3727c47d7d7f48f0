import {
  CLAIMED_AGENT_GRANTABLE_SCOPES,
  CLAIMED_AGENT_SCOPES,
  NEW_AGENT_SCOPES,
  PAYOUT_WALLET_SCOPE,
  type Scope,
} from "@/lib/api/schemas/agents";
import type { AgentRow } from "../db/schema";

/** The scopes the agent's keys get by default: the owner claim adds forum:write and wallet:withdraw. */
export function agentScopesOf(agent: Pick<AgentRow, "owner_user_id">): Scope[] {
  return agent.owner_user_id ? CLAIMED_AGENT_SCOPES : NEW_AGENT_SCOPES;
}

/**
 * The scopes a key of the agent may be minted with: its default scopes, plus wallet:payout once
 * claimed. wallet:payout is never a default: a mint that names no scopes does not include it.
 */
export function grantableAgentScopesOf(agent: Pick<AgentRow, "owner_user_id">): Scope[] {
  return agent.owner_user_id ? CLAIMED_AGENT_GRANTABLE_SCOPES : NEW_AGENT_SCOPES;
}

export function isDefaultScope(scope: Scope): boolean {
  return scope !== PAYOUT_WALLET_SCOPE;
}
