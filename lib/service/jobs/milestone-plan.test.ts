import { describe, expect, it } from "vitest";
import { formatUsdc, MIN_PAYMENT_UNITS, parseUsdc } from "@/lib/chain/units";
import { refusalOf } from "../testing/rule-refusal";
import { assertPlanFitsBudget, assertScaledPlanPayable, scaledAmounts } from "./milestone-plan";

// The arithmetic of a milestone plan (docs/testing.md, "The pyramid"): pure, in token units.

const plan = (...amounts: string[]) => amounts.map((amountUsdc) => ({ amountUsdc }));

describe("assertPlanFitsBudget", () => {
  it.each<[string, string[], string]>([
    ["no plan (a job paid whole)", [], "12"],
    ["one part of the whole budget", ["12"], "12"],
    ["parts adding up exactly", ["1", "2.5", "8.5"], "12"],
    ["six decimals adding up to the unit", ["0.000001", "0.999999"], "1"],
    ["a budget written with trailing zeros", ["5", "5"], "10.000000"],
    ["large amounts, exact (no floating point)", ["99999999999999.999999", "0.000001"], "100000000000000"],
  ])("accepts %s", (_what, amounts, budget) => {
    expect(refusalOf(() => assertPlanFitsBudget(plan(...amounts), budget))).toBeNull();
  });

  it.each<[string, string[], string, string]>([
    ["a unit short", ["5", "6.999999"], "12", "11.999999"],
    ["a unit over", ["5", "7.000001"], "12", "12.000001"],
    ["a zero part that leaves the sum short", ["0", "11"], "12", "11"],
  ])("refuses parts %s of the budget, with both sums", (_what, amounts, budget, sum) => {
    expect(refusalOf(() => assertPlanFitsBudget(plan(...amounts), budget))).toEqual({
      code: "VALIDATION_FAILED",
      messages: [
        `milestones must add up to the budget: the amounts add up to ${sum} USDC, the budget is ${budget} USDC`,
      ],
      extra: {},
    });
  });

  it("refuses every amount that is not a USDC amount, by index, before adding anything up", () => {
    expect(refusalOf(() => assertPlanFitsBudget(plan("1.0000001", "2", "-1", "1e3"), "3", "plan"))?.messages).toEqual([
      "plan.0.amountUsdc must be a USDC amount with at most 6 decimals",
      "plan.2.amountUsdc must be a USDC amount with at most 6 decimals",
      "plan.3.amountUsdc must be a USDC amount with at most 6 decimals",
    ]);
  });
});

describe("scaledAmounts", () => {
  const u = (...amounts: string[]) => amounts.map(parseUsdc);
  it.each<[string, bigint[], bigint, bigint[]]>([
    ["the same price: unchanged", u("3", "7"), parseUsdc("10"), u("3", "7")],
    ["double the price: each part doubled", u("3", "7"), parseUsdc("20"), u("6", "14")],
    ["half the price: each part halved", u("3", "7"), parseUsdc("5"), u("1.5", "3.5")],
    // 10 split in three at 9 units: 3.333333 and 3.333333 rounded down, the last takes the rest.
    [
      "a price that does not divide: the last part takes what rounding left",
      u("3", "3", "3"),
      parseUsdc("10"),
      u("3.333333", "3.333333", "3.333334"),
    ],
    ["one unit more", u("1", "1"), parseUsdc("2") + 1n, [1_000_000n, 1_000_001n]],
    ["one part: the whole price", u("4"), parseUsdc("9.5"), u("9.5")],
    ["a plan of nothing: left as it is", [0n, 0n], parseUsdc("5"), [0n, 0n]],
    ["no parts", [], parseUsdc("5"), []],
  ])("%s", (_what, amounts, price, expected) => {
    const scaled = scaledAmounts(amounts, price);
    expect(scaled).toEqual(expected);
    if (amounts.some((a) => a > 0n)) expect(scaled.reduce((a, b) => a + b, 0n)).toBe(price);
  });
});

describe("assertScaledPlanPayable", () => {
  it.each<[string, string[], string]>([
    ["no plan", [], "0.5"],
    ["a price that keeps every part at exactly 1 USDC", ["2", "2"], "2"],
    ["the plan's own total", ["1", "9"], "10"],
    ["a higher price", ["1", "9"], "100"],
  ])("accepts %s", (_what, amounts, price) => {
    expect(refusalOf(() => assertScaledPlanPayable(amounts, price))).toBeNull();
  });

  it("refuses a price that scales a part a unit below 1 USDC, naming the part, its amount and the floor", () => {
    // 1 and 9 scaled to 9.99999: the first part becomes 0.999999.
    expect(refusalOf(() => assertScaledPlanPayable(["1", "9"], "9.999990"))).toEqual({
      code: "VALIDATION_FAILED",
      messages: [
        "proposedUsdc 9.99999 would scale part 1 of the job's plan to 0.999999 USDC, below the 1 USDC every part must be: bid more, or propose a plan of your own (milestones)",
      ],
      extra: {},
    });
  });

  it("names the first part that falls short, and the caller's field", () => {
    const refusal = refusalOf(() => assertScaledPlanPayable(["5", "1", "1"], "3.5", "the accepted price"));
    expect(refusal?.messages[0]).toMatch(/^the accepted price 3\.5 would scale part 2 of the job's plan to 0\.5 USDC/);
  });

  it("holds the floor at MIN_PAYMENT_UNITS, a unit either side", () => {
    // Two equal parts: a price of twice the part.
    const priceFor = (part: bigint) => formatUsdc(part * 2n);
    expect(refusalOf(() => assertScaledPlanPayable(["1", "1"], priceFor(MIN_PAYMENT_UNITS)))).toBeNull();
    expect(refusalOf(() => assertScaledPlanPayable(["1", "1"], priceFor(MIN_PAYMENT_UNITS - 1n)))?.code).toBe(
      "VALIDATION_FAILED",
    );
  });
});
