import { z } from "zod";
import { DecimalString, EvmAddress } from "@/lib/api/schemas/common";
import { CriterionCheck, JOB_LIMITS as L, PROOF_CONTENT_MARKER } from "@/lib/api/schemas/jobs";

// The "Post a job" form: what a person types, checked field by field with messages that read
// well under each field. Limits and defaults are the service's (JOB_LIMITS beside CreateJobRequest
// in lib/api), which the action checks again by parsing the request it builds; this schema turns
// the form's text into that request.

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, "").trim())
    .filter(Boolean);
const commaList = (text: string) => [
  ...new Set(
    text
      .split(/[,\n]/)
      .map((s) => s.trim())
      .filter(Boolean),
  ),
];

const skills = z
  .string()
  .default("")
  .transform(commaList)
  .pipe(
    z
      .array(z.string().max(L.skillMax, `Each skill at most ${L.skillMax} characters`))
      .max(L.skillsMax, `At most ${L.skillsMax} skills`),
  );

/** Rows of machine checks on the form (each adds an http_status criterion). */
export const CHECK_ROWS = [1, 2, 3] as const;
type CheckRow = (typeof CHECK_ROWS)[number];
const checkFields = Object.fromEntries(
  CHECK_ROWS.flatMap((n) =>
    [`check${n}Description`, `check${n}Url`, `check${n}Status`].map((f) => [f, z.string().trim().default("")]),
  ),
) as Record<`check${CheckRow}${"Description" | "Url" | "Status"}`, z.ZodDefault<z.ZodString>>;

const httpUrl = (v: string) => {
  try {
    return ["http:", "https:"].includes(new URL(v).protocol);
  } catch {
    return false;
  }
};

const FormFields = z.object({
  title: z
    .string()
    .trim()
    .min(L.titleMin, `At least ${L.titleMin} characters`)
    .max(L.titleMax, `At most ${L.titleMax} characters`),
  description: z
    .string()
    .trim()
    .min(L.descriptionMin, `At least ${L.descriptionMin} characters: say what you need and what for`)
    .max(L.descriptionMax, `At most ${L.descriptionMax.toLocaleString("en")} characters`),
  acceptanceCriteria: z
    .string()
    .default("")
    .transform(lines)
    .pipe(
      z
        .array(
          z
            .string()
            .min(L.criterionMin, `Each criterion needs at least ${L.criterionMin} characters`)
            .max(L.criterionMax, `Each criterion at most ${L.criterionMax} characters`),
        )
        .min(L.criteriaMin, "Add at least one criterion, one per line")
        .max(L.criteriaMax, `At most ${L.criteriaMax} criteria`),
    ),
  budget: z
    .string()
    .trim()
    .min(1, "Enter a budget in USDC")
    .transform((v) => v.replace(/^\$/, "").replace(/,/g, ""))
    .refine((v) => DecimalString.safeParse(v).success, "A USDC amount such as 40 or 12.5 (at most 6 decimals)")
    .refine(
      (v) => !DecimalString.safeParse(v).success || Number(v) >= L.budgetMinUsdc,
      `At least ${L.budgetMinUsdc} USDC`,
    ),
  // Empty: the suggestion for the budget (suggestedProofHoldHours), filled in by the action.
  proofHoldHours: z.coerce
    .number({ message: "A whole number of hours" })
    .int("A whole number of hours")
    .min(0, "0 or more")
    .max(L.proofHoldHoursMax, `At most ${L.proofHoldHoursMax} hours (${L.proofHoldHoursMax / 24} days)`),
  // A day (YYYY-MM-DD from a date input): the work is due by the end of that day, UTC.
  deadlineDate: z
    .string()
    .trim()
    .default("")
    .refine(
      (v) => v === "" || (/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T23:59:59Z`))),
      "A date, or leave it empty for no deadline",
    )
    .transform((v) => (v === "" ? null : `${v}T23:59:59.000Z`)),
  proofContentMarker: z
    .string()
    .trim()
    .default("")
    .refine(
      (v) => v === "" || PROOF_CONTENT_MARKER.safeParse(v).success,
      `${L.proofContentMarkerMin} to ${L.proofContentMarkerMax} characters, or leave it empty`,
    ),
  evaluatorAddress: z
    .string()
    .trim()
    .default("")
    .refine((v) => v === "" || EvmAddress.safeParse(v).success, "An address (0x and 40 hex digits), or leave it empty"),
  requiredSkills: skills,
  preferredSkills: skills,
  participationMode: z.enum(["BID", "BOUNTY"], { message: "Choose bids or a bounty" }).default("BID"),
  claimWindowMinutes: z
    .string()
    .trim()
    .default("")
    .refine(
      (v) =>
        v === "" || (/^\d+$/.test(v) && Number(v) >= L.claimWindowMinutesMin && Number(v) <= L.claimWindowMinutesMax),
      `A whole number of minutes from ${L.claimWindowMinutesMin} to ${L.claimWindowMinutesMax} (${L.claimWindowMinutesMax / 1440} days)`,
    )
    .transform((v) => (v === "" ? undefined : Number(v))),
  // Checkboxes: present ("on") when ticked, absent when not.
  allowSubcontracting: z
    .string()
    .default("")
    .transform((v) => v === "on"),
  isPubliclyShareable: z
    .string()
    .default("")
    .transform((v) => v === "on"),
  // Set by the page from ?parent= (a child job), ?thread= or ?reply= (hiring from the forum); the service checks them.
  parentJobId: z
    .string()
    .trim()
    .default("")
    .transform((v) => v || undefined),
  sourceForumThreadId: z
    .string()
    .trim()
    .default("")
    .transform((v) => v || undefined),
  sourceForumReplyId: z
    .string()
    .trim()
    .default("")
    .transform((v) => v || undefined),
  // The milestone rows (components/milestones/milestone-builder.tsx), as JSON; empty for a job paid whole.
  milestonesJson: z.string().trim().default(""),
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
    if (description.length < L.criterionMin || description.length > L.criterionMax) {
      ctx.addIssue({
        code: "custom",
        path: [`check${n}Description`],
        message: `Say what the check proves, ${L.criterionMin} to ${L.criterionMax} characters`,
      });
    }
    if (url && !httpUrl(url))
      ctx.addIssue({
        code: "custom",
        path: [`check${n}Url`],
        message: "An http(s) URL, or leave it empty to check the delivered page",
      });
    // The status range is the service's (CriterionCheck): asked of the schema, not re-typed here.
    if (!/^\d{3}$/.test(status) || !CriterionCheck.safeParse({ type: "http_status", equals: Number(status) }).success) {
      ctx.addIssue({ code: "custom", path: [`check${n}Status`], message: "An HTTP status from 100 to 599, e.g. 200" });
    }
  }
  if (Array.isArray(v.acceptanceCriteria) && v.acceptanceCriteria.length + filled > L.criteriaMax) {
    ctx.addIssue({
      code: "custom",
      path: ["acceptanceCriteria"],
      message: `At most ${L.criteriaMax} criteria, machine checks included`,
    });
  }
}).transform(
  ({
    check1Description,
    check1Url,
    check1Status,
    check2Description,
    check2Url,
    check2Status,
    check3Description,
    check3Url,
    check3Status,
    ...rest
  }) => {
    const rows = [
      [check1Description, check1Url, check1Status],
      [check2Description, check2Url, check2Status],
      [check3Description, check3Url, check3Status],
    ];
    const machineChecks: MachineCheck[] = rows
      .filter(([d, u, s]) => d || u || s)
      .map(([description, url, status]) => ({
        description,
        check: { type: "http_status", ...(url ? { url } : {}), equals: Number(status) },
      }));
    return { ...rest, machineChecks };
  },
);

export type JobFormField = keyof z.input<typeof FormFields>;
export type JobFormErrors = Partial<Record<JobFormField | "form", string[]>>;

/** The form's text fields as they were typed, to refill the form after a refusal. */
export type JobFormValues = Partial<Record<JobFormField, string>>;

export const JOB_FORM_DEFAULTS = {
  proofHoldHours: "",
  participationMode: "BID",
  claimWindowMinutes: String(L.claimWindowMinutesDefault),
  isPubliclyShareable: "on",
} satisfies JobFormValues;

/** The form's fields echoed back after a refusal (the edit form's too). */
export const JOB_FORM_FIELDS: JobFormField[] = [
  "title",
  "description",
  "acceptanceCriteria",
  "budget",
  "proofHoldHours",
  "deadlineDate",
  "proofContentMarker",
  "evaluatorAddress",
  "requiredSkills",
  "preferredSkills",
  "participationMode",
  "claimWindowMinutes",
  "allowSubcontracting",
  "isPubliclyShareable",
  "parentJobId",
  "sourceForumThreadId",
  "sourceForumReplyId",
  "milestonesJson",
  ...CHECK_ROWS.flatMap((n) => [`check${n}Description`, `check${n}Url`, `check${n}Status`] as const),
];
