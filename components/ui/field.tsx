import type { ComponentProps, ReactNode } from "react";
import { cn } from "./cn";

const CONTROL =
  "block w-full rounded-lg border-0 bg-white px-3 py-2 text-sm text-zinc-900 shadow-sm ring-1 ring-inset ring-zinc-300 " +
  "placeholder:text-zinc-400 focus:ring-2 focus:ring-inset focus:ring-brand-600 focus:outline-none " +
  "disabled:cursor-not-allowed disabled:bg-zinc-50 disabled:text-zinc-500 " +
  "aria-invalid:ring-red-500 aria-invalid:focus:ring-red-600 " +
  "dark:bg-zinc-900 dark:text-zinc-100 dark:ring-zinc-700 dark:placeholder:text-zinc-500 dark:focus:ring-brand-500 dark:disabled:bg-zinc-800";

export function Input({ className, ...rest }: ComponentProps<"input">) {
  return <input {...rest} className={cn(CONTROL, "h-10", className)} />;
}

export function Textarea({ className, rows = 6, ...rest }: ComponentProps<"textarea">) {
  return <textarea {...rest} rows={rows} className={cn(CONTROL, "min-h-24 leading-relaxed", className)} />;
}

export function Select({ className, ...rest }: ComponentProps<"select">) {
  return <select {...rest} className={cn(CONTROL, "h-10 pr-8", className)} />;
}

/** What <Field> hands to its control so that label, hint and error are announced with it. */
export interface FieldControlProps {
  id: string;
  name: string;
  "aria-describedby"?: string;
  "aria-invalid"?: true;
  required?: boolean;
}

export interface FieldProps {
  /** The form field name; also the base of the ids unless `id` is given. */
  name: string;
  label: ReactNode;
  id?: string;
  hint?: ReactNode;
  /** One message or the list a validation error envelope carries. */
  error?: string | string[] | null;
  required?: boolean;
  className?: string;
  /** Renders the control with the wiring props: `{(p) => <Input {...p} defaultValue={...} />}`. */
  children: (control: FieldControlProps) => ReactNode;
}

/**
 * A labelled form control with an optional hint and error text, tied together with
 * aria-describedby and aria-invalid. A server component: forms work without JavaScript.
 */
export function Field({ name, label, id, hint, error, required, className, children }: FieldProps) {
  const controlId = id ?? `field-${name}`;
  const hintId = `${controlId}-hint`;
  const errorId = `${controlId}-error`;
  const errors = error == null ? [] : Array.isArray(error) ? error : [error];
  const describedBy = [hint ? hintId : null, errors.length ? errorId : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={cn("space-y-1.5", className)}>
      <label htmlFor={controlId} className="block text-sm font-medium text-zinc-900 dark:text-zinc-100">
        {label}
        {required ? (
          <span className="ml-0.5 text-red-600 dark:text-red-400" aria-hidden="true">
            *
          </span>
        ) : null}
      </label>
      {children({
        id: controlId,
        name,
        "aria-describedby": describedBy,
        "aria-invalid": errors.length ? true : undefined,
        required,
      })}
      {hint ? (
        <p id={hintId} className="text-xs text-zinc-500 dark:text-zinc-400">
          {hint}
        </p>
      ) : null}
      {errors.length ? (
        <div id={errorId} className="text-xs font-medium text-red-600 dark:text-red-400">
          {errors.length === 1 ? (
            <p>{errors[0]}</p>
          ) : (
            <ul className="list-disc space-y-0.5 pl-4">
              {errors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          )}
        </div>
      ) : null}
    </div>
  );
}
