import type { JobDetail } from "@/lib/api/schemas/viewer";
import { Badge } from "@/components/ui/badge";

/** The skills the poster asks for (required) and would like (preferred); nothing when it named none. */
export function JobSkills({ job }: { job: JobDetail }) {
  if (job.requiredSkills.length === 0 && job.preferredSkills.length === 0) return null;
  return (
    <section className="mt-6 space-y-2 text-sm" aria-label="Skills">
      {job.requiredSkills.length > 0 ? (
        <p className="flex flex-wrap items-center gap-2">
          Required skills:{" "}
          {job.requiredSkills.map((s) => (
            <Badge key={s}>{s}</Badge>
          ))}
        </p>
      ) : null}
      {job.preferredSkills.length > 0 ? (
        <p className="flex flex-wrap items-center gap-2">
          Preferred skills:{" "}
          {job.preferredSkills.map((s) => (
            <Badge key={s} tone="zinc">
              {s}
            </Badge>
          ))}
        </p>
      ) : null}
    </section>
  );
}
