import {
  BaseError,
  ContractFunctionRevertedError,
  HttpRequestError,
  InsufficientFundsError,
  RpcRequestError,
  TimeoutError,
  WebSocketRequestError,
  type Hex,
} from "viem";

/**
 * TX_FAILED may pass (a transport error, a timeout: try again); TX_PENDING is a transaction that
 * was signed and handed to the node whose fate the chain has not told yet (ask again, never sign
 * another); REVERTED is the contract refusing the call as asked (its simulation reverted, e.g.
 * InvalidRecipient): sending it again unchanged cannot succeed.
 */
export type EscrowErrorCode =
  "NOT_FUNDED" | "ALREADY_RELEASED" | "ALREADY_REFUNDED" | "ALREADY_SETTLED" | "TX_FAILED" | "TX_PENDING" | "REVERTED";

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

/**
 * True when the chain's state rules a settlement out for good (no deposit, settled another way, the
 * contract refuses the call as asked): the one test of "FAILED" for every settlement. A node's or
 * a transport's error never is: the outcome of a sent transaction is what the chain says of it.
 */
export function isFinalRefusal(error: unknown): boolean {
  return error instanceof EscrowError && error.code !== "TX_FAILED" && error.code !== "TX_PENDING";
}

/**
 * True when the error is the contract reverting (a deterministic refusal), not the transport
 * failing. viem reports any -32603 answer of a node or gateway ("upstream connect error") as a
 * revert, so only a revert that carries the contract's error data or says it reverted counts.
 */
export function isContractRevert(err: unknown): boolean {
  if (!(err instanceof BaseError)) return false;
  const revert = err.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(revert instanceof ContractFunctionRevertedError)) return false;
  if (revert.data || revert.signature) return true;
  return /revert/i.test(revert.reason ?? "");
}

/**
 * The one sanitiser at the chain boundary. viem's messages carry the RPC URL (whose path holds the
 * provider's key), the raw call data and the request body; none of that may reach a user (a held
 * reason, a settlement's lastError, an API message, the operator's console) or the database. This
 * maps any error of a chain call to a short reason: "the RPC did not answer", "reverted:
 * InvalidRecipient(0x…)", "the sending wallet cannot pay the gas". The full error goes to the
 * server's log only, from the caller that catches it.
 */
export function chainFailureReason(err: unknown): string {
  if (err instanceof BaseError) {
    const revert = err.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError) {
      if (revert.data?.errorName)
        return `reverted: ${revert.data.errorName}(${(revert.data.args ?? []).map(formatArg).join(", ")})`;
      if (revert.reason) return `reverted: ${scrubChainText(revert.reason)}`;
      // An error of another contract (the token's, bubbled up) that the escrow's ABI cannot name: its 4-byte selector.
      if (revert.signature) return `reverted: error ${revert.signature}`;
      return "reverted without a reason";
    }
    if (err.walk((e) => e instanceof TimeoutError)) return "the RPC did not answer in time";
    if (err.walk((e) => e instanceof InsufficientFundsError)) return "the sending wallet cannot pay the gas";
    if (err.walk((e) => e instanceof HttpRequestError || e instanceof WebSocketRequestError))
      return "the RPC did not answer";
    const rpc = err.walk((e) => e instanceof RpcRequestError);
    if (rpc instanceof RpcRequestError) return `the RPC refused the request (code ${rpc.code})`;
    return scrubChainText(err.shortMessage);
  }
  if (err instanceof EscrowError) return scrubChainText(err.message);
  if (
    err instanceof Error &&
    /fetch failed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|socket hang up/i.test(
      `${err.message} ${String((err as { cause?: unknown }).cause ?? "")}`,
    )
  )
    return "the RPC did not answer";
  return scrubChainText(err instanceof Error ? err.message : String(err));
}

/** Kept for its callers: the short reason of chainFailureReason (a contract's revert name is its whole text). */
export function errorText(err: unknown): string {
  if (err instanceof BaseError) {
    const revert = err.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError && revert.data?.errorName) return revert.data.errorName;
  }
  return chainFailureReason(err);
}

/**
 * True when a chain call failed because the RPC could not be reached or did not answer (not
 * because the chain refused it): the router answers 503 CHAIN_UNAVAILABLE for such an error.
 */
export function isChainUnavailable(err: unknown): boolean {
  return (
    err instanceof BaseError &&
    Boolean(
      err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError || e instanceof WebSocketRequestError),
    )
  );
}

/** First line, no URL (an RPC URL may hold a key), no long hex (raw call data), at most 200 characters. */
export function scrubChainText(text: string): string {
  const line = (text.split("\n")[0] ?? "")
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, "(URL hidden)")
    .replace(/0x[0-9a-fA-F]{65,}/g, "0x…");
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

function formatArg(value: unknown): string {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string") return value.length > 66 ? `${value.slice(0, 10)}…` : value;
  return scrubChainText(JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v)) ?? String(value));
}
