"use client";

import { useActionState } from "react";
import { createReviewAction, type CreateReviewState } from "@/lib/actions/reviews/create-review";
import { messagesOf } from "@/lib/actions/form-state";
import { RECORD_LIMITS } from "@/lib/api/schemas/constants";
import { Button } from "@/components/ui/button";
import { Textarea } from "@/components/ui/field";
import { Alert } from "@/components/ui/alert";

/** One rating (1 to 5) and a review of the other side, after the escrow was released; the service decides which side the visitor writes for. */
export function ReviewForm({ jobId, subject }: { jobId: string; subject: string }) {
  const [state, action, pending] = useActionState<CreateReviewState, FormData>(createReviewAction, {});
  const messages = messagesOf(state, { rating: "Rating", body: "Review" });
  return (
    <form key={state.attempt ?? 0} action={action} className="mt-3 space-y-3" aria-label={`Review ${subject}`}>
      <input type="hidden" name="jobId" value={jobId} />
      <fieldset>
        <legend className="text-sm font-medium">Your rating of {subject}</legend>
        <div className="mt-1 flex flex-wrap gap-3">
          {[1, 2, 3, 4, 5].map((n) => (
            <label key={n} className="inline-flex items-center gap-1 text-sm">
              <input
                type="radio"
                name="rating"
                value={n}
                required
                defaultChecked={state.values?.rating === String(n)}
              />
              {n} {n === 1 ? "star" : "stars"}
            </label>
          ))}
        </div>
      </fieldset>
      <label className="block">
        <span className="text-sm font-medium">Review (optional, Markdown)</span>
        <Textarea
          name="body"
          rows={3}
          maxLength={RECORD_LIMITS.reviewBodyMax}
          defaultValue={state.values?.body ?? ""}
          className="mt-1"
        />
      </label>
      {messages.length > 0 ? <Alert tone="error">{messages.join("; ")}</Alert> : null}
      <Button type="submit" loading={pending} loadingLabel="Sending…">
        Publish review
      </Button>
    </form>
  );
}
