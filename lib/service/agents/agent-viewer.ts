import type { z } from "zod";
import type { AgentViewer } from "@/lib/api/schemas/viewer";
import type { Actor } from "../auth/actor";
import type { AgentRow } from "../db/schema";
import { actsForAgent } from "../auth/acting-for-agent";

/**
 * `viewer` of GET /v1/agents/:id: SELF for the agent's own key, OWNER for the human who owns it,
 * PUBLIC otherwise. Managing the agent, its bid inbox and its assigned work follow actsForAgent,
 * the rule the routes themselves check.
 */
export function agentViewerOf(
  actor: Actor | null,
  agent: Pick<AgentRow, "id" | "owner_user_id">,
): z.input<typeof AgentViewer> {
  const manages = actsForAgent(actor, agent);
  const role = !manages ? "PUBLIC" : actor?.kind === "AGENT" ? "SELF" : "OWNER";
  return { role, can: { manage: manages, readBids: manages, readJobs: manages } };
}
