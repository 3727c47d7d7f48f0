import { isAddressEqual, parseEventLogs, type Address, type Hex, type TransactionReceipt } from "viem";
import { escrowAbi } from "../abi";
import { getPublicClient } from "../clients";
import type { ChainConfig } from "../config";
import type { StoredSend } from "../durable-transfer";
import { normalizeEscrowJobId } from "../escrow-id";
import { EscrowError } from "./errors";
import { getEscrow } from "./reads";
import { paidBy, sendSettlementCall, settledFinally, type EscrowCall, type SettlementResult } from "./settle";

// Settling one part (a milestone) of a (job id, payer) slot exactly once, however often the
// service asks: the contract records the block each part settled in (getPart), so a part already
// settled returns its transaction instead of sending another, as the whole-job helpers do.

export type PartGoal = "RELEASE" | "REFUND" | "SPLIT";

export interface PartSettlement {
  config: ChainConfig;
  escrowJobId: string;
  payer: Address;
  /** 0-based index of the part in the contract (a milestone's position - 1). */
  part: number;
  /** The part's amount in token units. */
  amount: bigint;
  goal: PartGoal;
  /** RELEASE and SPLIT: the agent's address. */
  to?: Address;
  /** SPLIT: the agent's share of the part, before the fee. */
  agentShare?: bigint;
  /** Where the signed transaction is kept before it is broadcast (the settlement's row). */
  durable?: StoredSend;
}

const EVENT_OF = { RELEASE: "PartReleased", REFUND: "PartRefunded", SPLIT: "PartSplitSettled" } as const;

export async function settleEscrowPart(p: PartSettlement): Promise<SettlementResult> {
  const jobId = normalizeEscrowJobId(p.escrowJobId);
  const part = BigInt(p.part);
  const done = await existingPart(p, jobId, part);
  if (done) return done;
  const call: EscrowCall =
    p.goal === "RELEASE"
      ? { functionName: "releasePart", args: [jobId, p.payer, part, p.amount, p.to as Address] }
      : p.goal === "SPLIT"
        ? {
            functionName: "settlePartSplit",
            args: [jobId, p.payer, part, p.amount, p.to as Address, p.agentShare ?? 0n],
          }
        : { functionName: "refundPart", args: [jobId, p.payer, part, p.amount] };
  const receipt = await sendSettlementCall(p.config, call, `part ${p.part} ${p.goal.toLowerCase()}`, p.durable, () =>
    existingPart(p, jobId, part),
  );
  if ("alreadySettled" in receipt) return receipt;
  const result = partFromReceipt(p, jobId, part, receipt);
  if (!result)
    throw new EscrowError(
      "TX_FAILED",
      "the transaction succeeded but emitted no part settlement event",
      receipt.transactionHash,
    );
  return { ...result, alreadySettled: false };
}

/** The part's earlier settlement when it has one of `goal`; throws when it went another way or the slot is not funded. */
async function existingPart(p: PartSettlement, jobId: Hex, part: bigint): Promise<SettlementResult | null> {
  const client = getPublicClient(p.config);
  const [settledBlock] = await client.readContract({
    address: p.config.escrowAddress,
    abi: escrowAbi,
    functionName: "getPart",
    args: [jobId, p.payer, part],
  });
  if (settledBlock === 0n) {
    const slot = await getEscrow({ config: p.config, escrowJobId: jobId, payer: p.payer });
    if (slot.state !== "FUNDED")
      throw new EscrowError(
        slot.state === "NONE" ? "NOT_FUNDED" : "ALREADY_SETTLED",
        `the escrow slot is ${slot.state.toLowerCase()}; part ${p.part} cannot settle`,
      );
    return null;
  }
  const range = { fromBlock: settledBlock, toBlock: settledBlock };
  for (const goal of ["RELEASE", "REFUND", "SPLIT"] as const) {
    const logs = await client.getContractEvents({
      address: p.config.escrowAddress,
      abi: escrowAbi,
      eventName: EVENT_OF[goal],
      args: { jobId, payer: p.payer, part },
      ...range,
    });
    const log = logs[0];
    if (!log?.transactionHash) continue;
    if (goal !== p.goal)
      throw new EscrowError("ALREADY_SETTLED", `part ${p.part} was already settled by a ${goal.toLowerCase()}`);
    const receipt = await client.getTransactionReceipt({ hash: log.transactionHash });
    await settledFinally(p.config, receipt, `part ${p.part}'s ${goal.toLowerCase()}`);
    const result = partFromReceipt(p, jobId, part, receipt);
    if (result) return { ...result, alreadySettled: true };
  }
  throw new EscrowError("TX_FAILED", `part ${p.part} is settled but no event was found in block ${settledBlock}`);
}

function partFromReceipt(
  p: PartSettlement,
  jobId: Hex,
  part: bigint,
  receipt: TransactionReceipt,
): Omit<SettlementResult, "alreadySettled"> | null {
  const logs = receipt.logs.filter((l) => isAddressEqual(l.address, p.config.escrowAddress));
  const events = parseEventLogs({ abi: escrowAbi, logs, args: { jobId } });
  let to: Address | undefined;
  let amount = 0n;
  let fee = 0n;
  let payerAmount: bigint | undefined;
  for (const e of events) {
    if (
      e.eventName === "PartReleased" &&
      p.goal === "RELEASE" &&
      e.args.part === part &&
      isAddressEqual(e.args.payer, p.payer)
    )
      ({ to, amount, fee } = e.args);
    if (
      e.eventName === "PartRefunded" &&
      p.goal === "REFUND" &&
      e.args.part === part &&
      isAddressEqual(e.args.payer, p.payer)
    ) {
      to = e.args.payer;
      amount = e.args.amount;
    }
    if (
      e.eventName === "PartSplitSettled" &&
      p.goal === "SPLIT" &&
      e.args.part === part &&
      isAddressEqual(e.args.payer, p.payer)
    ) {
      ({ agent: to, agentAmount: amount, fee, payerAmount } = e.args);
    }
  }
  return paidBy(receipt, events, { to, amount, fee, payerAmount });
}
