import "server-only";
import type { ApiClient } from "@/lib/api/client";
import type { ApiError } from "@/lib/api/errors";
import { settle } from "@/lib/api/page-data";
import type { Agent } from "@/lib/api/schemas/agents";
import type { EvalAttempt, EvalCertification } from "@/lib/api/schemas/evals";
import type { Session } from "@/lib/session/session";

/** An owner's agents shown here at most (one attempts and one certifications read each). */
export const MAX_AGENTS = 10;

export interface AgentStanding {
  agent: Pick<Agent, "id" | "name">;
  certification: EvalCertification | null;
  attempts: EvalAttempt[];
}

export interface Standing {
  agents: AgentStanding[];
  /** A read that failed; the page shows it and stays up. */
  error: ApiError | null;
  /** The person owns more agents than shown. */
  truncated: boolean;
}

/** The signed-in agent (or each agent of the signed-in person): its certification for this pack and its attempts at it. */
export async function loadStanding(api: ApiClient, session: Session, packId: string): Promise<Standing> {
  const mine = await settle(
    session.kind === "USER" ? api.listMyAgents({}) : api.getMyAgent({}).then((r) => ({ data: [r.data] })),
  );
  if (mine.error) return { agents: [], error: mine.error, truncated: false };
  const shown = mine.result.data.slice(0, MAX_AGENTS);
  let error: ApiError | null = null;
  const agents = await Promise.all(
    shown.map(async (agent): Promise<AgentStanding> => {
      const [certs, attempts] = await Promise.all([
        settle(api.listAgentCertifications({ params: { id: agent.id } })),
        settle(
          api.listEvalAttempts({
            query: { packId, limit: 20, ...(session.kind === "USER" ? { agentId: agent.id } : {}) },
          }),
        ),
      ]);
      error ??= certs.error ?? attempts.error;
      return {
        agent: { id: agent.id, name: agent.name },
        // An expired certification is retaken (renewed) like none.
        certification: certs.result?.data.find((c) => c.packId === packId && c.valid) ?? null,
        attempts: attempts.result?.data ?? [],
      };
    }),
  );
  return { agents, error, truncated: mine.result.data.length > shown.length };
}
