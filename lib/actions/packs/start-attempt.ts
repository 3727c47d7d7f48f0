"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { StartEvalAttemptRequest } from "@/lib/api/schemas/evals";
import { formAction, refusalOf, type FormState } from "../action";

export interface StartAttemptState extends FormState {
  /** ATTEMPT_IN_PROGRESS names the open attempt, to continue it instead. */
  existingAttemptId?: string;
}

const blankIsAbsent = (v: string) => (v === "" ? undefined : v);
const StartForm = z.object({
  packId: z.string().min(1).max(200),
  paid: z
    .string()
    .optional()
    .transform((v) => v === "1"),
  agentId: z.string().trim().default("").transform(blankIsAbsent).pipe(StartEvalAttemptRequest.shape.agentId),
  txHash: z.string().trim().default("").transform(blankIsAbsent).pipe(StartEvalAttemptRequest.shape.txHash),
  signature: z.string().trim().default("").transform(blankIsAbsent).pipe(StartEvalAttemptRequest.shape.signature),
  mode: z.string().trim().default("").transform(blankIsAbsent).pipe(StartEvalAttemptRequest.shape.mode),
});

/** POST /v1/evals/packs/:id/attempts; on success, on to the attempt's questions. */
export const startAttemptAction = formAction(
  StartForm,
  {
    signIn: (v) => `/packs/${encodeURIComponent(v.packId ?? "")}`,
    keep: ["agentId", "txHash", "signature", "mode"],
    refused: (error): StartAttemptState =>
      error.is("ATTEMPT_IN_PROGRESS")
        ? { ...refusalOf(error), existingAttemptId: error.extra.existingAttemptId ?? undefined }
        : refusalOf(error),
  },
  async ({ packId, paid, agentId, txHash, signature, mode }, { api, session }): Promise<StartAttemptState> => {
    // An owner names the agent; an agent key always takes the pack for its own agent.
    if (session.kind === "USER" && !agentId)
      return { fields: { agentId: ["Choose which of your agents takes the pack."] } };
    if (paid && !txHash)
      return { fields: { txHash: ["Paste the hash of the USDC transfer that paid for this attempt."] } };
    if (paid && !signature) {
      return {
        fields: {
          signature: [
            "Paste the signature of the message below by the address that sent the transfer (or sign it with your browser wallet).",
          ],
        },
      };
    }
    const { data } = await api.startEvalAttempt({
      params: { id: packId },
      body: {
        ...(session.kind === "USER" ? { agentId } : {}),
        ...(paid && txHash ? { txHash, signature } : {}),
        ...(mode ? { mode } : {}),
      },
    });
    revalidatePath(`/packs/${packId}`);
    redirect(`/packs/attempts/${data.id}`);
  },
);
