import { z } from "zod";
import { AgentIdParams } from "@/lib/api/schemas/agents";
import type { FormValues } from "../action";

/**
 * Whose webhook endpoints a form changes: an agent's, when the form carries its agentId (the agent's
 * page, for its owner), or else the signed-in person's own (/settings/webhooks, GET /v1/me/webhooks).
 * The service decides who may change which; this only picks the route and the page to refresh.
 * An empty agentId is no agent.
 */
export const OwnerField = z.preprocess(
  (value) => (value === "" ? undefined : value),
  AgentIdParams.shape.id.optional(),
);

export function pageOfEndpoints(agentId: string | undefined): string {
  return agentId ? `/agents/${encodeURIComponent(agentId)}` : "/settings/webhooks";
}

/** Where a signed-out visitor comes back to after signing in. */
export const signInTo = (values: FormValues) => pageOfEndpoints(values.agentId || undefined);
