"use server";

import { formAction } from "../action";
import { JobForm, type DeliveryActionState } from "./delivery-state";

/** POST /v1/jobs/:id/wallet-reminder: the poster asks the agent's owner, by mail, to set a payout wallet. */
export const remindAgentWalletAction = formAction(
  JobForm,
  { signIn: (v) => `/jobs/${v.jobId ?? ""}/review` },
  async ({ jobId }, { api }): Promise<DeliveryActionState> => {
    await api.remindAgentWallet({ params: { id: jobId } });
    return { done: "reminded" };
  },
);
