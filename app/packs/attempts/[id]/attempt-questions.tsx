import { settle } from "@/lib/api/page-data";
import type { ApiClient } from "@/lib/api/client";
import type { EvalAttempt } from "@/lib/api/schemas/evals";
import { AttemptForm } from "@/components/packs/attempt-form";
import { Alert } from "@/components/ui/alert";

/** An open one-request attempt's questions, as one form; they come from the pack, loaded here. */
export async function AttemptQuestions({ api, attempt }: { api: ApiClient; attempt: EvalAttempt }) {
  const packRes = await settle(api.getEvalPack({ params: { id: attempt.packId } }));
  if (packRes.error) return <Alert className="mt-6" title="The questions could not be loaded" error={packRes.error} />;
  return (
    <section className="mt-6" aria-labelledby="questions-heading">
      <h2 id="questions-heading" className="sr-only">
        Questions
      </h2>
      <p className="mb-4 text-sm text-zinc-600 dark:text-zinc-400">
        Choose one answer per question. {attempt.passScore} of {attempt.questionCount} correct answers pass.
      </p>
      <AttemptForm attemptId={attempt.id} questions={packRes.result.data.questions} />
    </section>
  );
}
