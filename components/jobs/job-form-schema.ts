import { z } from "zod";
import { DecimalString } from "@/lib/api/schemas/common";
import { PROOF_CONTENT_MARKER } from "@/lib/api/schemas/jobs";

// The "Post a job" form: what a person types, checked field by field with messages that read
// well under each field. The limits are those of the service's CreateJobRequest (lib/api), which
// checks the request again; this schema turns the form's text into that request.

const lines = (text: string) => text.split(/\r?\n/).map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, "").trim()).filter(Boolean);
const commaList = (text: string) => [...new Set(text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean))];

const skills = z
  .string()
  .default("")
  .transform(commaList)
  .pipe(z.array(z.string().max(50, "Each skill at most 50 characters")).max(20, "At most 20 skills"));

/** Rows of machine checks on the form (each adds an http_status criterion). */
export const CHECK_ROWS = [1, 2, 3] as const;
type CheckRow = (typeof CHECK_ROWS)[number];
const checkFields = Object.fromEntries(
  CHECK_ROWS.flatMap((n) => [`check${n}Description`, `check${n}Url`, `check${n}Status`].map((f) => [f, z.string().trim().default("")])),
) as Record<`check${CheckRow}${"Description" | "Url" | "Status"}`, z.ZodDefault<z.ZodString>>;

const httpUrl = (v: string) => {
  try {
    return ["http:", "https:"].includes(new URL(v).protocol);
  } catch {
    return false;
  }
};

const FormFields = z.object({
  title: z.string().trim().min(5, "At least 5 characters").max(200, "At most 200 characters"),
  description: z.string().trim().min(20, "At least 20 characters: say what you need and what for").max(20000, "At most 20,000 characters"),
  acceptanceCriteria: z
    .string()
    .default("")
    .transform(lines)
    .pipe(
      z
        .array(z.string().min(3, "Each criterion needs at least 3 characters").max(500, "Each criterion at most 500 characters"))
        .min(1, "Add at least one criterion, one per line")
        .max(20, "At most 20 criteria"),
    ),
  budget: z
    .string()
    .trim()
    .min(1, "Enter a budget in USDC")
    .transform((v) => v.replace(/^\$/, "").replace(/,/g, ""))
    .refine((v) => DecimalString.safeParse(v).success, "A USDC amount such as 40 or 12.5 (at most 6 decimals)")
    .refine((v) => !DecimalString.safeParse(v).success || Number(v) > 0, "More than 0 USDC"),
  proofHoldHours: z.coerce.number({ message: "A whole number of hours" }).int("A whole number of hours").min(0, "0 or more").max(720, "At most 720 hours (30 days)"),
  proofContentMarker: z
    .string()
    .trim()
    .default("")
    .refine((v) => v === "" || PROOF_CONTENT_MARKER.safeParse(v).success, "8 to 200 characters, or leave it empty"),
  requiredSkills: skills,
  preferredSkills: skills,
  participationMode: z.enum(["BID", "BOUNTY"], { message: "Choose bids or a bounty" }).default("BID"),
  claimWindowMinutes: z
    .string()
    .trim()
    .default("")
    .refine((v) => v === "" || (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 10080), "A whole number of minutes from 1 to 10080 (7 days)")
    .transform((v) => (v === "" ? undefined : Number(v))),
  // Checkboxes: present ("on") when ticked, absent when not.
  allowSubcontracting: z.string().default("").transform((v) => v === "on"),
  isPubliclyShareable: z.string().default("").transform((v) => v === "on"),
  // Set by the page from ?parent= (a child job), ?thread= or ?reply= (hiring from the forum); the service checks them.
  parentJobId: z.string().trim().default("").transform((v) => v || undefined),
  sourceForumThreadId: z.string().trim().default("").transform((v) => v || undefined),
  sourceForumReplyId: z.string().trim().default("").transform((v) => v || undefined),
  ...checkFields,
});

export interface MachineCheck {
  description: string;
  check: { type: "http_status"; url?: string; equals: number };
}

/**
 * The form, checked: each filled machine-check row becomes an acceptance criterion whose check
 * GETs a URL (the deliverable's own URL when left empty) and compares its HTTP status. A row
 * left wholly empty is ignored; a half-filled one says what it misses under the field.
 */
export const JobFormSchema = FormFields.superRefine((v, ctx) => {
  let filled = 0;
  for (const n of CHECK_ROWS) {
    const description = v[`check${n}Description`];
    const url = v[`check${n}Url`];
    const status = v[`check${n}Status`];
    if (!description && !url && !status) continue;
    filled += 1;
    if (description.length < 3 || description.length > 500) ctx.addIssue({ code: "custom", path: [`check${n}Description`], message: "Say what the check proves, 3 to 500 characters" });
    if (url && !httpUrl(url)) ctx.addIssue({ code: "custom", path: [`check${n}Url`], message: "An http(s) URL, or leave it empty to check the delivered page" });
    if (!/^\d{3}$/.test(status) || Number(status) < 100 || Number(status) > 599) ctx.addIssue({ code: "custom", path: [`check${n}Status`], message: "An HTTP status from 100 to 599, e.g. 200" });
  }
  if (Array.isArray(v.acceptanceCriteria) && v.acceptanceCriteria.length + filled > 20) {
    ctx.addIssue({ code: "custom", path: ["acceptanceCriteria"], message: "At most 20 criteria, machine checks included" });
  }
}).transform(({ check1Description, check1Url, check1Status, check2Description, check2Url, check2Status, check3Description, check3Url, check3Status, ...rest }) => {
  const rows = [
    [check1Description, check1Url, check1Status],
    [check2Description, check2Url, check2Status],
    [check3Description, check3Url, check3Status],
  ];
  const machineChecks: MachineCheck[] = rows
    .filter(([d, u, s]) => d || u || s)
    .map(([description, url, status]) => ({ description, check: { type: "http_status", ...(url ? { url } : {}), equals: Number(status) } }));
  return { ...rest, machineChecks };
});

export type JobFormField = keyof z.input<typeof FormFields>;
export type JobFormErrors = Partial<Record<JobFormField | "form", string[]>>;

/** The form's text fields as they were typed, to refill the form after a refusal. */
export type JobFormValues = Partial<Record<JobFormField, string>>;

export const JOB_FORM_DEFAULTS = { proofHoldHours: "168", participationMode: "BID", claimWindowMinutes: "120", isPubliclyShareable: "on" } satisfies JobFormValues;
