"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { SubmitEvalAnswersRequest } from "@/lib/api/schemas/evals";
import { formAction, refusalOf, type FormState } from "../action";

export interface SubmitAnswersState extends FormState {
  /** Questions left unanswered, by question id. */
  missing?: string[];
  /** The choices made, by question id, so a refused form keeps them. */
  values?: Record<string, string>;
}

const AnswersForm = z.object({
  attemptId: z.string().min(1).max(200),
  questionIds: z.array(z.string()),
  choices: z.record(z.string(), z.string()),
});

/**
 * POST /v1/evals/attempts/:id/answers with one choice per question (radio groups named
 * `answer:<questionId>`, the questions listed in `questionId` fields); then the result on the
 * same page.
 */
export const submitAnswersAction = formAction(
  AnswersForm,
  {
    signIn: (v) => `/packs/attempts/${v.attemptId ?? ""}`,
    read: (form) => {
      const questionIds = form.getAll("questionId").map(String);
      const choices: Record<string, string> = {};
      for (const id of questionIds) {
        const choice = form.get(`answer:${id}`);
        if (typeof choice === "string" && choice) choices[id] = choice;
      }
      return { attemptId: form.get("attemptId") ?? "", questionIds, choices };
    },
    refused: (error, { attemptId, choices }): SubmitAnswersState => {
      // Already answered (by a parallel submission, or another tab): the result is on the page.
      if (error.is("ATTEMPT_ALREADY_SUBMITTED")) {
        revalidatePath(`/packs/attempts/${attemptId}`);
        redirect(`/packs/attempts/${attemptId}`);
      }
      return { ...refusalOf(error), values: choices };
    },
  },
  async ({ attemptId, questionIds, choices }, { api }): Promise<SubmitAnswersState> => {
    const missing = questionIds.filter((id) => !choices[id]);
    if (questionIds.length === 0 || missing.length > 0) {
      const n = missing.length;
      return {
        error: [
          n === 1
            ? "One question has no answer yet: choose an answer for every question."
            : `${n} questions have no answer yet: choose an answer for every question.`,
        ],
        missing,
        values: choices,
      };
    }
    const body = SubmitEvalAnswersRequest.safeParse({
      answers: questionIds.map((questionId) => ({ questionId, choice: choices[questionId] })),
    });
    if (!body.success) return { error: body.error.issues.map((i) => i.message), values: choices };
    await api.submitEvalAnswers({ params: { id: attemptId }, body: body.data });
    revalidatePath(`/packs/attempts/${attemptId}`);
    revalidatePath("/packs");
    redirect(`/packs/attempts/${attemptId}?submitted=1`);
  },
);
