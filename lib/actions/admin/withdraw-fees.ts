"use server";

import { revalidatePath } from "next/cache";
import { OperatorReasonRequest } from "@/lib/api/schemas/admin";
import { formAction } from "../action";
import type { OperatorActionState } from "./suspend-agent";

/** POST /v1/admin/fees/withdraw: every accrued fee to the treasury, with the reason. */
export const withdrawFeesAction = formAction(
  OperatorReasonRequest.strip(),
  { signIn: () => "/admin/fees", human: true },
  async (body, { api }): Promise<OperatorActionState> => {
    const res = await api.withdrawEscrowFees({ body });
    revalidatePath("/admin/fees");
    return { done: `${res.data.amountUsdc} USDC sent to ${res.data.to} (${res.data.txHash}).` };
  },
);
