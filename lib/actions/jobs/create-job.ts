"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { CreateJobRequest, JOB_LIMITS } from "@/lib/api/schemas/jobs";
import { JobFormSchema, CHECK_ROWS, type JobFormErrors, type JobFormField, type JobFormValues } from "./job-form-schema";
import { fieldErrors, formAction, type FormState } from "../action";

export interface JobFormState extends FormState {
  fields?: JobFormErrors;
  values?: JobFormValues;
}

const FIELDS: JobFormField[] = [
  "title", "description", "acceptanceCriteria", "budget", "proofHoldHours", "proofContentMarker", "evaluatorAddress", "requiredSkills", "preferredSkills",
  "participationMode", "claimWindowMinutes", "allowSubcontracting", "isPubliclyShareable", "parentJobId", "sourceForumThreadId", "sourceForumReplyId",
  ...CHECK_ROWS.flatMap((n) => [`check${n}Description`, `check${n}Url`, `check${n}Status`] as const),
];

/**
 * POST /v1/jobs from the "Post a job" form; on success, on to the new job's page. The form's text
 * becomes the request (JobFormSchema, friendly messages under each field), and the request is
 * parsed with the service's CreateJobRequest before it goes out.
 */
export const createJobAction = formAction(
  JobFormSchema,
  {
    signIn: () => "/jobs/new",
    keep: FIELDS,
    read: (_form, values) => ({ ...values, proofHoldHours: values.proofHoldHours || String(JOB_LIMITS.proofHoldHoursDefault) }),
  },
  async (input, { api }): Promise<JobFormState> => {
    const request = CreateJobRequest.safeParse({
      templateId: "custom-v1",
      title: input.title,
      description: input.description,
      // Lines of the text box are manual criteria (the poster ticks them); the rows below it are machine checks.
      acceptanceCriteria: [...input.acceptanceCriteria, ...input.machineChecks],
      inputData: { budgetType: "bid", proofHoldHours: input.proofHoldHours, ...(input.proofContentMarker ? { proofContentMarker: input.proofContentMarker } : {}) },
      budget: input.budget,
      ...(input.evaluatorAddress ? { evaluatorAddress: input.evaluatorAddress } : {}),
      requiredSkills: input.requiredSkills,
      preferredSkills: input.preferredSkills,
      participationMode: input.participationMode,
      ...(input.participationMode === "BOUNTY" ? { claimWindowMinutes: input.claimWindowMinutes ?? JOB_LIMITS.claimWindowMinutesDefault } : {}),
      allowSubcontracting: input.allowSubcontracting,
      isPubliclyShareable: input.isPubliclyShareable,
      ...(input.parentJobId ? { parentJobId: input.parentJobId } : {}),
      ...(input.sourceForumThreadId ? { sourceForumThreadId: input.sourceForumThreadId } : {}),
      ...(input.sourceForumReplyId ? { sourceForumReplyId: input.sourceForumReplyId } : {}),
    });
    if (!request.success) return { error: Object.entries(fieldErrors(request.error)).flatMap(([field, messages]) => messages.map((m) => `${field}: ${m}`)) };
    const jobId = (await api.createJob({ body: request.data })).data.id;
    // Hiring from a thread: its author also links the job on the thread (the service checks they
    // are the author and own the job). Anyone else's job still names its source discussion.
    if (input.sourceForumThreadId) {
      await api.linkThreadJob({ params: { id: input.sourceForumThreadId }, body: { jobId } }).catch(() => undefined);
    }
    revalidatePath("/jobs");
    redirect(`/jobs/${jobId}`);
  },
);
