"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { CreateWithdrawalRequest } from "@/lib/api/schemas/rewards";
import { formAction, type FormState } from "../action";

export interface WithdrawFormState extends FormState {
  done?: { amountUsdc: string; toAddress: string; status: string; txHash: string | null };
}

const WithdrawForm = z
  .object({ toAddress: z.string().trim(), amountUsdc: z.string().trim() })
  .pipe(CreateWithdrawalRequest.strip());

/** POST /v1/wallet/withdrawals from the managed wallet (the service checks wallet:withdraw and the balance). */
export const withdrawAction = formAction(
  WithdrawForm,
  { signIn: () => "/rewards/payout", keep: ["toAddress", "amountUsdc"] },
  async (body, { api }): Promise<WithdrawFormState> => {
    const res = await api.createWithdrawal({ body });
    revalidatePath("/rewards/payout");
    return {
      done: {
        amountUsdc: res.data.amountUsdc,
        toAddress: res.data.toAddress,
        status: res.data.status,
        txHash: res.data.txHash,
      },
    };
  },
);
