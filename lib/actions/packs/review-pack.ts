"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { ReviewEvalPackRequest } from "@/lib/api/schemas/evals";
import { formAction, type FormState } from "../action";

export interface ReviewPackState extends FormState {
  /** The decision recorded, to say so in place. */
  done?: "APPROVED" | "REFUSED";
}

/** POST /v1/admin/packs/:id/approve or /refuse from the operator's review page (audited by the service). */
export const reviewPackAction = formAction<
  z.ZodType<{ packId: string; decision: "approve" | "refuse"; reason: string }>,
  ReviewPackState
>(
  z.object({
    packId: z.string().min(1).max(200),
    decision: z.enum(["approve", "refuse"]),
    reason: ReviewEvalPackRequest.shape.reason,
  }),
  { signIn: () => "/admin/packs", human: true, keep: ["reason"] },
  async ({ packId, decision, reason }, { api }): Promise<ReviewPackState> => {
    if (decision === "approve") await api.approveEvalPack({ params: { id: packId }, body: { reason } });
    else await api.refuseEvalPack({ params: { id: packId }, body: { reason } });
    revalidatePath("/admin/packs");
    revalidatePath("/packs");
    return { done: decision === "approve" ? "APPROVED" : "REFUSED" };
  },
);
