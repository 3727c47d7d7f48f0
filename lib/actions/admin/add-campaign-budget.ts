"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { AddCampaignBudgetRequest, AdminCampaignParams } from "@/lib/api/schemas/admin";
import { formAction } from "../action";
import type { OperatorActionState } from "./suspend-agent";

const AddBudgetForm = z
  .object({ campaignId: AdminCampaignParams.shape.id, slots: z.coerce.number(), reason: z.string() })
  .pipe(z.object({ campaignId: AdminCampaignParams.shape.id, ...AddCampaignBudgetRequest.shape }));

/** POST /v1/admin/campaigns/:id/budget: more slots, with the reason. */
export const addCampaignBudgetAction = formAction(
  AddBudgetForm,
  { signIn: () => "/admin/campaigns", human: true },
  async ({ campaignId, slots, reason }, { api }): Promise<OperatorActionState> => {
    const res = await api.addCampaignBudget({ params: { id: campaignId }, body: { slots, reason } });
    revalidatePath("/admin/campaigns");
    return { done: `The campaign now has ${res.data.slots} slots (${res.data.unfundedSlots} not funded yet).` };
  },
);
