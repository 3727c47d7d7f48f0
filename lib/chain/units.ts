import { formatUnits, parseUnits } from "viem";

// The one home of money rules, for the service and the dashboard alike (no server-only imports):
// USDC amounts are decimal strings on the wire, numeric(20,6) in the database and 6-decimal
// base units (bigint) on chain.

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

/**
 * The floor of every amount a person or agent sets: a budget, a bid, a part of a plan, a part scaled
 * to an accepted price. Paying is a real transfer whose gas the marketplace pays (about 0.001 to 0.01
 * USD on Base), so below 1 USDC the gas would be a visible share of the price, and a flood of dust
 * jobs would spend the operator's gas for nothing.
 */
export const MIN_PAYMENT_USDC = 1;
export const MIN_PAYMENT_UNITS = BigInt(MIN_PAYMENT_USDC) * 10n ** BigInt(USDC_DECIMALS);

/** True when `value` is a USDC amount of at least MIN_PAYMENT_USDC. */
export function isPayableAmount(value: string): boolean {
  return isUsdcAmount(value) && parseUsdc(value) >= MIN_PAYMENT_UNITS;
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

/** A split ruling's share of the agent before the fee: agentSharePercent of the gross, rounded down (the escrow's settleSplit takes it). */
export function agentShareOf(gross: bigint, agentSharePercent: number): bigint {
  return (gross * BigInt(agentSharePercent)) / 100n;
}

/**
 * Where a ruling sends an escrowed amount: the agent's share (agentSharePercent of the gross, the
 * escrow's rule for settleSplit; 100 pays the agent, 0 refunds the payer) less the fee, which comes
 * out of the agent's share only, and the rest back to the payer.
 */
export function rulingAmounts(
  gross: bigint,
  agentSharePercent: number,
  feeBps: number,
): { agentNet: bigint; fee: bigint; payer: bigint } {
  if (!Number.isInteger(agentSharePercent) || agentSharePercent < 0 || agentSharePercent > 100)
    throw new UsdcAmountError(`bad share ${agentSharePercent}`);
  const agentGross = agentShareOf(gross, agentSharePercent);
  const { net, fee } = splitFee(agentGross, feeBps);
  return { agentNet: net, fee, payer: gross - agentGross };
}

/**
 * A decimal from the database (numeric(20,6), or a count) as the wire's shortest decimal string,
 * without trailing zeros: "12.500000" -> "12.5", "5.000000" -> "5".
 */
export function normaliseDecimal(value: string | number): string {
  const text = String(value);
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}

/**
 * A USDC amount for people to read, exactly (no floating point): a decimal string such as
 * "1234.5", or base units as a bigint. Thousands separated, at least `minFractionDigits` fraction
 * digits, never more than the token has: "1,234.50". Text that is not an amount is shown as is.
 */
export function displayUsdc(
  amount: string | bigint | number,
  { minFractionDigits = 2 }: { minFractionDigits?: number } = {},
): string {
  let text: string;
  if (typeof amount === "bigint") {
    const negative = amount < 0n;
    const abs = (negative ? -amount : amount).toString().padStart(USDC_DECIMALS + 1, "0");
    text = `${negative ? "-" : ""}${abs.slice(0, -USDC_DECIMALS)}.${abs.slice(-USDC_DECIMALS)}`;
  } else {
    text = typeof amount === "number" ? amount.toFixed(USDC_DECIMALS) : amount.trim();
  }
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return String(amount);
  const [, sign, whole, fraction = ""] = match;
  const grouped = whole!.replace(/^0+(?=\d)/, "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  let frac = fraction.slice(0, USDC_DECIMALS).replace(/0+$/, "");
  if (frac.length < minFractionDigits) frac = frac.padEnd(minFractionDigits, "0");
  const isZero = /^0*$/.test(whole!) && /^0*$/.test(fraction);
  return `${isZero ? "" : sign}${grouped}${frac ? `.${frac}` : ""}`;
}
