"use client";

import { useActionState, type ComponentProps, type ReactNode } from "react";
import type { FormState } from "@/lib/actions/form-state";
import { Alert } from "@/components/ui/alert";
import { Button, type ButtonSize, type ButtonVariant } from "@/components/ui/button";
import { Input } from "@/components/ui/field";

export interface SingleFieldFormProps<S extends FormState> {
  /** The server action (built with formAction), run with useActionState. */
  action: (state: S, form: FormData) => Promise<S>;
  /** Hidden fields naming what the value belongs to (the job, the agent). */
  hidden?: Record<string, string>;
  /** The control's id (the label's htmlFor; the base of the hint's and error's ids). */
  id: string;
  name: string;
  label: ReactNode;
  hint?: ReactNode;
  /** The control's own attributes (type, min, placeholder, width...). */
  input?: Omit<ComponentProps<"input">, "id" | "name" | "defaultValue" | "value">;
  /** What the control shows for a state: the saved value, what was typed before a refusal, or the current one. */
  value: (state: S) => string;
  submit: { label: string; variant?: ButtonVariant; size?: ButtonSize };
  /** The heading of a refusal (the service's and the field's messages read as one under it). */
  refusalTitle?: string;
  /** What a saved state says (nothing before a save). */
  saved?: (state: S) => ReactNode;
  /** The saved message takes the form's place (the question is answered). */
  savedReplacesForm?: boolean;
  savedTestId?: string;
}

/**
 * One value set by a server action: a label, one control and its submit button on a line, a hint
 * under them, then the refusal (role "alert") or the saved message (role "status"). A plain form:
 * it works without JavaScript.
 */
export function SingleFieldForm<S extends FormState>({
  action,
  hidden = {},
  id,
  name,
  label,
  hint,
  input,
  value,
  submit,
  refusalTitle,
  saved,
  savedReplacesForm = false,
  savedTestId,
}: SingleFieldFormProps<S>) {
  // useActionState types its state through Awaited<S>, which TypeScript cannot relate to a generic S:
  // the action runs as one on FormState and its state is read back as S (always a plain object).
  const [formState, run, pending] = useActionState(
    action as unknown as (state: FormState, form: FormData) => Promise<FormState>,
    {},
  );
  const state = formState as S;
  const savedMessage = saved ? saved(state) : null;
  const savedNotice = savedMessage ? (
    <Alert variant="inline" tone="success" data-testid={savedTestId}>
      {savedMessage}
    </Alert>
  ) : null;
  if (savedReplacesForm && savedNotice) return savedNotice;
  // One field: the refusal and the field's messages read as one.
  const errors = [...(state.error ?? []), ...Object.values(state.fields ?? {}).flat()];
  const hintId = hint ? `${id}-hint` : null;
  const errorId = errors.length > 0 ? `${id}-error` : null;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <form action={run} className="space-y-1.5">
      {Object.entries(hidden).map(([key, v]) => (
        <input key={key} type="hidden" name={key} value={v} />
      ))}
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      <div className="flex flex-wrap items-center gap-2">
        <Input
          {...input}
          id={id}
          name={name}
          defaultValue={value(state)}
          aria-describedby={describedBy}
          aria-invalid={errorId ? true : undefined}
        />
        <Button
          type="submit"
          variant={submit.variant ?? "secondary"}
          size={submit.size}
          loading={pending}
          loadingLabel="Saving…"
        >
          {submit.label}
        </Button>
      </div>
      {hintId ? (
        <p id={hintId} className="max-w-prose text-xs text-zinc-600 dark:text-zinc-400">
          {hint}
        </p>
      ) : null}
      {errorId ? (
        <Alert id={errorId} variant="inline" tone="error" title={refusalTitle}>
          {errors.join(" ")}
        </Alert>
      ) : null}
      {savedNotice}
    </form>
  );
}
