"use client";

import { useActionState } from "react";
import { DISPLAY_NAME_LIMITS } from "@/lib/api/schemas/display-name";
import { setDisplayNameAction } from "@/lib/actions/auth/set-display-name";
import { buttonClasses, Spinner } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import { Alert } from "@/components/ui/alert";

/** The person's display name: a plain form posting to a server action (works before hydration). */
export function DisplayNameForm({ current }: { current: string | null }) {
  const [state, action, pending] = useActionState(setDisplayNameAction, {});
  const taken = state.code === "DISPLAY_NAME_TAKEN";
  return (
    <form action={action} className="space-y-4" key={state.attempt}>
      <Field
        name="displayName"
        label="Display name"
        required
        error={state.fields?.displayName ?? (taken ? state.error : undefined)}
        hint={`${DISPLAY_NAME_LIMITS.min} to ${DISPLAY_NAME_LIMITS.max} characters: letters, digits, spaces, "-", "_" and ".". It must be yours alone; your address is shown beside it.`}
      >
        {(p) => (
          <Input
            {...p}
            autoComplete="nickname"
            minLength={DISPLAY_NAME_LIMITS.min}
            maxLength={DISPLAY_NAME_LIMITS.max}
            defaultValue={state.values?.displayName ?? current ?? ""}
          />
        )}
      </Field>
      {state.error && !taken ? (
        <Alert tone="error">
          {state.error.map((m) => (
            <p key={m}>{m}</p>
          ))}
        </Alert>
      ) : null}
      {state.saved ? (
        <Alert variant="inline" tone="success">
          Saved: you are shown as “{state.saved}”.
        </Alert>
      ) : null}
      <button
        type="submit"
        disabled={pending}
        aria-busy={pending || undefined}
        className={buttonClasses({ variant: "primary" })}
      >
        {pending ? <Spinner /> : null}
        Save the name
      </button>
    </form>
  );
}
