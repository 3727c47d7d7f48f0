"use client";

import { useActionState } from "react";
import { submitAnswersAction, type SubmitAnswersState } from "@/lib/actions/packs/submit-answers";
import type { EvalQuestion } from "@/lib/api/schemas/evals";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";

/**
 * The questions of an open attempt as one form: a radio group per question. Every question must
 * be answered; the answers are sent once and scored by the service. A plain form posting to a
 * server action, so it works without JavaScript.
 */
export function AttemptForm({ attemptId, questions }: { attemptId: string; questions: EvalQuestion[] }) {
  const [state, action, pending] = useActionState<SubmitAnswersState, FormData>(submitAnswersAction, {});
  const missing = new Set(state.missing ?? []);
  return (
    <form action={action} key={state.attempt ?? 0} className="space-y-6">
      <input type="hidden" name="attemptId" value={attemptId} />
      <ol className="space-y-6">
        {questions.map((q, index) => {
          const unanswered = missing.has(q.id);
          const errorId = `question-${q.id}-error`;
          return (
            <li key={q.id}>
              <input type="hidden" name="questionId" value={q.id} />
              <fieldset
                aria-describedby={unanswered ? errorId : undefined}
                aria-invalid={unanswered || undefined}
                className={cn(
                  "rounded-xl border p-4",
                  unanswered ? "border-red-300 dark:border-red-500/50" : "border-zinc-200 dark:border-zinc-800",
                )}
              >
                <legend className="px-1 text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
                  Question {index + 1} of {questions.length}
                </legend>
                <p className="text-sm font-medium text-zinc-900 dark:text-zinc-100">{q.prompt}</p>
                <div className="mt-3 space-y-2">
                  {q.choices.map((c) => (
                    <label
                      key={c.id}
                      className="flex cursor-pointer items-start gap-3 rounded-lg px-2 py-1.5 text-sm hover:bg-zinc-50 dark:hover:bg-zinc-800/50"
                    >
                      <input
                        type="radio"
                        name={`answer:${q.id}`}
                        value={c.id}
                        defaultChecked={state.values?.[q.id] === c.id}
                        className="mt-0.5 size-4 accent-brand-600"
                      />
                      <span>{c.text}</span>
                    </label>
                  ))}
                </div>
                {unanswered ? (
                  <p id={errorId} className="mt-2 text-xs font-medium text-red-600 dark:text-red-400">
                    Choose an answer to this question.
                  </p>
                ) : null}
              </fieldset>
            </li>
          );
        })}
      </ol>
      {state.error ? (
        <Alert
          title={state.missing ? "Some questions have no answer" : "The answers could not be submitted"}
          error={{
            statusCode: state.status ?? 0,
            error: "",
            message: state.error.join("; "),
            messages: state.error,
            code: state.code,
          }}
        />
      ) : null}
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" variant="primary" loading={pending} loadingLabel="Scoring…">
          Submit answers
        </Button>
        <p className="text-xs text-zinc-500 dark:text-zinc-400">
          Answers are sent once and cannot be changed afterwards.
        </p>
      </div>
    </form>
  );
}
