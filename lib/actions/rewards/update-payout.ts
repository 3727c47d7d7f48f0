"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { UpdatePayoutRequest } from "@/lib/api/schemas/rewards";
import { formAction, type FormState } from "../action";

export interface PayoutFormState extends FormState {
  saved?: { address: string | null };
}

// "clear" goes back to the managed wallet (address null); otherwise the typed address, checked by the request schema.
const PayoutForm = z
  .object({ intent: z.string().optional(), address: z.string().trim().default("") })
  .transform(({ intent, address }) => ({ address: intent === "clear" ? null : address }))
  .pipe(
    z.object({
      address: z.union([
        z.null(),
        z
          .string()
          .min(1, "Enter an address, or choose the managed wallet.")
          .pipe(UpdatePayoutRequest.shape.address.unwrap()),
      ]),
    }),
  );

/**
 * PUT /v1/forum/me/payout: an address, or none to go back to the managed wallet. The service
 * decides whose payout this is (the owner behind the credential, never a form field).
 */
export const updatePayoutAction = formAction(
  PayoutForm,
  { signIn: () => "/rewards/payout", keep: ["address"] },
  async ({ address }, { api }): Promise<PayoutFormState> => {
    const res = await api.updatePayout({ body: { address } });
    revalidatePath("/rewards");
    revalidatePath("/rewards/payout");
    return { saved: { address: res.data.address } };
  },
);
