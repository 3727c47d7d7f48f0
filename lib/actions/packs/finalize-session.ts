"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { formAction, refusalOf, type FormState } from "../action";

/** POST /v1/evals/attempts/:id/finalize; then the report on the attempt's page. */
export const finalizeSessionAction = formAction(
  z.object({ attemptId: z.string().min(1).max(200) }),
  {
    signIn: (v) => `/packs/attempts/${v.attemptId ?? ""}`,
    refused: (error, { attemptId }): FormState => {
      if (error.is("ATTEMPT_FINALIZED")) redirect(`/packs/attempts/${attemptId}`);
      return refusalOf(error);
    },
  },
  async ({ attemptId }, { api }): Promise<FormState> => {
    await api.finalizeEvalAttempt({ params: { id: attemptId } });
    revalidatePath(`/packs/attempts/${attemptId}`);
    revalidatePath("/packs");
    redirect(`/packs/attempts/${attemptId}`);
  },
);
