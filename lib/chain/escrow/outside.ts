import { decodeFunctionData, isAddressEqual, parseEventLogs, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { escrowV2Abi } from "../abi";
import { getPublicClient } from "../clients";
import type { ChainConfig } from "../config";
import { normalizeEscrowJobId } from "../escrow-id";
import { EscrowError, errorText, isContractRevert } from "./errors";
import { escrowContractOf } from "./contracts";
import { getEscrowV2, type EscrowV2Record } from "./reads";
import { paidBy, settledFinally, type SettlementResult } from "./settle";

// Money that left an EscrowV2 slot without the service (docs/escrow-v2.md, step 6): the contract
// lets the parties settle on their own, and from the expiry on anyone returns the slot to its payer.
// The service reads which of these happened so that its books follow the chain.

/** Who settled a slot outside the service, as read from its transaction. */
export type OutsideWay = "PAYER_RELEASE" | "APPROVAL_RELEASE" | "AGENT_REFUND" | "CLAIM_REFUND";

/** A slot settled outside the service: what moved, to whom, in which (final) transaction. */
export interface OutsideSettlement extends Omit<SettlementResult, "alreadySettled" | "payerAmount"> {
  kind: "RELEASE" | "REFUND";
  way: OutsideWay;
  /** Who sent the transaction (the payer, the agent, a relayer, anyone after the expiry). */
  sender: Address;
}

/**
 * The settlement of `payer`'s EscrowV2 slot when someone other than the service's operator key made
 * it: the payer's `release`, a `releaseWithApproval` relayed by anyone, the agent's `refund`, or a
 * `claimRefund` after the expiry. Null while the slot is funded (or never was), when it was settled
 * by the operator (the settlement engine records its own), or split or paid in parts (only the
 * operator does those). Counted only at the chain's finality, as a deposit is: a settlement in a
 * block that is not final yet throws EscrowError TX_PENDING (asked again later).
 */
export async function findOutsideSettlement(
  config: ChainConfig,
  slotOf: { escrowJobId: string; payer: Address },
  read?: EscrowV2Record,
): Promise<OutsideSettlement | null> {
  const jobId = normalizeEscrowJobId(slotOf.escrowJobId);
  const slot = read ?? (await getEscrowV2({ config, escrowJobId: jobId, payer: slotOf.payer }));
  const eventName =
    slot.state === "RELEASED"
      ? "Released"
      : slot.state === "REFUNDED"
        ? "Refunded"
        : slot.state === "REFUND_CLAIMED"
          ? "RefundClaimed"
          : null;
  if (!eventName || slot.settledBlock === 0n) return null;
  const client = getPublicClient(config);
  const escrow = escrowContractOf(config, 2).address;
  // The contract records the settlement's block: a one-block query finds its event (each of the three indexes the payer).
  const logs = await client.getContractEvents({
    address: escrow,
    abi: escrowV2Abi,
    eventName,
    args: { jobId, payer: slotOf.payer },
    fromBlock: slot.settledBlock,
    toBlock: slot.settledBlock,
  });
  const hash = logs[0]?.transactionHash;
  if (!hash)
    throw new EscrowError(
      "TX_FAILED",
      `the slot is ${slot.state.toLowerCase()} but no ${eventName} was found in block ${slot.settledBlock}`,
    );
  const [receipt, tx] = await Promise.all([client.getTransactionReceipt({ hash }), client.getTransaction({ hash })]);
  const operator = privateKeyToAccount(config.operatorPrivateKey).address;
  // The operator's own release or refund: the engine's row records it (its "found already done" path).
  if (eventName !== "RefundClaimed" && isAddressEqual(tx.from, operator)) return null;
  await settledFinally(config, receipt, "settlement made outside the service");

  const events = parseEventLogs({
    abi: escrowV2Abi,
    logs: receipt.logs.filter((l) => isAddressEqual(l.address, escrow)),
    args: { jobId },
  });
  let paid: { kind: "RELEASE" | "REFUND"; to: Address | undefined; amount: bigint; fee: bigint } = {
    kind: "REFUND",
    to: undefined,
    amount: 0n,
    fee: 0n,
  };
  for (const e of events) {
    if (e.eventName === "Released" && isAddressEqual(e.args.payer, slotOf.payer))
      paid = { kind: "RELEASE", to: e.args.agent, amount: e.args.amount, fee: e.args.fee };
    if (e.eventName === "Refunded" && isAddressEqual(e.args.payer, slotOf.payer))
      paid = { kind: "REFUND", to: e.args.payer, amount: e.args.amount, fee: 0n };
    if (e.eventName === "RefundClaimed" && isAddressEqual(e.args.payer, slotOf.payer))
      paid = { kind: "REFUND", to: e.args.payer, amount: e.args.amount, fee: 0n };
  }
  const result = paidBy(receipt, events, paid);
  if (!result) throw new EscrowError("TX_FAILED", `no settlement event of the slot in ${hash}`);
  return { ...result, kind: paid.kind, way: wayOf(eventName, tx.input, tx.from, slotOf.payer), sender: tx.from };
}

/** Which of the outside paths a transaction took: its event, and for a release the function it called. */
function wayOf(
  eventName: "Released" | "Refunded" | "RefundClaimed",
  input: Hex,
  from: Address,
  payer: Address,
): OutsideWay {
  if (eventName === "RefundClaimed") return "CLAIM_REFUND";
  if (eventName === "Refunded") return "AGENT_REFUND";
  // The payer's own release, or its Approve relayed (maybe through another contract: then the input is not ours).
  try {
    if (decodeFunctionData({ abi: escrowV2Abi, data: input }).functionName === "releaseWithApproval")
      return "APPROVAL_RELEASE";
  } catch {
    // Called through a wallet or another contract: the sender tells.
  }
  return isAddressEqual(from, payer) ? "PAYER_RELEASE" : "APPROVAL_RELEASE";
}

/** The EIP-712 data a payer signs to approve the work: what viem's signTypedData takes. */
export interface ApprovalTypedData {
  domain: { name: string; version: string; chainId: number; verifyingContract: Address };
  types: { Approve: Array<{ name: string; type: string }> };
  primaryType: "Approve";
  /** deadline: unix seconds, the last second releaseWithApproval takes it. */
  message: { jobId: Hex; payer: Address; agent: Address; deadline: number };
}

/** EscrowV2's `Approve(bytes32 jobId,address payer,address agent,uint256 deadline)`. */
const APPROVE_FIELDS = [
  { name: "jobId", type: "bytes32" },
  { name: "payer", type: "address" },
  { name: "agent", type: "address" },
  { name: "deadline", type: "uint256" },
] as const;

/** The `Approve` of a slot, its domain read from the contract (ERC-5267 eip712Domain). */
export async function approvalTypedData(
  config: ChainConfig,
  slot: { escrowJobId: string; payer: Address; agent: Address; deadline: number },
): Promise<ApprovalTypedData> {
  const [, name, version, chainId, verifyingContract] = await getPublicClient(config).readContract({
    address: escrowContractOf(config, 2).address,
    abi: escrowV2Abi,
    functionName: "eip712Domain",
  });
  return {
    domain: { name, version, chainId: Number(chainId), verifyingContract },
    types: { Approve: APPROVE_FIELDS.map((field) => ({ ...field })) },
    primaryType: "Approve",
    message: {
      jobId: normalizeEscrowJobId(slot.escrowJobId),
      payer: slot.payer,
      agent: slot.agent,
      deadline: slot.deadline,
    },
  };
}

/**
 * Asks the contract itself whether `releaseWithApproval(jobId, payer, deadline, signature)` would
 * pay now (simulated, nothing sent): the signature must be the payer's Approve naming the slot's
 * current agent, before its deadline, for this chain and contract (an ERC-1271 wallet is asked as
 * the contract asks it). Returns null when it would, else the contract's error name.
 */
export async function approvalRefusal(
  config: ChainConfig,
  slot: { escrowJobId: string; payer: Address; deadline: number; signature: Hex },
): Promise<string | null> {
  try {
    await getPublicClient(config).simulateContract({
      // Anyone may relay it: the simulation's sender is the operator only because it has an address here.
      account: privateKeyToAccount(config.operatorPrivateKey).address,
      address: escrowContractOf(config, 2).address,
      abi: escrowV2Abi,
      functionName: "releaseWithApproval",
      args: [normalizeEscrowJobId(slot.escrowJobId), slot.payer, BigInt(slot.deadline), slot.signature],
    });
    return null;
  } catch (error) {
    if (isContractRevert(error)) return errorText(error);
    throw error;
  }
}
