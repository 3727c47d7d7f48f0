"use client";

import { useId, useRef, type ReactNode } from "react";
import { useFormStatus } from "react-dom";
import { buttonClasses, Spinner, type ButtonSize, type ButtonVariant } from "./button";

export interface ConfirmSubmitProps {
  children: ReactNode;
  /** The question in the dialog, e.g. "Cancel this job? The escrow is refunded to you." */
  confirmMessage: ReactNode;
  confirmTitle?: ReactNode;
  confirmLabel?: string;
  cancelLabel?: string;
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** Shown while the form is submitting. */
  pendingLabel?: string;
  /** Submitted with the form, like any submit button's name and value. */
  name?: string;
  value?: string;
  /** A server action for this button only (otherwise the form's action runs). */
  formAction?: (formData: FormData) => void | Promise<void>;
  className?: string;
  disabled?: boolean;
}

/**
 * A submit button that asks "are you sure?" in a modal dialog first. It is a real submit button:
 * before hydration, or without JavaScript, it simply submits, so no action depends on this file
 * loading. With JavaScript a click opens the dialog, and "confirm" submits through the same
 * button, so its name, value and formAction are kept.
 */
export function ConfirmSubmit({
  children,
  confirmMessage,
  confirmTitle = "Are you sure?",
  confirmLabel = "Confirm",
  cancelLabel = "Cancel",
  variant = "primary",
  size,
  pendingLabel,
  name,
  value,
  formAction,
  className,
  disabled,
}: ConfirmSubmitProps) {
  const buttonRef = useRef<HTMLButtonElement>(null);
  const dialogRef = useRef<HTMLDialogElement>(null);
  const { pending } = useFormStatus();
  const titleId = useId();
  const bodyId = useId();

  return (
    <>
      <button
        ref={buttonRef}
        type="submit"
        name={name}
        value={value}
        formAction={formAction}
        disabled={disabled || pending}
        aria-busy={pending || undefined}
        aria-haspopup="dialog"
        className={buttonClasses({ variant, size, className })}
        onClick={(event) => {
          event.preventDefault();
          dialogRef.current?.showModal();
        }}
      >
        {pending ? <Spinner /> : null}
        {pending && pendingLabel ? pendingLabel : children}
      </button>
      <dialog
        ref={dialogRef}
        aria-labelledby={titleId}
        aria-describedby={bodyId}
        className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-xl border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-zinc-950/50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
      >
        <div className="space-y-2 p-5">
          <h2 id={titleId} className="text-base font-semibold">
            {confirmTitle}
          </h2>
          <div id={bodyId} className="text-sm text-zinc-600 dark:text-zinc-300">
            {confirmMessage}
          </div>
        </div>
        <div className="flex justify-end gap-2 border-t border-zinc-200 bg-zinc-50 px-5 py-3 dark:border-zinc-800 dark:bg-zinc-950/40">
          <button
            type="button"
            autoFocus
            className={buttonClasses({ variant: "secondary", size: "sm" })}
            onClick={() => dialogRef.current?.close()}
          >
            {cancelLabel}
          </button>
          <button
            type="button"
            className={buttonClasses({ variant: variant === "danger" ? "danger" : "primary", size: "sm" })}
            onClick={() => {
              const button = buttonRef.current;
              dialogRef.current?.close();
              if (!button?.form) return;
              // requestSubmit(submitter) validates and submits as if that button had been clicked,
              // without firing its click handler again.
              button.form.requestSubmit(button);
            }}
          >
            {confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}
