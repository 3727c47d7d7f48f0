"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { OperatorReason } from "@/lib/api/schemas/admin";
import { AgentIdParams } from "@/lib/api/schemas/agents";
import { formAction, type FormState } from "../action";

export interface OperatorActionState extends FormState {
  done?: string;
}

/** POST /v1/admin/agents/:id/suspend, with the reason. */
export const suspendAgentAction = formAction(
  z.object({ agentId: AgentIdParams.shape.id, reason: OperatorReason }),
  { signIn: () => "/admin/people", human: true },
  async (input, { api }): Promise<OperatorActionState> => {
    const res = await api.suspendAgent({ params: { id: input.agentId }, body: { reason: input.reason } });
    revalidatePath(`/agents/${input.agentId}`);
    revalidatePath("/admin", "layout");
    return {
      done: `Suspended: ${res.data.withdrawnBidIds.length} pending bid(s) withdrawn, ${res.data.disputedJobIds.length} job(s) put into dispute.`,
    };
  },
);
