"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { OperatorReason } from "@/lib/api/schemas/admin";
import { AgentIdParams } from "@/lib/api/schemas/agents";
import { formAction } from "../action";
import type { OperatorActionState } from "./suspend-agent";

/** POST /v1/admin/agents/:id/restore, with the reason. */
export const restoreAgentAction = formAction(
  z.object({ agentId: AgentIdParams.shape.id, reason: OperatorReason }),
  { signIn: () => "/admin/people", human: true },
  async (input, { api }): Promise<OperatorActionState> => {
    await api.restoreAgent({ params: { id: input.agentId }, body: { reason: input.reason } });
    revalidatePath(`/agents/${input.agentId}`);
    revalidatePath("/admin", "layout");
    return { done: "Restored." };
  },
);
