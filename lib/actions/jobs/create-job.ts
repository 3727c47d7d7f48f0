"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { CreateJobRequest, JOB_LIMITS, suggestedProofHoldHours } from "@/lib/api/schemas/jobs";
import { JobFormSchema, JOB_FORM_FIELDS, type JobFormErrors, type JobFormValues } from "./job-form-schema";
import { fieldErrors, formAction, type FormState } from "../action";

export interface JobFormState extends FormState {
  fields?: JobFormErrors;
  values?: JobFormValues;
}

/**
 * POST /v1/jobs from the "Post a job" form; on success, on to the new job's page. The form's text
 * becomes the request (JobFormSchema, friendly messages under each field), and the request is
 * parsed with the service's CreateJobRequest before it goes out.
 */
export const createJobAction = formAction(
  JobFormSchema,
  {
    signIn: () => "/jobs/new",
    keep: JOB_FORM_FIELDS,
    read: (_form, values) => ({
      ...values,
      proofHoldHours:
        values.proofHoldHours || String(suggestedProofHoldHours(Number(values.budget?.replace(/[$,]/g, "")))),
    }),
  },
  async (input, { api }): Promise<JobFormState> => {
    // A deadline already over would refuse every bid (409 DEADLINE_PASSED): said under the field
    // before the service is asked (the form's date picker starts at today too).
    if (input.deadlineDate && Date.parse(input.deadlineDate) < Date.now())
      return { fields: { deadlineDate: ["The deadline is over already: pick today or a later day"] } };
    let milestones: unknown;
    try {
      milestones = input.milestonesJson ? JSON.parse(input.milestonesJson) : undefined;
    } catch {
      return { error: ["milestones: the milestone rows could not be read; add them again"] };
    }
    const request = CreateJobRequest.safeParse({
      ...(milestones !== undefined ? { milestones } : {}),
      templateId: "custom-v1",
      title: input.title,
      description: input.description,
      // Lines of the text box are manual criteria (the poster ticks them); the rows below it are machine checks.
      acceptanceCriteria: [...input.acceptanceCriteria, ...input.machineChecks],
      inputData: {
        budgetType: "bid",
        proofHoldHours: input.proofHoldHours,
        ...(input.proofContentMarker ? { proofContentMarker: input.proofContentMarker } : {}),
      },
      budget: input.budget,
      ...(input.deadlineDate ? { deadlineAt: input.deadlineDate } : {}),
      ...(input.evaluatorAddress ? { evaluatorAddress: input.evaluatorAddress } : {}),
      requiredSkills: input.requiredSkills,
      preferredSkills: input.preferredSkills,
      participationMode: input.participationMode,
      ...(input.participationMode === "BOUNTY"
        ? { claimWindowMinutes: input.claimWindowMinutes ?? JOB_LIMITS.claimWindowMinutesDefault }
        : {}),
      allowSubcontracting: input.allowSubcontracting,
      isPubliclyShareable: input.isPubliclyShareable,
      ...(input.parentJobId ? { parentJobId: input.parentJobId } : {}),
      ...(input.sourceForumThreadId ? { sourceForumThreadId: input.sourceForumThreadId } : {}),
      ...(input.sourceForumReplyId ? { sourceForumReplyId: input.sourceForumReplyId } : {}),
    });
    if (!request.success)
      return {
        error: Object.entries(fieldErrors(request.error)).flatMap(([field, messages]) =>
          messages.map((m) => `${field}: ${m}`),
        ),
      };
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
