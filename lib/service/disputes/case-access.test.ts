import { describe, expect, it } from "vitest";
import type { DisputeCaseStatus } from "../db/schema";
import { refusalOf } from "../testing/rule-refusal";
import { arbiterOf, canRule, requireCaseReader, type CaseAccess } from "./case-access";

// Who rules a dispute now and who may read it (docs/testing.md, "The pyramid"): pure, from the
// caller's access. Who the caller is (caseAccessOf) reads the database and is tested over HTTP in
// disputes.test.ts.

const EVALUATOR = "0x00000000000000000000000000000000000000e1";
const ESCALATED = new Date("2026-06-01T12:00:00.000Z");
const kase = (evaluator: string | null, status: DisputeCaseStatus, escalatedAt: Date | null = null) => ({
  evaluator_address: evaluator,
  status,
  escalated_at: escalatedAt,
});
const access = (over: Partial<CaseAccess>): CaseAccess => ({ side: null, evaluator: false, operator: false, ...over });

describe("arbiterOf", () => {
  it.each<[string, ReturnType<typeof kase>, "EVALUATOR" | "OPERATOR"]>([
    ["an open case with an evaluator", kase(EVALUATOR, "OPEN"), "EVALUATOR"],
    ["an open case without one", kase(null, "OPEN"), "OPERATOR"],
    ["a case escalated past its deadline", kase(EVALUATOR, "ESCALATED", ESCALATED), "OPERATOR"],
    ["an escalated case without an evaluator", kase(null, "ESCALATED", ESCALATED), "OPERATOR"],
  ])("%s: %s", (_what, c, arbiter) => {
    expect(arbiterOf(c)).toBe(arbiter);
  });
});

describe("canRule", () => {
  const withEvaluator = kase(EVALUATOR, "OPEN");
  const escalated = kase(EVALUATOR, "ESCALATED", ESCALATED);
  const noEvaluator = kase(null, "OPEN");
  it.each<[string, CaseAccess, ReturnType<typeof kase>, boolean]>([
    ["the evaluator of an open case", access({ evaluator: true }), withEvaluator, true],
    ["the operator while the evaluator rules", access({ operator: true }), withEvaluator, false],
    ["the operator of an escalated case", access({ operator: true }), escalated, true],
    ["the evaluator once the case escalated", access({ evaluator: true }), escalated, false],
    ["the operator where no evaluator was named", access({ operator: true }), noEvaluator, true],
    ["someone with no part in it", access({}), noEvaluator, false],
    // Never a party: a poster who named itself evaluator, an operator who owns a side.
    ["the poster who is also the evaluator", access({ side: "POSTER", evaluator: true }), withEvaluator, false],
    ["the agent's side who is also the operator", access({ side: "AGENT", operator: true }), noEvaluator, false],
    ["the evaluator of a case already RULED", access({ evaluator: true }), kase(EVALUATOR, "RULED"), false],
    ["the operator of a case already RULED", access({ operator: true }), kase(null, "RULED"), false],
  ])("%s: %s", (_what, who, c, allowed) => {
    expect(canRule(who, c)).toBe(allowed);
  });
});

describe("requireCaseReader", () => {
  it.each<[string, CaseAccess]>([
    ["the poster's side", access({ side: "POSTER" })],
    ["the agent's side", access({ side: "AGENT" })],
    ["the evaluator", access({ evaluator: true })],
    ["the operator", access({ operator: true })],
  ])("lets %s read the case", (_what, who) => {
    expect(refusalOf(() => requireCaseReader(who))).toBeNull();
  });

  it("refuses anyone else (403 FORBIDDEN)", () => {
    expect(refusalOf(() => requireCaseReader(access({})))).toEqual({
      code: "FORBIDDEN",
      messages: ["a dispute is read by its parties, the job's evaluator and the operator only"],
      extra: {},
    });
  });
});
