import { BaseError, ContractFunctionRevertedError, type Hex } from "viem";

export type EscrowErrorCode = "NOT_FUNDED" | "ALREADY_RELEASED" | "ALREADY_REFUNDED" | "ALREADY_SETTLED" | "TX_FAILED";

/** A release, refund, deposit or transfer that did not happen; `code` says whether it never can. */
export class EscrowError extends Error {
  constructor(
    readonly code: EscrowErrorCode,
    message: string,
    readonly txHash?: Hex,
  ) {
    super(message);
    this.name = "EscrowError";
  }
}

/** The contract's revert reason when there is one (e.g. NotFunded), else viem's short message. */
export function errorText(err: unknown): string {
  if (err instanceof BaseError) {
    const revert = err.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError) return revert.data?.errorName ?? revert.shortMessage;
    return err.shortMessage;
  }
  return err instanceof Error ? err.message : String(err);
}
