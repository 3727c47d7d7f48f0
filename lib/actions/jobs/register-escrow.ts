"use server";

import { revalidatePath } from "next/cache";
import { IdParams } from "@/lib/api/schemas/common";
import { RegisterEscrowRequest } from "@/lib/api/schemas/jobs";
import { ApiError } from "@/lib/api/errors";
import { requireSessionApi } from "@/lib/session/api";

export interface RegisterResult {
  ok: boolean;
  error?: string;
  code?: string;
}

/**
 * Hands the deposit's hash to the service, which checks it on chain before the job counts as
 * funded. Called by the wallet's funding flow with values, not a form, so it parses them itself
 * with the same request schemas.
 */
export async function registerEscrowAction(jobId: string, txHash: string): Promise<RegisterResult> {
  const params = IdParams.safeParse({ id: jobId });
  const body = RegisterEscrowRequest.safeParse({ txHash });
  if (!params.success || !body.success) return { ok: false, error: "That is not a job id and a transaction hash.", code: "VALIDATION_FAILED" };
  const { api } = await requireSessionApi(`/jobs/${params.data.id}/fund`);
  try {
    await api.registerEscrow({ params: params.data, body: body.data });
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, error: error.messages.join("; "), code: error.code };
    throw error;
  }
  revalidatePath(`/jobs/${params.data.id}`);
  return { ok: true };
}
