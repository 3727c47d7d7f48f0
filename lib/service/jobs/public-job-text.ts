/**
 * Jobs' public wire forms, kept as JSON text by job version (read-job.ts, JOB_VERSION): what
 * everyone who is not a party to a job reads of it in a list (presentJob for a non-party, and the
 * job's bidCount) is a function of those rows alone, so it is built and serialised once per
 * version and not again for each of the thousands of polls that list the same job. A changed job,
 * poster or agent has another version, so a kept text is never out of date; a party's view (its
 * private fields) is never kept.
 *
 * Bounded: at most MAX_KEPT texts per process (about 2 kB each), the oldest forgotten first.
 */
const MAX_KEPT = 10_000;
const kept = new Map<string, string>();

const keyOf = (id: string, version: string) => `${id}@${version}`;

export function keptPublicJobText(id: string, version: string): string | undefined {
  return kept.get(keyOf(id, version));
}

export function keepPublicJobText(id: string, version: string, text: string): void {
  const key = keyOf(id, version);
  if (kept.has(key)) return;
  if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
  kept.set(key, text);
}
