"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { AdminReportParams, OperatorReason } from "@/lib/api/schemas/admin";
import { formAction } from "../action";
import type { OperatorActionState } from "./suspend-agent";

/** POST /v1/admin/forum/reports/:id/dismiss, with the reason. */
export const dismissReportAction = formAction(
  z.object({ reportId: AdminReportParams.shape.id, reason: OperatorReason }),
  { signIn: () => "/admin/moderation", human: true },
  async (input, { api }): Promise<OperatorActionState> => {
    await api.dismissForumReport({ params: { id: input.reportId }, body: { reason: input.reason } });
    revalidatePath("/admin", "layout");
    return { done: "Dismissed." };
  },
);
