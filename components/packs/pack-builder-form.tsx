"use client";

import { useActionState } from "react";
import { publishPackAction } from "@/lib/actions/packs/publish-pack";
import type { FormState } from "@/lib/actions/form-state";
import { EVAL_PACK_LIMITS } from "@/lib/api/schemas/evals";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input, Textarea } from "@/components/ui/field";

/** A starting point for the items: one of each kind, with every field the builder takes. */
export const EXAMPLE_ITEMS = JSON.stringify(
  [
    {
      kind: "MULTIPLE_CHOICE",
      section: "Rules",
      points: 2,
      prompt: "Which bid is accepted on a funded job of 40 USDC?",
      choices: [
        { id: "a", text: "35 USDC" },
        { id: "b", text: "40 USDC" },
      ],
      answer: "b",
    },
    {
      kind: "SHORT_ANSWER",
      section: "Knowledge",
      prompt: "Which token settles jobs here?",
      keywords: ["usdc"],
      timeLimitSeconds: 120,
    },
    { kind: "STRUCTURED", section: "Tasks", prompt: 'Answer {"ok": true}.', expected: { ok: true } },
    {
      kind: "STRUCTURED",
      section: "Tasks",
      prompt: "Give one lead as {email, company}.",
      answerSchema: {
        type: "object",
        required: ["email", "company"],
        properties: { email: { type: "string" }, company: { type: "string" } },
      },
    },
    {
      kind: "SHORT_ANSWER",
      section: "Knowledge",
      prompt: "What does an MX record tell you about a domain?",
      keywords: ["accepts mail", "mail server"],
    },
  ],
  null,
  2,
);

/**
 * The pack builder: settings as fields and the items as JSON (kind, section, points, prompt, an
 * optional time budget, and the grading key of the kind). Published packs wait for the operator.
 */
export function PackBuilderForm() {
  const [state, action, pending] = useActionState<FormState, FormData>(publishPackAction, {});
  const v = state.values ?? {};
  return (
    <form action={action} key={state.attempt ?? 0} className="space-y-4">
      <div className="grid gap-4 sm:grid-cols-2">
        <Field name="title" label="Title" required error={state.fields?.title}>
          {(p) => <Input {...p} defaultValue={v.title ?? ""} />}
        </Field>
        <Field
          name="slug"
          label="Slug"
          required
          error={state.fields?.slug}
          hint="Lower-case words joined by hyphens; the pack's address."
        >
          {(p) => <Input {...p} defaultValue={v.slug ?? ""} />}
        </Field>
      </div>
      <Field name="description" label="Description" required error={state.fields?.description}>
        {(p) => <Textarea {...p} rows={3} defaultValue={v.description ?? ""} />}
      </Field>
      <div className="grid gap-4 sm:grid-cols-3">
        <Field
          name="priceUsdc"
          label="Price (USDC)"
          error={state.fields?.priceUsdc}
          hint={`Empty: free. Paid: ${EVAL_PACK_LIMITS.minPriceUsdc} to ${EVAL_PACK_LIMITS.maxPriceUsdc} USDC, paid to you less the marketplace fee.`}
        >
          {(p) => <Input {...p} inputMode="decimal" defaultValue={v.priceUsdc ?? ""} />}
        </Field>
        <Field name="passPercent" label="Pass mark (% of points)" required error={state.fields?.passPercent}>
          {(p) => <Input {...p} type="number" min={1} max={100} defaultValue={v.passPercent ?? "70"} />}
        </Field>
        <Field name="timeLimitMinutes" label="Session time (minutes)" required error={state.fields?.timeLimitMinutes}>
          {(p) => <Input {...p} type="number" min={1} max={1440} defaultValue={v.timeLimitMinutes ?? "30"} />}
        </Field>
        <Field
          name="itemsPerAttempt"
          label="Items per attempt"
          error={state.fields?.itemsPerAttempt}
          hint="Empty: all; fewer draws a different set each time."
        >
          {(p) => <Input {...p} type="number" min={1} max={60} defaultValue={v.itemsPerAttempt ?? ""} />}
        </Field>
        <Field name="validityDays" label="Valid for (days)" error={state.fields?.validityDays}>
          {(p) => <Input {...p} type="number" min={1} max={1095} defaultValue={v.validityDays ?? "365"} />}
        </Field>
        <Field name="vertical" label="Vertical" error={state.fields?.vertical}>
          {(p) => <Input {...p} placeholder="e.g. LEAD_GEN" defaultValue={v.vertical ?? ""} />}
        </Field>
      </div>
      <Field
        name="items"
        label={`Items (JSON, ${EVAL_PACK_LIMITS.minItems} to ${EVAL_PACK_LIMITS.maxItems})`}
        required
        error={state.fields?.items}
        hint="MULTIPLE_CHOICE: choices and answer. SHORT_ANSWER: keywords (the answer is one of them, or one short statement naming one and no alternative). STRUCTURED: expected (deep equality) or answerSchema (JSON Schema: type, enum, const, properties, required, additionalProperties, items, min/max, pattern)."
      >
        {(p) => <Textarea {...p} rows={18} className="font-mono text-xs" defaultValue={v.items ?? EXAMPLE_ITEMS} />}
      </Field>
      {state.error ? (
        <Alert
          title="The pack was not published"
          error={{
            statusCode: state.status ?? 0,
            error: "",
            message: state.error.join("; "),
            messages: state.error,
            code: state.code,
          }}
        />
      ) : null}
      <Button type="submit" variant="primary" loading={pending} loadingLabel="Publishing…">
        Publish for review
      </Button>
    </form>
  );
}
