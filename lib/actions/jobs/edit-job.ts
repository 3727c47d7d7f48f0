"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { Uuid } from "@/lib/api/schemas/common";
import { UpdateJobRequest, suggestedProofHoldHours } from "@/lib/api/schemas/jobs";
import { JOB_FORM_FIELDS, JobFormSchema } from "./job-form-schema";
import { fieldErrors, formAction } from "../action";
import type { JobFormState } from "./create-job";

/** The edit form of one job: the same fields as "Post a job", sent as PATCH /v1/jobs/:id. */
const editOf = (jobId: string) =>
  formAction(
    JobFormSchema,
    {
      signIn: () => `/jobs/${jobId}/edit`,
      keep: JOB_FORM_FIELDS,
      read: (_form, values) => ({
        ...values,
        proofHoldHours:
          values.proofHoldHours || String(suggestedProofHoldHours(Number(values.budget?.replace(/[$,]/g, "")))),
      }),
    },
    async (input, { api }): Promise<JobFormState> => {
      // The whole brief goes out; the service changes (and tells bidders of) only what differs.
      const request = UpdateJobRequest.safeParse({
        title: input.title,
        description: input.description,
        acceptanceCriteria: [...input.acceptanceCriteria, ...input.machineChecks],
        budget: input.budget,
        proofHoldHours: input.proofHoldHours,
        proofContentMarker: input.proofContentMarker || null,
        deadlineAt: input.deadlineDate,
        requiredSkills: input.requiredSkills,
        preferredSkills: input.preferredSkills,
      });
      if (!request.success)
        return {
          error: Object.entries(fieldErrors(request.error)).flatMap(([field, messages]) =>
            messages.map((m) => `${field}: ${m}`),
          ),
        };
      await api.updateJob({ params: { id: jobId }, body: request.data });
      revalidatePath(`/jobs/${jobId}`);
      redirect(`/jobs/${jobId}`);
    },
  );

/** PATCH /v1/jobs/:id from the edit form (its hidden jobId names the job). */
export async function editJobAction(state: JobFormState, form: FormData): Promise<JobFormState> {
  const jobId = String(form.get("jobId") ?? "");
  if (!Uuid.safeParse(jobId).success) return { error: ["Unknown job."] };
  return editOf(jobId)(state, form);
}
