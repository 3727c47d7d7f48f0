import { describe, expect, it } from "vitest";
import { FIRST_RETRY_MS, MAX_RETRY_MS, nextAttemptAt } from "./retry-backoff";

// How long a worker leaves an item it could not finish (docs/testing.md, "The pyramid"): pure.

const NOW = new Date("2026-06-01T12:00:00.000Z");
const MINUTE = 60_000;

describe("nextAttemptAt: 1, 2, 4 … minutes, at most an hour", () => {
  it.each<[number, number]>([
    [0, 1], // never tried yet: the first wait
    [1, 1],
    [2, 2],
    [3, 4],
    [6, 32],
    [7, 60], // 64 minutes, capped at the hour
    [20, 60],
    [1_000, 60], // no overflow to Infinity
    [-1, 1],
  ])("after attempt %i: %i minute(s)", (attempts, minutes) => {
    expect(nextAttemptAt(NOW, attempts).getTime() - NOW.getTime()).toBe(minutes * MINUTE);
  });

  it("starts at FIRST_RETRY_MS and never passes MAX_RETRY_MS", () => {
    expect(FIRST_RETRY_MS).toBe(MINUTE);
    expect(MAX_RETRY_MS).toBe(60 * MINUTE);
  });
});
