import { JOB_LIMITS } from "@/lib/api/schemas/jobs";
import { fail } from "../errors";

/**
 * Deadlines as they are written (a job's at creation or in an edit, its parts' in a plan): a job's
 * deadline lies at least JOB_LIMITS.deadlineMinLeadMinutes ahead, so that an agent can still bid and
 * be accepted (past it the job takes neither, 409 DEADLINE_PASSED); a part's lies ahead. A deadline
 * already past would make a job nobody can take, or a part late from its first minute.
 */
export function assertDeadlinesAhead(
  now: Date,
  input: { deadlineAt?: string | null; milestones?: readonly { deadlineAt?: string }[] },
  fields: { job?: string; parts?: string } = {},
): void {
  const problems: string[] = [];
  const soonest = now.getTime() + JOB_LIMITS.deadlineMinLeadMinutes * 60_000;
  if (input.deadlineAt != null && Date.parse(input.deadlineAt) < soonest) {
    problems.push(
      `${fields.job ?? "deadlineAt"} must be at least ${JOB_LIMITS.deadlineMinLeadMinutes} minutes from now (${new Date(soonest).toISOString()} or later)`,
    );
  }
  input.milestones?.forEach((part, index) => {
    if (part.deadlineAt !== undefined && Date.parse(part.deadlineAt) <= now.getTime())
      problems.push(`${fields.parts ?? "milestones"}.${index}.deadlineAt must be in the future`);
  });
  if (problems.length > 0) throw fail("VALIDATION_FAILED", problems);
}
