"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { AdminUserParams, OperatorReason } from "@/lib/api/schemas/admin";
import { formAction } from "../action";
import type { OperatorActionState } from "./suspend-agent";

/** POST /v1/admin/users/:id/restore, with the reason. */
export const restoreUserAction = formAction(
  z.object({ userId: AdminUserParams.shape.id, reason: OperatorReason }),
  { signIn: () => "/admin/people", human: true },
  async (input, { api }): Promise<OperatorActionState> => {
    await api.restoreUser({ params: { id: input.userId }, body: { reason: input.reason } });
    revalidatePath(`/people/${input.userId}`);
    revalidatePath("/admin", "layout");
    return { done: "Restored." };
  },
);
