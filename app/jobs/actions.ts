"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { ApiError } from "@/lib/api/errors";
import { requireSessionApi } from "@/lib/session/api";

// Server actions of the job pages. Next checks their Origin (CSRF); the credential comes from the
// sealed session; the service decides who may do what.

const lines = (value: FormDataEntryValue | null) => String(value ?? "").split("\n").map((l) => l.trim()).filter(Boolean);
const list = (value: FormDataEntryValue | null) => String(value ?? "").split(",").map((s) => s.trim()).filter(Boolean);

const JobForm = z.object({
  title: z.string().trim().min(5, "At least 5 characters").max(200, "At most 200 characters"),
  description: z.string().trim().min(20, "At least 20 characters").max(20000),
  acceptanceCriteria: z.array(z.string().min(3)).min(1, "Add at least one criterion, one per line").max(20, "At most 20 criteria"),
  budget: z.string().trim().regex(/^(0|[1-9]\d{0,11})(\.\d{1,6})?$/, "A USDC amount such as 40 or 12.5").refine((v) => Number(v) > 0, "Must be more than 0"),
  proofHoldHours: z.coerce.number().int("Whole hours").min(0, "0 or more").max(720, "At most 720 hours"),
  proofContentMarker: z.string().trim().refine((v) => v === "" || (v.length >= 8 && v.length <= 200), "8 to 200 characters, or leave it empty"),
  requiredSkills: z.array(z.string().max(50)).max(20),
  preferredSkills: z.array(z.string().max(50)).max(20),
});

export interface JobFormState {
  errors?: Partial<Record<keyof z.input<typeof JobForm> | "form", string>>;
  values?: Record<string, string>;
}

export async function createJobAction(_state: JobFormState, form: FormData): Promise<JobFormState> {
  const { api } = await requireSessionApi("/jobs/new");
  const values = Object.fromEntries([...form.entries()].map(([k, v]) => [k, String(v)]));
  const parsed = JobForm.safeParse({
    title: form.get("title"),
    description: form.get("description"),
    acceptanceCriteria: lines(form.get("acceptanceCriteria")),
    budget: form.get("budget"),
    proofHoldHours: form.get("proofHoldHours") || "168",
    proofContentMarker: form.get("proofContentMarker") ?? "",
    requiredSkills: list(form.get("requiredSkills")),
    preferredSkills: list(form.get("preferredSkills")),
  });
  if (!parsed.success) {
    const errors: JobFormState["errors"] = {};
    for (const issue of parsed.error.issues) errors[issue.path[0] as keyof typeof errors] ??= issue.message;
    return { errors, values };
  }
  const input = parsed.data;
  let jobId: string;
  try {
    const res = await api.createJob({
      body: {
        templateId: "custom-v1",
        title: input.title,
        description: input.description,
        acceptanceCriteria: input.acceptanceCriteria,
        inputData: { budgetType: "bid", proofHoldHours: input.proofHoldHours, ...(input.proofContentMarker ? { proofContentMarker: input.proofContentMarker } : {}) },
        budget: input.budget,
        requiredSkills: input.requiredSkills,
        preferredSkills: input.preferredSkills,
      },
    });
    jobId = res.data.id;
  } catch (error) {
    if (error instanceof ApiError) return { errors: { form: error.messages.join("; ") }, values };
    throw error;
  }
  redirect(`/jobs/${jobId}`);
}

export interface BidDecisionState {
  error?: string;
  code?: string;
}

export async function decideBidAction(_state: BidDecisionState, form: FormData): Promise<BidDecisionState> {
  const jobId = String(form.get("jobId"));
  const bidId = String(form.get("bidId"));
  const decision = form.get("decision") === "accept" ? "accept" : "reject";
  const { api } = await requireSessionApi(`/jobs/${jobId}`);
  try {
    if (decision === "accept") await api.acceptBid({ params: { jobId, bidId } });
    else await api.rejectBid({ params: { jobId, bidId } });
  } catch (error) {
    if (error instanceof ApiError) return { error: error.messages.join("; "), code: error.code };
    throw error;
  }
  revalidatePath(`/jobs/${jobId}`);
  return {};
}
