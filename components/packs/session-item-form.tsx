"use client";

import { useActionState } from "react";
import { answerItemAction } from "@/lib/actions/packs/answer-item";
import { finalizeSessionAction } from "@/lib/actions/packs/finalize-session";
import type { FormState } from "@/lib/actions/form-state";
import type { EvalSessionItem } from "@/lib/api/schemas/evals";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Textarea } from "@/components/ui/field";

/**
 * The item a session serves, as one form: radios for multiple choice, a text box for a short
 * answer, a JSON text box for a structured task. Sent once; the page then shows the next item.
 */
export function SessionItemForm({
  attemptId,
  item,
  shownAt,
}: {
  attemptId: string;
  item: EvalSessionItem;
  shownAt: number;
}) {
  const [state, action, pending] = useActionState<FormState, FormData>(answerItemAction, {});
  return (
    <form action={action} key={`${item.position}-${state.attempt ?? 0}`} className="space-y-4">
      <input type="hidden" name="attemptId" value={attemptId} />
      <input type="hidden" name="position" value={item.position} />
      <input type="hidden" name="kind" value={item.kind} />
      <input type="hidden" name="shownAt" value={shownAt} />
      <fieldset className="rounded-xl border border-zinc-200 p-4 dark:border-zinc-800">
        <legend className="px-1 text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
          Item {item.position} of {item.of} · {item.section} · {item.points} point{item.points === 1 ? "" : "s"}
        </legend>
        <p className="text-sm font-medium whitespace-pre-wrap text-zinc-900 dark:text-zinc-100">{item.prompt}</p>
        {item.kind === "MULTIPLE_CHOICE" ? (
          <div className="mt-3 space-y-2">
            {item.choices.map((c) => (
              <label key={c.id} className="flex items-start gap-2 text-sm">
                <input
                  type="radio"
                  name="answer"
                  value={c.id}
                  defaultChecked={state.values?.answer === c.id}
                  className="mt-1"
                />
                <span>{c.text}</span>
              </label>
            ))}
          </div>
        ) : (
          <div className="mt-3">
            <Field
              name="answer"
              label={item.kind === "STRUCTURED" ? "Your answer (JSON)" : "Your answer"}
              error={state.fields?.answer}
              hint={item.kind === "STRUCTURED" ? "A JSON value in the shape the prompt asks for." : undefined}
            >
              {(p) => (
                <Textarea
                  {...p}
                  rows={item.kind === "STRUCTURED" ? 6 : 3}
                  defaultValue={state.values?.answer ?? ""}
                  className={item.kind === "STRUCTURED" ? "font-mono" : undefined}
                />
              )}
            </Field>
          </div>
        )}
        {item.kind === "MULTIPLE_CHOICE" && state.fields?.answer ? (
          <p className="mt-2 text-sm text-red-600 dark:text-red-400">{state.fields.answer.join(" ")}</p>
        ) : null}
      </fieldset>
      {item.answerBy ? (
        <p className="text-xs text-zinc-500 dark:text-zinc-400">
          Answer by <time dateTime={item.answerBy}>{new Date(item.answerBy).toLocaleTimeString()}</time>; a later answer
          is refused and the item scores nothing.
        </p>
      ) : null}
      {state.error ? (
        <Alert
          title="The answer was not accepted"
          error={{
            statusCode: state.status ?? 0,
            error: "",
            message: state.error.join("; "),
            messages: state.error,
            code: state.code,
          }}
        />
      ) : null}
      <Button type="submit" variant="primary" loading={pending} loadingLabel="Sending…">
        Submit answer
      </Button>
    </form>
  );
}

/** Ends the session (also early): the service scores it and the report follows. */
export function FinalizeSessionForm({
  attemptId,
  label = "Finish and see the report",
}: {
  attemptId: string;
  label?: string;
}) {
  const [state, action, pending] = useActionState<FormState, FormData>(finalizeSessionAction, {});
  return (
    <form action={action} className="space-y-3">
      <input type="hidden" name="attemptId" value={attemptId} />
      {state.error ? (
        <Alert
          title="The session could not be finished"
          error={{
            statusCode: state.status ?? 0,
            error: "",
            message: state.error.join("; "),
            messages: state.error,
            code: state.code,
          }}
        />
      ) : null}
      <Button type="submit" variant="secondary" loading={pending} loadingLabel="Scoring…">
        {label}
      </Button>
    </form>
  );
}
