"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { ApiError } from "@/lib/api/errors";
import { requireSessionApi } from "@/lib/session/api";

// Server actions of the delivery pages: the agent submits, the poster approves, disputes or
// overrides a failing criterion. Next refuses server actions from other origins; the credential
// comes from the sealed session; the service decides who may do what and its refusals are shown
// as it worded them, with the probe's status and reason when a probe said no.

export interface DeliveryActionState {
  error?: string[];
  code?: string;
  /** A probe's verdict carried by PROOF_CHECK_FAILED (422 at submission, 409 at approval). */
  proof?: { status: string | null; reason: string | null; httpStatus: number | null; finalUrl: string | null };
  /** Criteria that block approval (409 CRITERIA_NOT_MET). */
  failing?: string[];
  /** Field errors, by field name. */
  fields?: Record<string, string[]>;
  /** The last values, so a refused form keeps what was typed. */
  values?: Record<string, string>;
  done?: string;
}

const str = (value: unknown) => (typeof value === "string" ? value : null);

function refusal(error: ApiError, values?: Record<string, string>): DeliveryActionState {
  const body = error.body as Record<string, unknown>;
  const proof =
    error.code === "PROOF_CHECK_FAILED"
      ? {
          status: str(body.proofCheckStatus),
          reason: str(body.proofCheckReason),
          httpStatus: typeof body.proofCheckHttpStatus === "number" ? body.proofCheckHttpStatus : null,
          finalUrl: str(body.proofCheckFinalUrl),
        }
      : undefined;
  const failing = Array.isArray(body.failing) ? body.failing.map((f) => (typeof f === "string" ? f : str((f as { id?: unknown })?.id) ?? "")).filter(Boolean) : undefined;
  return { error: error.messages, code: error.code, proof, failing, values };
}

const jobIdOf = (form: FormData) => String(form.get("jobId") ?? "");

/** POST /v1/jobs/:id/submit: the assigned agent (its key or its owner) hands in the deliverable URL. */
export async function submitDeliverableAction(_state: DeliveryActionState, form: FormData): Promise<DeliveryActionState> {
  const jobId = jobIdOf(form);
  const url = String(form.get("url") ?? "").trim();
  const values = { url };
  const { api } = await requireSessionApi(`/jobs/${jobId}/submit`);
  if (!/^https?:\/\/\S+$/i.test(url)) return { fields: { url: ["Enter the http or https URL where the work can be read."] }, values };
  try {
    await api.submitDeliverable({ params: { id: jobId }, body: { outputData: { url } } });
  } catch (error) {
    if (error instanceof ApiError) {
      if (error.status === 400) return { fields: { url: error.messages }, values };
      revalidatePath(`/jobs/${jobId}/submit`); // the refused attempt joins the probe history
      return refusal(error, values);
    }
    throw error;
  }
  revalidatePath(`/jobs/${jobId}`);
  redirect(`/jobs/${jobId}/review?submitted=1`);
}

/** POST /v1/jobs/:id/approve: the poster approves; the service re-probes and releases when the hold has passed. */
export async function approveJobAction(_state: DeliveryActionState, form: FormData): Promise<DeliveryActionState> {
  const jobId = jobIdOf(form);
  const { api } = await requireSessionApi(`/jobs/${jobId}/review`);
  try {
    await api.approveJob({ params: { id: jobId } });
  } catch (error) {
    if (error instanceof ApiError) {
      revalidatePath(`/jobs/${jobId}/review`); // a failed fresh check is now on the job and in the history
      return refusal(error);
    }
    throw error;
  }
  revalidatePath(`/jobs/${jobId}`);
  revalidatePath(`/jobs/${jobId}/review`);
  return { done: "approved" };
}

/** POST /v1/jobs/:id/dispute with the reason both sides will see. */
export async function disputeJobAction(_state: DeliveryActionState, form: FormData): Promise<DeliveryActionState> {
  const jobId = jobIdOf(form);
  const reason = String(form.get("reason") ?? "").trim();
  const values = { reason };
  const { api } = await requireSessionApi(`/jobs/${jobId}/review`);
  if (reason.length < 10) return { fields: { reason: ["Say what is wrong in at least 10 characters; the agent sees it."] }, values };
  try {
    await api.disputeJob({ params: { id: jobId }, body: { reason } });
  } catch (error) {
    if (error instanceof ApiError) return error.status === 400 ? { fields: { reason: error.messages }, values } : refusal(error, values);
    throw error;
  }
  revalidatePath(`/jobs/${jobId}`);
  revalidatePath(`/jobs/${jobId}/review`);
  return { done: "disputed" };
}

/** POST /v1/jobs/:id/criteria/:criterionId/override: the poster accepts a criterion whatever its check says. */
export async function overrideCriterionAction(_state: DeliveryActionState, form: FormData): Promise<DeliveryActionState> {
  const jobId = jobIdOf(form);
  const criterionId = String(form.get("criterionId") ?? "");
  const reason = String(form.get("reason") ?? "").trim();
  const values = { reason };
  const { api } = await requireSessionApi(`/jobs/${jobId}/review`);
  if (reason.length < 5) return { fields: { reason: ["Say why you accept it anyway (at least 5 characters)."] }, values };
  try {
    await api.overrideJobCriterion({ params: { id: jobId, criterionId }, body: { reason } });
  } catch (error) {
    if (error instanceof ApiError) return error.status === 400 ? { fields: { reason: error.messages }, values } : refusal(error, values);
    throw error;
  }
  revalidatePath(`/jobs/${jobId}/review`);
  return { done: "overridden" };
}

/** POST /v1/jobs/:id/criteria/evaluate: run the machine checks again now. */
export async function evaluateCriteriaAction(_state: DeliveryActionState, form: FormData): Promise<DeliveryActionState> {
  const jobId = jobIdOf(form);
  const { api } = await requireSessionApi(`/jobs/${jobId}/review`);
  try {
    await api.evaluateJobCriteria({ params: { id: jobId } });
  } catch (error) {
    if (error instanceof ApiError) return refusal(error);
    throw error;
  }
  revalidatePath(`/jobs/${jobId}/review`);
  return { done: "evaluated" };
}
