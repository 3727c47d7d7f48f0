"use client";

import { useActionState } from "react";
import { reviewPackAction, type ReviewPackState } from "@/lib/actions/packs/review-pack";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";

/** The operator's decision on one pack, with the reason the audit log and the publisher see. */
export function ReviewPackForm({ packId }: { packId: string }) {
  const [state, action, pending] = useActionState<ReviewPackState, FormData>(reviewPackAction, {});
  if (state.done)
    return (
      <Alert
        tone="success"
        title={state.done === "APPROVED" ? "Approved: the pack is listed" : "Refused: the publisher sees the reason"}
      />
    );
  return (
    <form action={action} className="space-y-3">
      <input type="hidden" name="packId" value={packId} />
      <Field name="reason" label="Reason" required error={state.fields?.reason}>
        {(p) => <Input {...p} defaultValue={state.values?.reason ?? ""} />}
      </Field>
      {state.error ? (
        <Alert
          title="The decision was not recorded"
          error={{
            statusCode: state.status ?? 0,
            error: "",
            message: state.error.join("; "),
            messages: state.error,
            code: state.code,
          }}
        />
      ) : null}
      <div className="flex gap-2">
        <Button type="submit" name="decision" value="approve" variant="primary" loading={pending}>
          Approve
        </Button>
        <Button type="submit" name="decision" value="refuse" variant="secondary" disabled={pending}>
          Refuse
        </Button>
      </div>
    </form>
  );
}
