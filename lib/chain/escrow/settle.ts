import {
  encodeFunctionData,
  type EncodeFunctionDataParameters,
  isAddressEqual,
  parseEventLogs,
  type Address,
  type Hex,
  type TransactionReceipt,
} from "viem";
import { escrowAbi, escrowV2Abi } from "../abi";
import { getPublicClient, getWalletClient } from "../clients";
import type { ChainConfig } from "../config";
import {
  TransferNotFinal,
  TransferStateUnknown,
  assertFinal,
  sendDurableCall,
  waitForDurableTransfer,
  type StoredSend,
} from "../durable-transfer";
import { normalizeEscrowJobId } from "../escrow-id";
import { EscrowError, chainFailureReason, errorText, isContractRevert } from "./errors";
import { escrowContractOf, type EscrowVersion } from "./contracts";
import { getEscrow, type EscrowRecord, type EscrowV2Record } from "./reads";
import { assertClearOfExpiry, followAssignedAgent, type RecordedAgent } from "./slot-v2";
import { RECEIPT_TIMEOUT_MS } from "./send";

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
  /** The contract holding the slot (jobs.escrow_version): version 2's calls take no destination. */
  version: EscrowVersion;
}

/** A slot to settle: the job's escrow id, its payer, and where the signed transaction is kept. */
interface SlotParams {
  config: ChainConfig;
  escrowJobId: string;
  payer: Address;
  durable?: StoredSend;
}

const slotOf = (params: SlotParams, version: EscrowVersion): Slot => ({
  jobId: normalizeEscrowJobId(params.escrowJobId),
  payer: params.payer,
  version,
});

/**
 * Releases `payer`'s funded slot of a job to `to` (less the fee). Idempotent against the chain:
 * when the slot is already released (by an earlier call, a crash-interrupted one, or another
 * instance), it returns that release's transaction instead of sending one, so money moves once.
 */
export async function releaseEscrow(params: SlotParams & { to: Address }): Promise<SettlementResult> {
  return settle(params.config, slotOf(params, 1), "RELEASED", params.durable, params.to);
}

/**
 * Version 2: releases `payer`'s slot to the agent its payer assigned (`release(jobId, payer)`: the
 * contract takes no destination). Idempotent like releaseEscrow. Before sending, the slot's agent
 * must be `agent` (the one recorded at acceptance) or where it moved itself, and the expiry more
 * than SETTLE_MARGIN_SECONDS ahead (slot-v2.ts); `to` of the result is the agent paid.
 */
export async function releaseEscrowV2(params: SlotParams & { agent: RecordedAgent }): Promise<SettlementResult> {
  return settle(params.config, slotOf(params, 2), "RELEASED", params.durable, undefined, undefined, params.agent);
}

/**
 * Returns `payer`'s whole deposit for a job to `payer`; idempotent like releaseEscrow. Version 2
 * (`version: 2`) also keeps clear of the slot's expiry.
 */
export async function refundEscrow(params: SlotParams & { version?: EscrowVersion }): Promise<SettlementResult> {
  return settle(params.config, slotOf(params, params.version ?? 1), "REFUNDED", params.durable);
}

/**
 * Settles `payer`'s slot as a dispute ruling split it: `agentShare` units to `agent` less the fee,
 * the rest to the payer (contract `settleSplit`). Idempotent like releaseEscrow: a slot already
 * split returns that transaction. `to` of the result is the agent, `amount` its net share.
 */
export async function splitEscrow(
  params: SlotParams & { agent: Address; agentShare: bigint },
): Promise<SettlementResult> {
  return settle(params.config, slotOf(params, 1), "SPLIT", params.durable, params.agent, params.agentShare);
}

/**
 * Version 2: `settleSplit(jobId, payer, agentShare)` between the assigned agent and the payer;
 * idempotent like splitEscrow, checked like releaseEscrowV2.
 */
export async function splitEscrowV2(
  params: SlotParams & { agentShare: bigint; agent: RecordedAgent },
): Promise<SettlementResult> {
  return settle(params.config, slotOf(params, 2), "SPLIT", params.durable, undefined, params.agentShare, params.agent);
}

/**
 * What the operator checks of a funded version 2 slot before any settlement of it (slot-v2.ts):
 * clear of its expiry, and, when it pays the agent, paying the one recorded (or where it moved).
 */
export async function checkV2SlotBeforeSettling(
  config: ChainConfig,
  slot: EscrowV2Record & { jobId: Hex },
  agent: RecordedAgent | undefined,
): Promise<void> {
  await assertClearOfExpiry(config, slot);
  if (agent) await followAssignedAgent(config, slot, agent);
}

const readSlot = (config: ChainConfig, slot: Slot) =>
  getEscrow({ config, escrowJobId: slot.jobId, payer: slot.payer, version: slot.version });

/** The settling call of a goal: version 1 names the agent, version 2 pays the one its payer assigned. */
function settlingCall(slot: Slot, goal: Goal, to?: Address, agentShare?: bigint): EscrowCall {
  const { jobId, payer, version } = slot;
  if (goal === "REFUNDED") return { version, functionName: "refund", args: [jobId, payer] };
  if (version === 2)
    return goal === "RELEASED"
      ? { version, functionName: "release", args: [jobId, payer] }
      : { version, functionName: "settleSplit", args: [jobId, payer, agentShare ?? 0n] };
  if (!to) throw new EscrowError("TX_FAILED", "a settlement of the first escrow names the agent it pays");
  return goal === "RELEASED"
    ? { version, functionName: "release", args: [jobId, payer, to] }
    : { version, functionName: "settleSplit", args: [jobId, payer, to, agentShare ?? 0n] };
}

const GOAL_TEXT: Record<Goal, string> = { RELEASED: "release", REFUNDED: "refund", SPLIT: "split settlement" };

async function settle(
  config: ChainConfig,
  slot: Slot,
  goal: Goal,
  durable: StoredSend | undefined,
  to?: Address,
  agentShare?: bigint,
  agent?: RecordedAgent,
): Promise<SettlementResult> {
  const escrow = await readSlot(config, slot);
  const done = await existingSettlement(config, slot, goal, escrow);
  if (done) return done;
  if (slot.version === 2) {
    if (goal !== "REFUNDED" && !agent)
      throw new EscrowError("TX_FAILED", "a version 2 release or split names the agent recorded at acceptance");
    await checkV2SlotBeforeSettling(config, { ...(escrow as EscrowV2Record), jobId: slot.jobId }, agent);
  }

  const call = settlingCall(slot, goal, to, agentShare);
  const receipt = await sendSettlementCall(config, call, GOAL_TEXT[goal], durable, async () =>
    existingSettlement(config, slot, goal, await readSlot(config, slot)),
  );
  if ("alreadySettled" in receipt) return receipt;
  const result = settlementFromReceipt(config, slot, goal, receipt);
  if (!result)
    throw new EscrowError(
      "TX_FAILED",
      "the transaction succeeded but emitted no settlement event",
      receipt.transactionHash,
    );
  return { ...result, alreadySettled: false };
}

/** A settling function of the escrow and its arguments; `version` picks the contract (1 when absent). */
export interface EscrowCall {
  version?: EscrowVersion;
  functionName:
    | "release"
    | "refund"
    | "settleSplit"
    | "releasePart"
    | "refundPart"
    | "settlePartSplit"
    /** Version 2: relaying the payer's Assign (assign.ts). */
    | "assign";
  args: readonly unknown[];
}

/**
 * Sends one settling call of the operator key to the escrow and waits for its receipt, the one way
 * every settlement (a whole slot's or a part's) leaves the contract:
 * - simulated just before it is signed (in the sender's lock), never while a stored transaction
 *   is asked about: a doomed call (lost race, refused recipient) becomes an error, not a reverted
 *   transaction that costs gas;
 * - signed, its bytes kept through `durable` before broadcast (sendDurableCall), so no error of the
 *   node, lost reply or crash can make it sent twice or marked failed while it may still land;
 * - a transaction whose outcome the chain has not told is TX_PENDING (asked about again later);
 *   one that reverted on chain is forgotten, so the next try simulates again.
 * `settledMeanwhile` reads the slot (or part) again: when another sender settled it, that
 * settlement is returned instead.
 */
export async function sendSettlementCall(
  config: ChainConfig,
  call: EscrowCall,
  what: string,
  durable: StoredSend | undefined,
  settledMeanwhile: () => Promise<SettlementResult | null>,
): Promise<TransactionReceipt | SettlementResult> {
  const client = getPublicClient(config);
  const wallet = getWalletClient(config, config.operatorPrivateKey);
  const sent = durable ?? keptInMemory();
  const address = escrowContractOf(config, call.version ?? 1).address;
  // One call, typed by the escrow's ABI where it is built (EscrowCall's callers); viem's generics
  // cannot follow a function name chosen at run time.
  const request = {
    abi: call.version === 2 ? escrowV2Abi : escrowAbi,
    functionName: call.functionName,
    args: call.args,
  } as unknown as EncodeFunctionDataParameters<typeof escrowAbi>;
  const data = encodeFunctionData(request);
  let refusal: { cause: unknown } | null = null;
  let hash: Hex;
  try {
    hash = await sendDurableCall({
      chain: config,
      privateKey: config.operatorPrivateKey,
      contract: address,
      data,
      ...sent,
      beforeSigning: async () => {
        try {
          await client.simulateContract({
            account: wallet.account,
            address,
            ...(request as unknown as { abi: typeof escrowAbi; functionName: "refund"; args: [Hex, Address] }),
          });
        } catch (cause) {
          refusal = { cause };
          throw cause;
        }
      },
    });
  } catch (err) {
    if (refusal) {
      // Lost a race (another sender settled it between our read and our simulation): theirs.
      const raced = await settledMeanwhile();
      if (raced) return raced;
      // The simulation reverted: the contract refuses this call as asked (InvalidRecipient, ...), and
      // sending it again unchanged cannot succeed. Anything else (transport, timeout) may pass.
      const { cause } = refusal as { cause: unknown };
      const reverted = isContractRevert(cause);
      throw new EscrowError(
        reverted ? "REVERTED" : "TX_FAILED",
        `${what} failed: ${chainFailureReason(cause)}`,
        undefined,
        reverted ? errorText(cause) : undefined,
      );
    }
    if (err instanceof TransferStateUnknown)
      throw new EscrowError("TX_PENDING", `the ${what} was sent; the chain has not told yet whether it was mined`);
    throw new EscrowError("TX_FAILED", `${what} failed: ${chainFailureReason(err)}`);
  }
  let receipt: TransactionReceipt;
  try {
    receipt = await waitForDurableTransfer(config, hash, RECEIPT_TIMEOUT_MS);
  } catch (error) {
    if (error instanceof TransferNotFinal) throw notFinalYet(what, error);
    throw new EscrowError("TX_PENDING", `the ${what} was sent (${hash}); its receipt has not come yet`, hash);
  }
  if (receipt.status !== "success") {
    const raced = await settledMeanwhile();
    if (raced) return raced;
    // Mined and reverted: it can never succeed as signed. The next try simulates afresh.
    await sent.forget(hash);
    throw new EscrowError("TX_FAILED", `${what} transaction reverted`, hash);
  }
  return receipt;
}

/** For callers that keep no row (scripts, tests): the signed transaction is kept for this call only. */
function keptInMemory(): StoredSend {
  const stored: StoredSend["stored"] = { raw: null, hash: null };
  return {
    stored,
    forget: async (hash) => {
      if (stored.hash !== hash) return;
      stored.raw = null;
      stored.hash = null;
    },
    record: async (raw, hash) => {
      stored.raw = raw;
      stored.hash = hash;
    },
  };
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
    slot.version === 2
      ? await client.getContractEvents({
          address: escrowContractOf(config, 2).address,
          abi: escrowV2Abi,
          eventName: V2_EVENT_OF[goal],
          args: { jobId: slot.jobId, payer: slot.payer },
          ...range,
        })
      : goal === "RELEASED"
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
  await settledFinally(config, receipt, GOAL_TEXT[goal]);
  const result = settlementFromReceipt(config, slot, goal, receipt);
  if (!result) throw new EscrowError("TX_FAILED", `no settlement event in ${log.transactionHash}`);
  return { ...result, alreadySettled: true };
}

/** A settlement found on chain counts once its block is final, as one this service waited for. */
export async function settledFinally(config: ChainConfig, receipt: TransactionReceipt, what: string): Promise<void> {
  try {
    await assertFinal(config, receipt);
  } catch (error) {
    if (error instanceof TransferNotFinal) throw notFinalYet(what, error);
    throw new EscrowError("TX_PENDING", `the ${what} is on chain; whether its block is final is not known yet`);
  }
}

const notFinalYet = (what: string, error: TransferNotFinal) =>
  new EscrowError(
    "TX_PENDING",
    `the ${what} is mined (block ${error.blockNumber}); it counts once that block is ${error.finality}`,
    error.hash,
  );

/** Version 2's event of each goal: all three index the slot's payer. */
const V2_EVENT_OF = { RELEASED: "Released", REFUNDED: "Refunded", SPLIT: "Split" } as const;

function settlementFromReceipt(
  config: ChainConfig,
  slot: Slot,
  goal: Goal,
  receipt: TransactionReceipt,
): Omit<SettlementResult, "alreadySettled"> | null {
  if (slot.version === 2) return settlementV2FromReceipt(config, slot, goal, receipt);
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
  return paidBy(receipt, events, { to, amount, fee, payerAmount });
}

function settlementV2FromReceipt(
  config: ChainConfig,
  slot: Slot,
  goal: Goal,
  receipt: TransactionReceipt,
): Omit<SettlementResult, "alreadySettled"> | null {
  const logs = receipt.logs.filter((l) => isAddressEqual(l.address, escrowContractOf(config, 2).address));
  const events = parseEventLogs({ abi: escrowV2Abi, logs, args: { jobId: slot.jobId } });
  let to: Address | undefined;
  let amount = 0n;
  let fee = 0n;
  let payerAmount: bigint | undefined;
  for (const e of events) {
    if (e.eventName === "Split" && goal === "SPLIT" && isAddressEqual(e.args.payer, slot.payer))
      ({ agent: to, agentAmount: amount, fee, payerAmount } = e.args);
    if (e.eventName === "Released" && goal === "RELEASED" && isAddressEqual(e.args.payer, slot.payer))
      ({ agent: to, amount, fee } = e.args);
    if (e.eventName === "Refunded" && goal === "REFUNDED" && isAddressEqual(e.args.payer, slot.payer))
      ({ payer: to, amount } = e.args);
  }
  return paidBy(receipt, events, { to, amount, fee, payerAmount });
}

/** An escrow event as either contract's ABI parses it: only Credited is read here, the same in both. */
type ParsedEscrowEvent =
  | ReturnType<typeof parseEventLogs<typeof escrowAbi>>[number]
  | ReturnType<typeof parseEventLogs<typeof escrowV2Abi>>[number];

/**
 * A settling receipt as a result: who was paid and how much (found in its events by the caller),
 * and what of it the token refused, held in the contract for that address to claim (Credited).
 */
export function paidBy(
  receipt: TransactionReceipt,
  events: ReadonlyArray<ParsedEscrowEvent>,
  paid: { to: Address | undefined; amount: bigint; fee: bigint; payerAmount?: bigint },
): Omit<SettlementResult, "alreadySettled"> | null {
  const recipient = paid.to;
  if (!recipient) return null;
  const heldForClaim = events.reduce(
    (sum, e) => (e.eventName === "Credited" && isAddressEqual(e.args.account, recipient) ? sum + e.args.amount : sum),
    0n,
  );
  return {
    txHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    to: recipient,
    amount: paid.amount,
    fee: paid.fee,
    heldForClaim,
    ...(paid.payerAmount !== undefined ? { payerAmount: paid.payerAmount } : {}),
  };
}
