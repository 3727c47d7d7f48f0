"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { ApiError } from "@/lib/api/errors";
import { requireSessionApi } from "@/lib/session/api";

// Server actions of the certification pack pages. Next refuses them from other origins; the
// credential comes from the sealed session; the service decides who may take and answer what,
// and its refusals are shown as it worded them.

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;

export interface StartAttemptState {
  error?: string[];
  code?: string;
  status?: number;
  /** ATTEMPT_IN_PROGRESS names the open attempt, to continue it instead. */
  existingAttemptId?: string;
  /** Field errors, by field name (agentId, txHash, signature). */
  fields?: Record<string, string[]>;
  values?: { agentId?: string; txHash?: string; signature?: string };
}

/** POST /v1/evals/packs/:id/attempts; on success, on to the attempt's questions. */
export async function startAttemptAction(_state: StartAttemptState, form: FormData): Promise<StartAttemptState> {
  const packId = String(form.get("packId") ?? "");
  const agentId = String(form.get("agentId") ?? "").trim();
  const txHash = String(form.get("txHash") ?? "").trim();
  const signature = String(form.get("signature") ?? "").trim();
  const paid = form.get("paid") === "1";
  const values = { agentId, txHash, signature };
  const { api, session } = await requireSessionApi(`/packs/${encodeURIComponent(packId)}`);

  // An owner names the agent; an agent key always takes the pack for its own agent.
  if (session.kind === "USER" && !agentId) return { fields: { agentId: ["Choose which of your agents takes the pack."] }, values };
  if (paid && !txHash) return { fields: { txHash: ["Paste the hash of the USDC transfer that paid for this attempt."] }, values };
  if (txHash && !TX_HASH.test(txHash)) return { fields: { txHash: ["A transaction hash is 0x followed by 64 hexadecimal digits."] }, values };
  if (paid && !signature) return { fields: { signature: ["Paste the signature of the message below by the address that sent the transfer (or sign it with your browser wallet)."] }, values };
  if (signature && !SIGNATURE.test(signature)) return { fields: { signature: ["A signature is 0x followed by 130 hexadecimal digits."] }, values };

  let attemptId: string;
  try {
    const { data } = await api.startEvalAttempt({
      params: { id: packId },
      body: { ...(session.kind === "USER" ? { agentId } : {}), ...(paid && txHash ? { txHash, signature } : {}) },
    });
    attemptId = data.id;
  } catch (error) {
    if (error instanceof ApiError) {
      const existing = (error.body as { existingAttemptId?: unknown }).existingAttemptId;
      return { error: error.messages, code: error.code, status: error.status, existingAttemptId: typeof existing === "string" ? existing : undefined, values };
    }
    throw error;
  }
  revalidatePath(`/packs/${packId}`);
  redirect(`/packs/attempts/${attemptId}`);
}

export interface SubmitAnswersState {
  error?: string[];
  code?: string;
  status?: number;
  /** Questions left unanswered, by question id. */
  missing?: string[];
  /** The choices made, by question id, so a refused form keeps them. */
  values?: Record<string, string>;
  /** Counts refused submissions: the form remounts with each, so the radios come back as chosen. */
  tries?: number;
}

/**
 * POST /v1/evals/attempts/:id/answers with one choice per question (radio groups named
 * `answer:<questionId>`, the questions listed in `questionId` fields); then the result on the
 * same page.
 */
export async function submitAnswersAction(state: SubmitAnswersState, form: FormData): Promise<SubmitAnswersState> {
  const tries = (state.tries ?? 0) + 1;
  const attemptId = String(form.get("attemptId") ?? "");
  const questionIds = form.getAll("questionId").map(String);
  const values: Record<string, string> = {};
  for (const id of questionIds) {
    const choice = form.get(`answer:${id}`);
    if (typeof choice === "string" && choice) values[id] = choice;
  }
  const { api } = await requireSessionApi(`/packs/attempts/${attemptId}`);
  const missing = questionIds.filter((id) => !values[id]);
  if (questionIds.length === 0 || missing.length > 0) {
    const n = missing.length;
    return {
      error: [n === 1 ? "One question has no answer yet: choose an answer for every question." : `${n} questions have no answer yet: choose an answer for every question.`],
      missing,
      values,
      tries,
    };
  }
  try {
    await api.submitEvalAnswers({ params: { id: attemptId }, body: { answers: questionIds.map((questionId) => ({ questionId, choice: values[questionId] })) } });
  } catch (error) {
    if (error instanceof ApiError) {
      // Already answered (by a parallel submission, or another tab): the result is on the page.
      if (error.code === "ATTEMPT_ALREADY_SUBMITTED") {
        revalidatePath(`/packs/attempts/${attemptId}`);
        redirect(`/packs/attempts/${attemptId}`);
      }
      return { error: error.messages, code: error.code, status: error.status, values, tries };
    }
    throw error;
  }
  revalidatePath(`/packs/attempts/${attemptId}`);
  revalidatePath("/packs");
  redirect(`/packs/attempts/${attemptId}?submitted=1`);
}
