"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { AdminSettlementParams, OperatorReason } from "@/lib/api/schemas/admin";
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
