import { describe, expect, it } from "vitest";
import {
  agentShareOf,
  displayUsdc,
  formatUsdc,
  isPayableAmount,
  isUsdcAmount,
  MIN_PAYMENT_UNITS,
  MIN_PAYMENT_USDC,
  normaliseDecimal,
  parseUsdc,
  rulingAmounts,
  splitFee,
  UsdcAmountError,
} from "./units";

describe("USDC units", () => {
  it("parses decimal strings into 6-decimal units", () => {
    expect(parseUsdc("0")).toBe(0n);
    expect(parseUsdc("12")).toBe(12_000_000n);
    expect(parseUsdc("0.19")).toBe(190_000n);
    expect(parseUsdc("0.000001")).toBe(1n);
    expect(parseUsdc("10000.5")).toBe(10_000_500_000n);
  });

  it("refuses more than 6 decimals instead of rounding, and anything not a plain decimal", () => {
    for (const bad of ["0.0000001", "1.1234567", "", " 1", "1 ", "-1", "+1", "1e6", ".5", "5.", "1,5", "0x10", "abc"]) {
      expect(() => parseUsdc(bad), bad).toThrow(UsdcAmountError);
      expect(isUsdcAmount(bad), bad).toBe(false);
    }
    expect(isUsdcAmount("0.123456")).toBe(true);
  });

  it("formats units as the shortest decimal string and round-trips", () => {
    expect(formatUsdc(190_000n)).toBe("0.19");
    expect(formatUsdc(5_000_000n)).toBe("5");
    expect(formatUsdc(1n)).toBe("0.000001");
    for (const s of ["0.19", "12.5", "0.0475", "10000"]) expect(formatUsdc(parseUsdc(s))).toBe(s);
  });

  it("splits a fee the way the contract does (rounding the fee down)", () => {
    expect(splitFee(parseUsdc("0.20"), 500)).toEqual({ net: parseUsdc("0.19"), fee: parseUsdc("0.01") });
    expect(splitFee(parseUsdc("0.05"), 500)).toEqual({ net: parseUsdc("0.0475"), fee: parseUsdc("0.0025") });
    expect(splitFee(19n, 500)).toEqual({ net: 19n, fee: 0n });
    expect(splitFee(100n, 0)).toEqual({ net: 100n, fee: 0n });
  });

  it("normalises database decimals to the wire's shortest string", () => {
    expect(normaliseDecimal("12.500000")).toBe("12.5");
    expect(normaliseDecimal("5.000000")).toBe("5");
    expect(normaliseDecimal("0.000001")).toBe("0.000001");
    expect(normaliseDecimal("120")).toBe("120");
    expect(normaliseDecimal(3)).toBe("3");
  });

  it("displays amounts exactly, grouped, with two fraction digits at least", () => {
    expect(displayUsdc("1234.5")).toBe("1,234.50");
    expect(displayUsdc(1_234_500_000n)).toBe("1,234.50");
    expect(displayUsdc("0.000001")).toBe("0.000001");
    expect(displayUsdc(-190_000n)).toBe("-0.19");
    expect(displayUsdc("12", { minFractionDigits: 0 })).toBe("12");
    expect(displayUsdc("not money")).toBe("not money");
  });
});

describe("a ruling's amounts", () => {
  it("splits the gross: the agent's share less the fee (from its share only), the rest to the payer", () => {
    const gross = parseUsdc("40");
    expect(rulingAmounts(gross, 100, 500)).toEqual({ agentNet: parseUsdc("38"), fee: parseUsdc("2"), payer: 0n });
    expect(rulingAmounts(gross, 0, 500)).toEqual({ agentNet: 0n, fee: 0n, payer: gross });
    expect(rulingAmounts(gross, 30, 500)).toEqual({
      agentNet: parseUsdc("11.4"),
      fee: parseUsdc("0.6"),
      payer: parseUsdc("28"),
    });
    // Rounded down to the unit, as the escrow does; nothing is lost between the three.
    const odd = rulingAmounts(1_000_001n, 33, 500);
    expect(odd.agentNet + odd.fee + odd.payer).toBe(1_000_001n);
    expect(() => rulingAmounts(gross, 101, 500)).toThrow();
  });
});

// The boundaries of every money rule, as a table (docs/testing.md, "The pyramid").
describe("the floor of every amount: isPayableAmount", () => {
  it.each<[string, boolean]>([
    ["1", true],
    ["1.0", true],
    ["1.000000", true],
    ["1.000001", true],
    ["0.999999", false],
    ["0", false],
    ["0.000001", false],
    ["1.0000001", false],
    ["-1", false],
    ["-5", false],
    ["", false],
    ["1e6", false],
    ["99999999999999.999999", true],
  ])("%s: %s", (value, payable) => {
    expect(isPayableAmount(value)).toBe(payable);
  });

  it("is MIN_PAYMENT_USDC in base units", () => {
    expect(MIN_PAYMENT_UNITS).toBe(parseUsdc(String(MIN_PAYMENT_USDC)));
    expect(MIN_PAYMENT_UNITS).toBe(1_000_000n);
  });
});

describe("amounts at the edges", () => {
  it("keeps the largest numeric(20,6) amount exact, and larger ones too (bigint: no overflow, no float)", () => {
    expect(parseUsdc("99999999999999.999999")).toBe(99_999_999_999_999_999_999n);
    expect(formatUsdc(99_999_999_999_999_999_999n)).toBe("99999999999999.999999");
    expect(parseUsdc("123456789012345678901234567890")).toBe(123456789012345678901234567890_000000n);
    // 2^53 + 1 units, where a float would round.
    expect(formatUsdc(9_007_199_254_740_993n)).toBe("9007199254.740993");
    expect(displayUsdc(9_007_199_254_740_993n)).toBe("9,007,199,254.740993");
  });

  it.each<[string, number, { net: bigint; fee: bigint }]>([
    ["0 at 500 bps", 0, { net: 0n, fee: 0n }],
    ["1 unit at 500 bps: no fee (rounded down)", 1, { net: 1n, fee: 0n }],
    ["exactly 1 USDC at 500 bps", 1_000_000, { net: 950_000n, fee: 50_000n }],
    ["20 units at 500 bps: the first unit of fee", 20, { net: 19n, fee: 1n }],
  ])("splitFee: %s", (_what, gross, expected) => {
    expect(splitFee(BigInt(gross), 500)).toEqual(expected);
  });

  it.each<[number, { net: bigint; fee: bigint }]>([
    [0, { net: 1_000_000n, fee: 0n }],
    [1, { net: 999_900n, fee: 100n }],
    [10_000, { net: 0n, fee: 1_000_000n }],
  ])("splitFee of 1 USDC at %i bps", (bps, expected) => {
    expect(splitFee(1_000_000n, bps)).toEqual(expected);
  });

  it.each([-1, 10_001, 2.5, Number.NaN])("refuses a fee of %s bps", (bps) => {
    expect(() => splitFee(1_000_000n, bps)).toThrow(UsdcAmountError);
  });

  it("refuses a negative gross", () => {
    expect(() => splitFee(-1n, 500)).toThrow(new UsdcAmountError("negative amount"));
  });

  it.each<[number, bigint]>([
    [0, 0n],
    [1, 10_000n],
    [33, 330_000n],
    [100, 1_000_000n],
  ])("agentShareOf 1 USDC at %i%%", (percent, share) => {
    expect(agentShareOf(1_000_000n, percent)).toBe(share);
  });

  it.each([-1, 101, 50.5])("rulingAmounts refuses a share of %s%%", (percent) => {
    expect(() => rulingAmounts(1_000_000n, percent, 500)).toThrow(UsdcAmountError);
  });
});
