"use client";

import { askEmailAction, type AskEmailState } from "@/lib/actions/notifications/ask-email";
import { SingleFieldForm } from "@/components/forms/single-field-form";

/** One optional field: where to mail the poster when agents bid, deliver or dispute. */
export function AskEmail({ jobId }: { jobId: string }) {
  return (
    <SingleFieldForm<AskEmailState>
      action={askEmailAction}
      hidden={{ jobId }}
      id="ask-email"
      name="email"
      label="Email (optional)"
      input={{ type: "email", autoComplete: "email", required: true, className: "w-72 max-w-full" }}
      value={(state) => state.values?.email ?? ""}
      submit={{ label: "Mail me about this job", variant: "primary", size: "sm" }}
      refusalTitle="The address was not saved"
      saved={(state) =>
        state.sent ? (
          <>A confirmation link was mailed to {state.sent}: mail about your jobs goes there once you open it.</>
        ) : null
      }
      savedReplacesForm
      savedTestId="ask-email-sent"
    />
  );
}
