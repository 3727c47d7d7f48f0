import { isAddressEqual, parseEventLogs, type Address, type Hex, type TransactionReceipt } from "viem";
import { escrowAbi } from "../abi";
import { getPublicClient, getWalletClient } from "../clients";
import type { ChainConfig } from "../config";
import { normalizeEscrowJobId } from "../escrow-id";
import { EscrowError, chainFailureReason, isContractRevert } from "./errors";
import { getEscrow, type EscrowRecord } from "./reads";
import { RECEIPT_TIMEOUT_MS, sendWithRetry } from "./send";

// Releasing or refunding one (job id, payer) slot of the escrow exactly once, however often the
// service asks (a retry, a crash-interrupted attempt, another instance).

export interface SettlementResult {
  txHash: Hex;
  blockNumber: bigint;
  /** Who the settlement paid: the agent on release, the payer on refund. */
  to: Address;
  /** What `to` got: the deposit less the fee on release, the whole deposit on refund. */
  amount: bigint;
  /** The fee (0n on refund). */
  fee: bigint;
  /**
   * The part of `amount` the token refused to send to `to` (a blacklisted address), kept in the
   * contract as `claimable[to]` until its owner claims it to another address. Usually 0n.
   */
  heldForClaim: bigint;
  /** True when the slot was already settled and the existing transaction is returned. */
  alreadySettled: boolean;
  /** A split only: what went back to the payer (no fee on it). */
  payerAmount?: bigint;
}

type Goal = "RELEASED" | "REFUNDED" | "SPLIT";
interface Slot {
  jobId: Hex;
  payer: Address;
}

/**
 * Releases `payer`'s funded slot of a job to `to` (less the fee). Idempotent against the chain:
 * when the slot is already released (by an earlier call, a crash-interrupted one, or another
 * instance), it returns that release's transaction instead of sending one, so money moves once.
 */
export async function releaseEscrow(params: {
  config: ChainConfig;
  escrowJobId: string;
  payer: Address;
  to: Address;
}): Promise<SettlementResult> {
  return settle(
    params.config,
    { jobId: normalizeEscrowJobId(params.escrowJobId), payer: params.payer },
    "RELEASED",
    params.to,
  );
}

/** Returns `payer`'s whole deposit for a job to `payer`; idempotent like releaseEscrow. */
export async function refundEscrow(params: {
  config: ChainConfig;
  escrowJobId: string;
  payer: Address;
}): Promise<SettlementResult> {
  return settle(params.config, { jobId: normalizeEscrowJobId(params.escrowJobId), payer: params.payer }, "REFUNDED");
}

/**
 * Settles `payer`'s slot as a dispute ruling split it: `agentShare` units to `agent` less the fee,
 * the rest to the payer (contract `settleSplit`). Idempotent like releaseEscrow: a slot already
 * split returns that transaction. `to` of the result is the agent, `amount` its net share.
 */
export async function splitEscrow(params: {
  config: ChainConfig;
  escrowJobId: string;
  payer: Address;
  agent: Address;
  agentShare: bigint;
}): Promise<SettlementResult> {
  return settle(
    params.config,
    { jobId: normalizeEscrowJobId(params.escrowJobId), payer: params.payer },
    "SPLIT",
    params.agent,
    params.agentShare,
  );
}

const readSlot = (config: ChainConfig, slot: Slot) => getEscrow({ config, escrowJobId: slot.jobId, payer: slot.payer });

const GOAL_TEXT: Record<Goal, string> = { RELEASED: "release", REFUNDED: "refund", SPLIT: "split settlement" };

async function settle(
  config: ChainConfig,
  slot: Slot,
  goal: Goal,
  to?: Address,
  agentShare?: bigint,
): Promise<SettlementResult> {
  const done = await existingSettlement(config, slot, goal, await readSlot(config, slot));
  if (done) return done;

  const client = getPublicClient(config);
  const wallet = getWalletClient(config, config.operatorPrivateKey);
  let hash: Hex;
  try {
    hash = await sendWithRetry(config, wallet.account.address, async () => {
      // Simulating first turns a doomed call (lost race, wrong key) into an error, not a
      // reverted transaction that costs gas.
      if (goal === "RELEASED") {
        const { request } = await client.simulateContract({
          account: wallet.account,
          address: config.escrowAddress,
          abi: escrowAbi,
          functionName: "release",
          args: [slot.jobId, slot.payer, to as Address],
        });
        return wallet.writeContract(request);
      }
      if (goal === "SPLIT") {
        const { request } = await client.simulateContract({
          account: wallet.account,
          address: config.escrowAddress,
          abi: escrowAbi,
          functionName: "settleSplit",
          args: [slot.jobId, slot.payer, to as Address, agentShare ?? 0n],
        });
        return wallet.writeContract(request);
      }
      const { request } = await client.simulateContract({
        account: wallet.account,
        address: config.escrowAddress,
        abi: escrowAbi,
        functionName: "refund",
        args: [slot.jobId, slot.payer],
      });
      return wallet.writeContract(request);
    });
  } catch (err) {
    // Lost a race (another instance settled it between our read and our send): return theirs.
    const raced = await existingSettlement(config, slot, goal, await readSlot(config, slot));
    if (raced) return raced;
    // The simulation reverted: the contract refuses this call as asked (InvalidRecipient, ...), and
    // sending it again unchanged cannot succeed. Anything else (transport, timeout) may pass.
    throw new EscrowError(
      isContractRevert(err) ? "REVERTED" : "TX_FAILED",
      `${GOAL_TEXT[goal]} failed: ${chainFailureReason(err)}`,
    );
  }

  const receipt = await client.waitForTransactionReceipt({
    hash,
    confirmations: config.confirmations,
    timeout: RECEIPT_TIMEOUT_MS,
  });
  if (receipt.status !== "success") {
    const raced = await existingSettlement(config, slot, goal, await readSlot(config, slot));
    if (raced) return raced;
    throw new EscrowError("TX_FAILED", `${GOAL_TEXT[goal]} transaction reverted`, hash);
  }
  const result = settlementFromReceipt(config, slot, goal, receipt);
  if (!result) throw new EscrowError("TX_FAILED", "the transaction succeeded but emitted no settlement event", hash);
  return { ...result, alreadySettled: false };
}

/** The earlier settlement when the slot is already in `goal`; throws when it went the other way. */
async function existingSettlement(
  config: ChainConfig,
  slot: Slot,
  goal: Goal,
  escrow: EscrowRecord,
): Promise<SettlementResult | null> {
  if (escrow.state === "NONE")
    throw new EscrowError("NOT_FUNDED", `no deposit by ${slot.payer} for escrow job id ${slot.jobId}`);
  if (escrow.state === "FUNDED") return null;
  if (escrow.state !== goal) {
    // A split slot is neither released nor refunded as asked; it is settled for good all the same.
    throw new EscrowError(
      escrow.state === "RELEASED"
        ? "ALREADY_RELEASED"
        : escrow.state === "REFUNDED"
          ? "ALREADY_REFUNDED"
          : "ALREADY_SETTLED",
      `the escrow is already ${escrow.state.toLowerCase()}`,
    );
  }
  // The contract records the settlement block, so a one-block log query finds the event
  // (public RPCs cap log ranges; a scan from deployment would not scale). Both events index the
  // slot's payer (a refund's `to` is its payer), so another slot of the same job never matches.
  const client = getPublicClient(config);
  const range = { fromBlock: escrow.settledBlock, toBlock: escrow.settledBlock };
  const logs =
    goal === "RELEASED"
      ? await client.getContractEvents({
          address: config.escrowAddress,
          abi: escrowAbi,
          eventName: "Released",
          args: { jobId: slot.jobId, payer: slot.payer },
          ...range,
        })
      : goal === "SPLIT"
        ? await client.getContractEvents({
            address: config.escrowAddress,
            abi: escrowAbi,
            eventName: "SplitSettled",
            args: { jobId: slot.jobId, payer: slot.payer },
            ...range,
          })
        : await client.getContractEvents({
            address: config.escrowAddress,
            abi: escrowAbi,
            eventName: "Refunded",
            args: { jobId: slot.jobId, to: slot.payer },
            ...range,
          });
  const log = logs[0];
  if (!log?.transactionHash) {
    throw new EscrowError(
      "TX_FAILED",
      `escrow is ${escrow.state.toLowerCase()} but no event was found in block ${escrow.settledBlock}`,
    );
  }
  const receipt = await client.getTransactionReceipt({ hash: log.transactionHash });
  const result = settlementFromReceipt(config, slot, goal, receipt);
  if (!result) throw new EscrowError("TX_FAILED", `no settlement event in ${log.transactionHash}`);
  return { ...result, alreadySettled: true };
}

function settlementFromReceipt(
  config: ChainConfig,
  slot: Slot,
  goal: Goal,
  receipt: TransactionReceipt,
): Omit<SettlementResult, "alreadySettled"> | null {
  const logs = receipt.logs.filter((l) => isAddressEqual(l.address, config.escrowAddress));
  const events = parseEventLogs({ abi: escrowAbi, logs, args: { jobId: slot.jobId } });
  let to: Address | undefined;
  let amount = 0n;
  let fee = 0n;
  let payerAmount: bigint | undefined;
  for (const e of events) {
    if (goal === "SPLIT" && e.eventName === "SplitSettled" && isAddressEqual(e.args.payer, slot.payer))
      ({ agent: to, agentAmount: amount, fee, payerAmount } = e.args);
    if (goal === "RELEASED" && e.eventName === "Released" && isAddressEqual(e.args.payer, slot.payer))
      ({ to, amount, fee } = e.args);
    if (goal === "REFUNDED" && e.eventName === "Refunded" && isAddressEqual(e.args.to, slot.payer))
      ({ to, amount } = e.args);
  }
  if (!to) return null;
  const recipient = to;
  const heldForClaim = events.reduce(
    (sum, e) => (e.eventName === "Credited" && isAddressEqual(e.args.account, recipient) ? sum + e.args.amount : sum),
    0n,
  );
  return {
    txHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    to: recipient,
    amount,
    fee,
    heldForClaim,
    ...(payerAmount !== undefined ? { payerAmount } : {}),
  };
}
