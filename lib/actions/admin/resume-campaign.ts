"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { AdminCampaignParams, OperatorReason } from "@/lib/api/schemas/admin";
import { formAction } from "../action";
import type { OperatorActionState } from "./suspend-agent";

/** POST /v1/admin/campaigns/:id/resume, with the reason. */
export const resumeCampaignAction = formAction(
  z.object({ campaignId: AdminCampaignParams.shape.id, reason: OperatorReason }),
  { signIn: () => "/admin/campaigns", human: true },
  async ({ campaignId, reason }, { api }): Promise<OperatorActionState> => {
    await api.resumeCampaign({ params: { id: campaignId }, body: { reason } });
    revalidatePath("/admin/campaigns");
    return { done: "Resumed." };
  },
);
