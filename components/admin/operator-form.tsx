"use client";

import { useActionState, type ReactNode } from "react";
import { messagesOf } from "@/lib/actions/form-state";
import type { OperatorActionState } from "@/lib/actions/admin/suspend-agent";
import { Alert } from "@/components/ui/alert";
import { Button, type ButtonVariant } from "@/components/ui/button";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";

/**
 * One operator action: hidden fields naming the subject, a required reason and a button. Every
 * operator action takes a reason (it goes to the audit log), so every console form is this form.
 */
export function OperatorForm({
  action,
  fields,
  label,
  variant = "secondary",
  reasonLabel = "Reason",
  testId,
  numberField,
  textField,
  confirm,
}: {
  action: (state: OperatorActionState, form: FormData) => Promise<OperatorActionState>;
  fields: Record<string, string>;
  label: string;
  variant?: ButtonVariant;
  reasonLabel?: string;
  testId?: string;
  /** A number the action needs besides the reason (e.g. how many slots to add). */
  numberField?: { name: string; label: string; min: number; max: number };
  /** An optional text the action takes besides the reason (e.g. the address to settle to). */
  textField?: { name: string; label: string; placeholder: string };
  /** Asked before the action runs (what it does to whom); without it the button acts at once. */
  confirm?: { title: string; message: ReactNode };
}) {
  const [state, run, pending] = useActionState<OperatorActionState, FormData>(action, {});
  return (
    <form action={run} className="flex flex-wrap items-start gap-2" data-testid={testId}>
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {numberField ? (
        <label className="flex items-center gap-1 text-sm">
          {numberField.label}
          <input
            name={numberField.name}
            type="number"
            required
            min={numberField.min}
            max={numberField.max}
            defaultValue={numberField.min}
            className="h-9 w-20 rounded-lg px-2 ring-1 ring-inset ring-zinc-300 dark:bg-zinc-900 dark:ring-zinc-700"
          />
        </label>
      ) : null}
      {textField ? (
        <>
          <label className="sr-only" htmlFor={`${testId ?? label}-${textField.name}`}>
            {textField.label}
          </label>
          <input
            id={`${testId ?? label}-${textField.name}`}
            name={textField.name}
            placeholder={textField.placeholder}
            className="h-9 min-w-48 flex-1 rounded-lg px-3 font-mono text-xs ring-1 ring-inset ring-zinc-300 dark:bg-zinc-900 dark:ring-zinc-700"
          />
        </>
      ) : null}
      <label className="sr-only" htmlFor={`${testId ?? label}-reason`}>
        {reasonLabel}
      </label>
      <input
        id={`${testId ?? label}-reason`}
        name="reason"
        required
        minLength={3}
        maxLength={500}
        placeholder={`${reasonLabel} (required)`}
        className="h-9 w-full min-w-0 flex-1 rounded-lg px-3 text-sm ring-1 ring-inset ring-zinc-300 sm:w-auto sm:min-w-48 dark:bg-zinc-900 dark:ring-zinc-700"
      />
      {confirm ? (
        <ConfirmSubmit
          size="sm"
          variant={variant}
          pendingLabel="Working…"
          confirmTitle={confirm.title}
          confirmMessage={confirm.message}
          confirmLabel={label}
        >
          {label}
        </ConfirmSubmit>
      ) : (
        <Button type="submit" size="sm" variant={variant} loading={pending} loadingLabel="Working…">
          {label}
        </Button>
      )}
      {state.done ? (
        <Alert variant="inline" tone="success" className="basis-full">
          {state.done}
        </Alert>
      ) : null}
      {messagesOf(state).length > 0 ? (
        <Alert className="basis-full" tone="error" title="Refused">
          {messagesOf(state).join(" ")}
        </Alert>
      ) : null}
    </form>
  );
}
