// How long a worker leaves an item it could not finish (a release held by a failed check or a
// missing wallet, a transfer the chain refused) before it picks it again: one home for every
// picker that backs off, and for the one formula they share.

/** How long a worker holds an item it picked before another may pick it (a round that died leaves it for this long). */
export const PICK_LEASE_MS = 5 * 60_000;
/** The first wait after a hold; it doubles with each attempt. */
export const FIRST_RETRY_MS = 60_000;
/** The longest wait between two attempts. */
export const MAX_RETRY_MS = 60 * 60_000;

/** A backoff: the first wait, doubling with each attempt up to the longest. */
export interface RetrySchedule {
  firstMs: number;
  maxMs: number;
}

/** When an item held after its `attempts`-th attempt is tried again: by default 1, 2, 4 … minutes, at most an hour. */
export function nextAttemptAt(
  now: Date,
  attempts: number,
  schedule: RetrySchedule = { firstMs: FIRST_RETRY_MS, maxMs: MAX_RETRY_MS },
): Date {
  const wait = Math.min(schedule.maxMs, schedule.firstMs * 2 ** Math.max(0, Math.min(attempts - 1, 20)));
  return new Date(now.getTime() + wait);
}
