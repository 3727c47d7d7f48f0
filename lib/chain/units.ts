import { formatUnits, parseUnits } from "viem";

/** USDC has 6 decimals on every chain we use (Base, Base Sepolia, the local test token). */
export const USDC_DECIMALS = 6;

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

export class UsdcAmountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsdcAmountError";
  }
}

/**
 * A non-negative decimal string ("12", "0.19", "0.000001") to 6-decimal base units.
 * Refuses more than 6 fractional digits rather than rounding: a budget must mean exactly the
 * amount that moves on chain. No signs, exponents, separators or surrounding spaces.
 */
export function parseUsdc(value: string): bigint {
  const m = DECIMAL.exec(value);
  if (!m) throw new UsdcAmountError(`not a USDC decimal amount: ${JSON.stringify(value)}`);
  if ((m[2]?.length ?? 0) > USDC_DECIMALS) {
    throw new UsdcAmountError(`USDC has at most ${USDC_DECIMALS} decimals: ${JSON.stringify(value)}`);
  }
  return parseUnits(value, USDC_DECIMALS);
}

/** 6-decimal base units to the shortest decimal string: 190000n -> "0.19", 5000000n -> "5". */
export function formatUsdc(units: bigint): string {
  return formatUnits(units, USDC_DECIMALS);
}

/** True when `value` is a decimal string parseUsdc accepts. */
export function isUsdcAmount(value: string): boolean {
  const m = DECIMAL.exec(value);
  return m !== null && (m[2]?.length ?? 0) <= USDC_DECIMALS;
}

/**
 * The escrow contract's split of a gross amount, computed the same way on chain
 * (fee rounds down): 0.20 at 500 bps gives fee 0.01, net 0.19; 0.05 gives 0.0025 and 0.0475.
 */
export function splitFee(gross: bigint, feeBps: number): { net: bigint; fee: bigint } {
  if (gross < 0n) throw new UsdcAmountError("negative amount");
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps > 10_000) throw new UsdcAmountError(`bad feeBps ${feeBps}`);
  const fee = (gross * BigInt(feeBps)) / 10_000n;
  return { net: gross - fee, fee };
}
