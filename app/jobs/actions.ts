"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { ApiError } from "@/lib/api/errors";
import { requireSessionApi, sessionApi } from "@/lib/session/api";
import { CHECK_ROWS, JobFormSchema, type JobFormErrors, type JobFormField, type JobFormValues } from "@/components/jobs/job-form-schema";

// Server actions of the job pages. Next refuses them from other origins (CSRF, see
// lib/session/README.md); the credential comes from the sealed session; the service decides who
// may do what, and its refusals are shown as it worded them.

export interface JobFormState {
  errors?: JobFormErrors;
  values?: JobFormValues;
  /** Counts refused submissions: the form remounts with each, so selects and checkboxes come back as typed too. */
  attempt?: number;
}

const FIELDS: JobFormField[] = [
  "title", "description", "acceptanceCriteria", "budget", "proofHoldHours", "proofContentMarker", "requiredSkills", "preferredSkills",
  "participationMode", "claimWindowMinutes", "allowSubcontracting", "isPubliclyShareable", "parentJobId", "sourceForumThreadId", "sourceForumReplyId",
  ...CHECK_ROWS.flatMap((n) => [`check${n}Description`, `check${n}Url`, `check${n}Status`] as const),
];

/** POST /v1/jobs from the "Post a job" form; on success, on to the new job's page. */
export async function createJobAction(state: JobFormState, form: FormData): Promise<JobFormState> {
  const attempt = (state.attempt ?? 0) + 1;
  const { api } = await requireSessionApi("/jobs/new");
  const values = Object.fromEntries(FIELDS.map((f) => [f, typeof form.get(f) === "string" ? String(form.get(f)) : ""])) as JobFormValues;
  const parsed = JobFormSchema.safeParse({ ...values, proofHoldHours: values.proofHoldHours || "168" });
  if (!parsed.success) {
    const errors: JobFormErrors = {};
    for (const issue of parsed.error.issues) {
      const field = (issue.path[0] as JobFormField | undefined) ?? "form";
      (errors[field] ??= []).push(issue.message);
    }
    return { errors, values, attempt };
  }
  const input = parsed.data;
  let jobId: string;
  try {
    const res = await api.createJob({
      body: {
        templateId: "custom-v1",
        title: input.title,
        description: input.description,
        // Lines of the text box are manual criteria (the poster ticks them); the rows below it are machine checks.
        acceptanceCriteria: [...input.acceptanceCriteria, ...input.machineChecks],
        inputData: { budgetType: "bid", proofHoldHours: input.proofHoldHours, ...(input.proofContentMarker ? { proofContentMarker: input.proofContentMarker } : {}) },
        budget: input.budget,
        requiredSkills: input.requiredSkills,
        preferredSkills: input.preferredSkills,
        participationMode: input.participationMode,
        ...(input.participationMode === "BOUNTY" ? { claimWindowMinutes: input.claimWindowMinutes ?? 120 } : {}),
        allowSubcontracting: input.allowSubcontracting,
        isPubliclyShareable: input.isPubliclyShareable,
        ...(input.parentJobId ? { parentJobId: input.parentJobId } : {}),
        ...(input.sourceForumThreadId ? { sourceForumThreadId: input.sourceForumThreadId } : {}),
        ...(input.sourceForumReplyId ? { sourceForumReplyId: input.sourceForumReplyId } : {}),
      },
    });
    jobId = res.data.id;
    // Hiring from a thread: its author also links the job on the thread (the service checks they
    // are the author and own the job). Anyone else's job still names its source discussion.
    if (input.sourceForumThreadId) {
      await api.linkThreadJob({ params: { id: input.sourceForumThreadId }, body: { jobId } }).catch(() => undefined);
    }
  } catch (error) {
    if (error instanceof ApiError) return { errors: { form: error.messages }, values, attempt };
    throw error;
  }
  revalidatePath("/jobs");
  redirect(`/jobs/${jobId}`);
}

export interface BidDecisionState {
  /** The service's refusal, as it said it. */
  error?: string[];
  code?: string;
  /** Extra fields of the refusal (AGENT_AT_CAPACITY carries maxActiveJobs and activeJobs). */
  details?: { maxActiveJobs?: number; activeJobs?: number };
  done?: "accept" | "reject";
}

/** Accept or reject a bid (the poster only; the service checks). */
export async function decideBidAction(_state: BidDecisionState, form: FormData): Promise<BidDecisionState> {
  const jobId = String(form.get("jobId") ?? "");
  const bidId = String(form.get("bidId") ?? "");
  const decision = form.get("decision") === "accept" ? "accept" : form.get("decision") === "reject" ? "reject" : null;
  if (!decision) return { error: ["Choose accept or reject."] };
  const { api } = await requireSessionApi(`/jobs/${jobId}`);
  try {
    if (decision === "accept") await api.acceptBid({ params: { jobId, bidId } });
    else await api.rejectBid({ params: { jobId, bidId } });
  } catch (error) {
    if (error instanceof ApiError) {
      const { maxActiveJobs, activeJobs } = error.body as { maxActiveJobs?: unknown; activeJobs?: unknown };
      return {
        error: error.messages,
        code: error.code,
        details: { maxActiveJobs: typeof maxActiveJobs === "number" ? maxActiveJobs : undefined, activeJobs: typeof activeJobs === "number" ? activeJobs : undefined },
      };
    }
    throw error;
  }
  revalidatePath(`/jobs/${jobId}`);
  return { done: decision };
}

/** POST /v1/jobs/:id/share (public): counts the share, then shows the share page with its link. */
export async function shareJobAction(form: FormData): Promise<void> {
  const jobId = String(form.get("jobId") ?? "");
  const { api } = await sessionApi();
  await api.shareJob({ params: { id: jobId } });
  revalidatePath(`/jobs/${jobId}`);
  redirect(`/share/jobs/${jobId}?shared=1`);
}
