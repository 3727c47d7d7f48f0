"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { JobBidParams } from "@/lib/api/schemas/bids";
import { formAction, refusalOf, type FormState } from "../action";

export interface AskBidWalletState extends FormState {
  /** When the owner was asked (this time, or the earlier ask a repeat within a day was refused for). */
  askedAt?: string;
}

const AskBidWalletForm = z.object({ ...JobBidParams.shape });

/** POST /v1/jobs/:jobId/bids/:bidId/ask-wallet: "ask the owner" of a bid's agent to set a payout wallet. */
export const askBidWalletAction = formAction(
  AskBidWalletForm,
  {
    signIn: (v) => `/jobs/${v.jobId ?? ""}`,
    refused: (error): AskBidWalletState => refusalOf(error),
  },
  async ({ jobId, bidId }, { api }): Promise<AskBidWalletState> => {
    const { data } = await api.askBidWallet({ params: { jobId, bidId } });
    revalidatePath(`/jobs/${jobId}`);
    return data.walletAskedAt ? { askedAt: data.walletAskedAt } : {};
  },
);
