import { describe, expect, it } from "vitest";
import {
  displayUsdc,
  formatUsdc,
  isUsdcAmount,
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
