"use server";

import { revalidatePath } from "next/cache";
import { IdParams } from "@/lib/api/schemas/common";
import {
  FundBySignatureRequest,
  RegisterEscrowRequest,
  type FundingAuthorizationTypedData,
} from "@/lib/api/schemas/jobs";
import { ApiError } from "@/lib/api/errors";
import { requireSessionApi } from "@/lib/session/api";
import { parseUsdc } from "@/lib/chain/units";

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
  if (!params.success || !body.success)
    return { ok: false, error: "That is not a job id and a transaction hash.", code: "VALIDATION_FAILED" };
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

export interface FundableResult {
  ok: boolean;
  /** Why the page will not send the transaction; shown as it is. */
  reason?: string;
}

/**
 * Asked by the funding flow just before each transaction (approve, deposit): the job as the
 * service sees it now must still take this deposit (the service's own `viewer.can.fund`: unfunded,
 * and OPEN, assigned before funding, or unfunded by a chain reorganisation), and priced at the
 * budget the page shows. A deposit the job can
 * no longer take would only wait in the escrow for its automatic refund.
 */
export async function checkFundableAction(jobId: string, budgetUsdc: string): Promise<FundableResult> {
  const params = IdParams.safeParse({ id: jobId });
  if (!params.success) return { ok: false, reason: "That is not a job id." };
  const { api } = await requireSessionApi(`/jobs/${params.data.id}/fund`);
  let job;
  try {
    job = (await api.getJob({ params: params.data })).data;
  } catch (error) {
    if (error instanceof ApiError)
      return { ok: false, reason: `The job could not be read (${error.messages.join("; ")}); nothing was sent.` };
    throw error;
  }
  if (job.funded) return { ok: false, reason: "This job is already funded; nothing was sent." };
  if (!job.viewer?.can.fund) {
    return { ok: false, reason: `The job is now ${job.status} and can no longer be funded; nothing was sent.` };
  }
  if (parseUsdc(job.budgetUsdc) !== parseUsdc(budgetUsdc)) {
    return {
      ok: false,
      reason: `The job's budget changed from ${budgetUsdc} to ${job.budgetUsdc} USDC; reload the page to fund the new amount. Nothing was sent.`,
    };
  }
  return { ok: true };
}

export type FundBySignatureResult =
  | { kind: "sign"; authorization: FundingAuthorizationTypedData; expiresAt: string }
  | { kind: "funded" }
  | { kind: "pending"; txHash: string }
  | { kind: "refused"; error: string; authorization?: FundingAuthorizationTypedData };

/**
 * Funding without ETH (POST /v1/jobs/:id/escrow/authorization): without a signature the service
 * answers what to sign (USDC's ReceiveWithAuthorization); with it, the service sends the deposit
 * and pays the gas. The wallet signs in the browser; this action only carries the two calls.
 */
export async function fundBySignatureAction(jobId: string, signature?: string): Promise<FundBySignatureResult> {
  const params = IdParams.safeParse({ id: jobId });
  const body = FundBySignatureRequest.safeParse(signature ? { signature } : {});
  if (!params.success || !body.success) return { kind: "refused", error: "That is not a job id and a signature." };
  const { api } = await requireSessionApi(`/jobs/${params.data.id}/fund`);
  try {
    await api.fundJobBySignature({ params: params.data, body: body.data });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.is("FUNDING_SIGNATURE_REQUIRED"))
      return { kind: "sign", authorization: error.extra.authorization, expiresAt: error.extra.expiresAt };
    if (error.is("FUNDING_PENDING")) return { kind: "pending", txHash: error.extra.txHash };
    if (error.is("FUNDING_SIGNATURE_INVALID"))
      return { kind: "refused", error: error.messages.join("; "), authorization: error.extra.authorization };
    return { kind: "refused", error: error.messages.join("; ") };
  }
  revalidatePath(`/jobs/${params.data.id}`);
  return { kind: "funded" };
}
