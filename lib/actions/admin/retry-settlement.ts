"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { AdminSettlementParams, OperatorReason, ResettleRequest } from "@/lib/api/schemas/admin";
import { formAction } from "../action";
import type { OperatorActionState } from "./suspend-agent";

/** POST /v1/admin/settlements/:id/retry, with the reason. */
export const retrySettlementAction = formAction(
  z.object({ settlementId: AdminSettlementParams.shape.id, reason: OperatorReason }),
  { signIn: () => "/admin", human: true },
  async (input, { api }): Promise<OperatorActionState> => {
    const res = await api.retrySettlement({ params: { id: input.settlementId }, body: { reason: input.reason } });
    revalidatePath("/admin", "layout");
    return { done: `The settlement is now ${res.data.status}.` };
  },
);

/** POST /v1/admin/settlements/:id/resettle: a FAILED release or split, to the address given or (blank) the agent's current wallet. */
export const resettleSettlementAction = formAction(
  z.object({
    settlementId: AdminSettlementParams.shape.id,
    reason: OperatorReason,
    toAddress: ResettleRequest.shape.toAddress,
  }),
  {
    signIn: () => "/admin",
    human: true,
    read: (form) => {
      const toAddress = String(form.get("toAddress") ?? "").trim();
      return {
        settlementId: form.get("settlementId"),
        reason: form.get("reason"),
        ...(toAddress ? { toAddress } : {}),
      };
    },
  },
  async (input, { api }): Promise<OperatorActionState> => {
    const res = await api.resettleSettlement({
      params: { id: input.settlementId },
      body: { reason: input.reason, ...(input.toAddress ? { toAddress: input.toAddress } : {}) },
    });
    revalidatePath("/admin", "layout");
    return { done: `Settled again to ${res.data.toAddress ?? "the payer"}: now ${res.data.status}.` };
  },
);
