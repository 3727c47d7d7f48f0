import {
  BaseError,
  ContractFunctionRevertedError,
  HttpRequestError,
  InsufficientFundsError,
  RpcRequestError,
  TimeoutError,
  UserRejectedRequestError,
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
  | "NOT_FUNDED"
  | "ALREADY_RELEASED"
  | "ALREADY_REFUNDED"
  | "ALREADY_SETTLED"
  | "TX_FAILED"
  | "TX_PENDING"
  | "REVERTED"
  /** Version 2: the slot's expiry is within the settling margin (or past): it returns by claimRefund. */
  | "SLOT_EXPIRING"
  /** Version 2: the slot pays an agent the service did not record, and no move of the agent's own leads there. */
  | "AGENT_MISMATCH";

/** A release, refund, deposit or transfer that did not happen; `code` says whether it never can. */
export class EscrowError extends Error {
  constructor(
    readonly code: EscrowErrorCode,
    message: string,
    readonly txHash?: Hex,
    /** REVERTED: the contract's error name (InvalidSignature, AgentAlreadyAssigned, ...), for callers that answer by it. */
    readonly contractError?: string,
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
 * maps any error of a chain call to a short reason: "the RPC did not answer", "the contract
 * refused: the escrow does not pay 0x…: that address cannot receive the money (InvalidRecipient)",
 * "the sending wallet cannot pay the gas". The full error goes to the
 * server's log only, from the caller that catches it.
 */
export function chainFailureReason(err: unknown): string {
  if (err instanceof BaseError) {
    const revert = err.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError) {
      if (revert.data?.errorName)
        return `the contract refused: ${contractErrorSentence(revert.data.errorName, revert.data.args ?? [])} (${revert.data.errorName})`;
      // An error of another contract that no ABI here names: said so, never its 4-byte selector.
      if (revert.signature) return "the contract refused the call with an error of another contract it does not name";
      if (revert.reason && /revert/i.test(revert.reason))
        return `the contract refused: ${scrubChainText(revert.reason)}`;
      // viem reports a node's or a gateway's error answer to a call (-32603 "upstream connect
      // error") as a revert without data: it is the RPC's, and its text is never shown.
      if (revert.reason || revert.data === undefined) return "the RPC answered an error instead of a result";
      return "the contract refused the call without a reason";
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

/**
 * The escrow's and the token's custom errors in plain words, from their decoded arguments (viem
 * decodes them with the contracts' ABIs): what a person reads instead of a name or a selector.
 */
const CONTRACT_ERRORS: Record<string, (args: readonly unknown[]) => string> = {
  NotOperator: () => "only the marketplace's operator may do this",
  ZeroAddress: () => "an address is missing (the zero address)",
  ZeroJobId: () => "the job's escrow id is missing",
  ZeroAmount: () => "the amount is zero",
  FeeTooHigh: () => "the fee is set higher than the contract allows",
  AlreadyDeposited: () =>
    "this wallet has already deposited for this job (the escrow keeps one deposit per job and wallet): nothing more is needed",
  NotFunded: () =>
    "the escrow holds no deposit for this job from that wallet (it was never made, or is already settled)",
  // Version 2 (contracts/EscrowV2.sol): the slot's agent, its expiry, the parties' signatures.
  NotOperatorOrPayer: () => "only the marketplace's operator or the payer may release this deposit",
  NotOperatorOrAgent: () => "only the marketplace's operator or the assigned agent may refund this deposit",
  NotAgent: ([caller, agent]) => `only the slot's agent ${formatArg(agent)} may move it, not ${formatArg(caller)}`,
  SlotExpired: ([, , expiresAt]) =>
    `the deposit expired at ${when(expiresAt)}: the operator can no longer settle it, and it returns to the payer through claimRefund`,
  NotExpiredYet: ([, , expiresAt]) =>
    `the deposit does not expire before ${when(expiresAt)}: it cannot be reclaimed yet`,
  AgentNotAssigned: () => "no agent is assigned to this deposit yet: the payer assigns one when accepting the work",
  AgentAlreadyAssigned: ([, , agent]) => `this deposit already pays the agent ${formatArg(agent)}; it is assigned once`,
  InvalidAgent: ([agent]) => `${formatArg(agent)} cannot be the agent of a deposit (the zero address or the escrow)`,
  SignatureExpired: ([deadline]) => `the signature expired at ${when(deadline)}: sign again`,
  InvalidSignature: ([signer]) => `the signature is not ${formatArg(signer)}'s for this job, agent and deadline`,
  WrongNonce: ([expected, given]) =>
    `the signature carries nonce ${formatArg(given)}, the slot expects ${formatArg(expected)}`,
  NonceNotBoundToDeposit: () => "the deposit authorization was signed for another job or expiry",
  ExpiryTooSoon: ([, earliest]) => `the expiry must be at ${when(earliest)} or later`,
  ExpiryTooLate: ([, latest]) => `the expiry must be at ${when(latest)} or earlier`,
  ExpiryNotLater: ([, current]) => `the new expiry must come after the current one (${when(current)})`,
  EnforcedPause: () => "the escrow is paused by its owner: settlements by the operator wait until it is unpaused",
  InvalidRecipient: ([to]) => `the escrow does not pay ${formatArg(to)}: that address cannot receive the money`,
  ShareTooLarge: ([share, deposit]) =>
    `the agent's share (${units(share)} USDC) is larger than the deposit (${units(deposit)} USDC)`,
  AmountMismatch: ([expected, received]) =>
    `the amount does not match: ${units(expected)} USDC expected, ${units(received)} USDC received`,
  NothingToClaim: () => "there is nothing to claim for this address",
  NoFeesAccrued: () => "no fee is accrued to withdraw",
  InsufficientGas: () => "the transaction was sent with too little gas to finish",
  PartAlreadySettled: ([, , part]) => `part ${typeof part === "bigint" ? part + 1n : "?"} is already settled`,
  PartTooLarge: ([amount, remaining]) =>
    `the part (${units(amount)} USDC) is larger than what the deposit still holds (${units(remaining)} USDC)`,
  AccountBlacklisted: ([account]) =>
    `the USDC token refuses to move money for ${formatArg(account)} (a blocked address)`,
  ERC2612ExpiredSignature: () => "the signed permission has expired",
  ERC2612InvalidSigner: () => "the permission was not signed by the wallet that pays",
};

/** A unix-seconds argument as an ISO time. */
const when = (value: unknown) =>
  typeof value === "bigint" || typeof value === "number" ? new Date(Number(value) * 1000).toISOString() : "?";

const units = (value: unknown) =>
  typeof value === "bigint" ? (Number(value) / 1e6).toLocaleString("en-US", { maximumFractionDigits: 6 }) : "?";

/** One sentence for a contract's custom error (its name when the contracts here do not know it). */
export function contractErrorSentence(errorName: string, args: readonly unknown[]): string {
  return CONTRACT_ERRORS[errorName]?.(args) ?? `the contract's error ${errorName}`;
}

/**
 * What a person reads when a transaction of their wallet failed in the browser: a sentence, never
 * viem's text (a custom error's selector, call data, a URL). The contract's own refusal in plain
 * words; a wallet's refusal; else the one sanitiser's short reason.
 */
export function walletFailureSentence(err: unknown): string {
  if (err instanceof BaseError && err.walk((e) => e instanceof UserRejectedRequestError))
    return "You rejected the request in your wallet. Nothing was sent.";
  const reason = chainFailureReason(err);
  if (/rejected|denied/i.test(reason)) return "You rejected the request in your wallet. Nothing was sent.";
  return `The transaction did not go through: ${reason}.`;
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

/**
 * First line; no URL, host or path (an RPC URL, or a gateway's upstream, may hold the provider's key
 * in its path); no key-like token (letters and digits mixed, 16 characters or more, other than an
 * address or a transaction hash); no long hex (raw call data); at most 200 characters.
 */
export function scrubChainText(text: string): string {
  const line = (text.split("\n")[0] ?? "")
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, "(URL hidden)")
    .replace(/0x[0-9a-fA-F]{65,}/g, "0x…")
    .replace(/(?<![\w/])(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?(?:\/\S*)?/gi, "(address hidden)")
    .replace(/(?<![\w/])\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?(?:\/\S*)?/g, "(address hidden)")
    .replace(/(^|[\s("'=:,;])\/[^\s)"',;]+/g, "$1(path hidden)")
    .replace(/\b(?!0x[0-9a-fA-F]{40}\b|0x[0-9a-fA-F]{64}\b)(?=[\w-]*\d)(?=[\w-]*[a-zA-Z])[\w-]{16,}\b/g, "(hidden)");
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

function formatArg(value: unknown): string {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string") return value.length > 66 ? `${value.slice(0, 10)}…` : value;
  return scrubChainText(JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v)) ?? String(value));
}
