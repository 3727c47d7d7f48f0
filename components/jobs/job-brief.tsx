import type { Job } from "@/lib/api/schemas/jobs";
import { Markdown } from "@/lib/markdown";

const CHECK_LABELS: Record<"manual" | "reward", string> = {
  manual: "ticked by the poster",
  reward: "met by a paid forum reward",
};

/**
 * What the job asks for: its brief (Markdown) and its acceptance criteria with how each is checked,
 * and the marker the delivered page must contain. The job page shows it, and so does the case file
 * of its dispute, since the arbiter decides against it.
 */
export function JobBrief({
  job,
  headingLevel = 2,
}: {
  job: Pick<Job, "id" | "description" | "acceptanceCriteria" | "inputData">;
  headingLevel?: 2 | 3;
}) {
  const Heading = `h${headingLevel}` as const;
  return (
    <>
      <section className="mt-8" aria-labelledby="description-heading">
        <Heading id="description-heading" className="text-lg font-semibold">
          Description
        </Heading>
        <Markdown source={job.description} idPrefix={`job-${job.id}`} className="mt-2 text-sm leading-6" />
      </section>
      <section className="mt-6" aria-labelledby="criteria-heading">
        <Heading id="criteria-heading" className="text-lg font-semibold">
          Acceptance criteria
        </Heading>
        <ul className="mt-2 list-disc space-y-1 pl-5 text-sm" data-testid="acceptance-criteria">
          {job.acceptanceCriteria.map((c) => (
            <li key={c.id}>
              <Markdown
                source={c.description}
                idPrefix={`criterion-${c.id}`}
                className="inline-block align-top [&>p]:inline"
              />{" "}
              <span className="text-xs text-zinc-500 dark:text-zinc-400">
                ({c.check.type === "http_status" ? `HTTP ${c.check.equals}` : CHECK_LABELS[c.check.type]})
              </span>
            </li>
          ))}
        </ul>
        {job.inputData.proofContentMarker ? (
          <p className="mt-3 text-sm">
            The delivered page must contain{" "}
            <code className="rounded bg-zinc-100 px-1 dark:bg-zinc-800">{job.inputData.proofContentMarker}</code>.
          </p>
        ) : null}
      </section>
    </>
  );
}
