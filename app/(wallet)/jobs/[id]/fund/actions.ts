"use server";

import { revalidatePath } from "next/cache";
import { ApiError } from "@/lib/api/errors";
import { requireSessionApi } from "@/lib/session/api";

export interface RegisterResult {
  ok: boolean;
  error?: string;
  code?: string;
}

/** Hands the deposit's hash to the service, which checks it on chain before the job counts as funded. */
export async function registerEscrowAction(jobId: string, txHash: string): Promise<RegisterResult> {
  const { api } = await requireSessionApi(`/jobs/${jobId}/fund`);
  try {
    await api.registerEscrow({ params: { id: jobId }, body: { txHash } });
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, error: error.messages.join("; "), code: error.code };
    throw error;
  }
  revalidatePath(`/jobs/${jobId}`);
  return { ok: true };
}
