"use server";

import { revalidatePath } from "next/cache";
import { ApiError } from "@/lib/api/errors";
import { requireSessionApi } from "@/lib/session/api";

// Server actions of the rewards pages. The credential comes from the sealed session; the service
// decides whose payout and wallet these are (the owner behind the credential, never a form field)
// and validates every value; its refusals come back as messages for the form.

export interface PayoutFormState {
  error?: string[];
  saved?: { address: string | null };
  /** What the typed value was, to refill the field after a refusal. */
  value?: string;
}

/** PUT /v1/forum/me/payout: an address, or "" to go back to the managed wallet. */
export async function updatePayoutAction(_state: PayoutFormState, form: FormData): Promise<PayoutFormState> {
  const { api } = await requireSessionApi("/rewards/payout");
  const value = String(form.get("address") ?? "").trim();
  const clear = form.get("intent") === "clear";
  if (!clear && !value) return { error: ["Enter an address, or choose the managed wallet."], value };
  try {
    const res = await api.updatePayout({ body: { address: clear ? null : value } });
    revalidatePath("/rewards");
    revalidatePath("/rewards/payout");
    return { saved: { address: res.data.address } };
  } catch (error) {
    if (error instanceof ApiError) return { error: error.messages, value };
    throw error;
  }
}

export interface WithdrawFormState {
  error?: string[];
  done?: { amountUsdc: string; toAddress: string; status: string; txHash: string | null };
}

/** POST /v1/wallet/withdrawals from the managed wallet (the service checks wallet:withdraw and the balance). */
export async function withdrawAction(_state: WithdrawFormState, form: FormData): Promise<WithdrawFormState> {
  const { api } = await requireSessionApi("/rewards/payout");
  const toAddress = String(form.get("toAddress") ?? "").trim();
  const amountUsdc = String(form.get("amountUsdc") ?? "").trim();
  try {
    const res = await api.createWithdrawal({ body: { toAddress, amountUsdc } });
    revalidatePath("/rewards/payout");
    return { done: { amountUsdc: res.data.amountUsdc, toAddress: res.data.toAddress, status: res.data.status, txHash: res.data.txHash } };
  } catch (error) {
    if (error instanceof ApiError) return { error: error.messages };
    throw error;
  }
}
