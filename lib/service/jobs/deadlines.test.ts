import { describe, expect, it } from "vitest";
import { JOB_LIMITS } from "@/lib/api/schemas/jobs";
import { refusalOf } from "../testing/rule-refusal";
import { assertDeadlinesAhead } from "./deadlines";

// Deadlines as they are written (docs/testing.md, "The pyramid"): pure, no database.

const NOW = new Date("2026-06-01T12:00:00.000Z");
const LEAD_MS = JOB_LIMITS.deadlineMinLeadMinutes * 60_000;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs).toISOString();

describe("a job's deadline", () => {
  it.each<[string, string | null | undefined, boolean]>([
    ["none given", undefined, true],
    ["cleared (null)", null, true],
    ["exactly the minimum lead ahead", at(LEAD_MS), true],
    ["a day ahead", at(86_400_000), true],
    ["a millisecond short of the minimum lead", at(LEAD_MS - 1), false],
    ["now", at(0), false],
    ["in the past", at(-60_000), false],
  ])("%s: accepted %s", (_what, deadlineAt, accepted) => {
    const refusal = refusalOf(() => assertDeadlinesAhead(NOW, { deadlineAt }));
    if (accepted) expect(refusal).toBeNull();
    else
      expect(refusal).toEqual({
        code: "VALIDATION_FAILED",
        messages: [
          `deadlineAt must be at least ${JOB_LIMITS.deadlineMinLeadMinutes} minutes from now (${at(LEAD_MS)} or later)`,
        ],
        extra: {},
      });
  });

  it("names the field as the caller calls it", () => {
    expect(refusalOf(() => assertDeadlinesAhead(NOW, { deadlineAt: at(0) }, { job: "deadline" }))?.messages[0]).toMatch(
      /^deadline must be at least/,
    );
  });
});

describe("a part's deadline", () => {
  it.each<[string, string | undefined, boolean]>([
    ["none given", undefined, true],
    ["a millisecond ahead (no minimum lead for a part)", at(1), true],
    ["now", at(0), false],
    ["in the past", at(-1), false],
  ])("%s: accepted %s", (_what, deadlineAt, accepted) => {
    const refusal = refusalOf(() => assertDeadlinesAhead(NOW, { milestones: [{ deadlineAt }] }));
    expect(refusal?.messages ?? null).toEqual(accepted ? null : ["milestones.0.deadlineAt must be in the future"]);
  });

  it("lists every problem at once, the job's first, each part by its index and the caller's field name", () => {
    const refusal = refusalOf(() =>
      assertDeadlinesAhead(
        NOW,
        {
          deadlineAt: at(-1),
          milestones: [{ deadlineAt: at(-1) }, { deadlineAt: at(LEAD_MS) }, { deadlineAt: at(0) }],
        },
        { parts: "plan" },
      ),
    );
    expect(refusal?.code).toBe("VALIDATION_FAILED");
    expect(refusal?.messages).toEqual([
      expect.stringMatching(/^deadlineAt must be at least/),
      "plan.0.deadlineAt must be in the future",
      "plan.2.deadlineAt must be in the future",
    ]);
  });
});
