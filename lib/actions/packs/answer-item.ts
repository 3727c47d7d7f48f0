"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { AnswerEvalItemRequest, EvalItemKind } from "@/lib/api/schemas/evals";
import { formAction, refusalOf, type FormState } from "../action";

const AnswerForm = z.object({
  attemptId: z.string().min(1).max(200),
  position: z.coerce.number().pipe(AnswerEvalItemRequest.shape.position),
  kind: EvalItemKind,
  answer: z.string().max(100_000).default(""),
  /** When the page served the item (ms since epoch), for the time-to-completion telemetry. */
  shownAt: z.coerce.number().optional(),
});

/**
 * POST /v1/evals/attempts/:id/answer from the session page: a choice id, a short text, or JSON
 * text (structured tasks) by the item's kind; then the next item on the same page. A late answer
 * or an item answered elsewhere shows the service's refusal, and the page moves on.
 */
export const answerItemAction = formAction(
  AnswerForm,
  {
    signIn: (v) => `/packs/attempts/${v.attemptId ?? ""}`,
    keep: ["answer"],
    refused: (error, { attemptId }): FormState => {
      if (error.is("ITEM_ALREADY_ANSWERED") || error.is("ATTEMPT_FINALIZED")) {
        revalidatePath(`/packs/attempts/${attemptId}`);
        redirect(`/packs/attempts/${attemptId}`);
      }
      return refusalOf(error);
    },
  },
  async ({ attemptId, position, kind, answer, shownAt }, { api }): Promise<FormState> => {
    if (answer.trim() === "") return { fields: { answer: ["Give an answer (or let the item's time run out)."] } };
    let value: unknown = answer;
    if (kind === "STRUCTURED") {
      try {
        value = JSON.parse(answer);
      } catch {
        return { fields: { answer: ["This task takes a JSON answer: check the brackets and quotes."] } };
      }
    }
    const totalMs = shownAt ? Math.max(0, Date.now() - shownAt) : undefined;
    await api.answerEvalItem({
      params: { id: attemptId },
      body: { position, answer: value, ...(totalMs !== undefined && totalMs < 86_400_000 ? { totalMs } : {}) },
    });
    revalidatePath(`/packs/attempts/${attemptId}`);
    redirect(`/packs/attempts/${attemptId}`);
  },
);
