import { isAddressEqual, parseEventLogs, type Address, type Hex, type TransactionReceipt } from "viem";
import { escrowAbi, escrowV2Abi } from "../abi";
import { getPublicClient } from "../clients";
import type { ChainConfig } from "../config";
import type { StoredSend } from "../durable-transfer";
import { normalizeEscrowJobId } from "../escrow-id";
import { EscrowError } from "./errors";
import { escrowContractOf, type EscrowVersion } from "./contracts";
import { getEscrow, type EscrowV2Record } from "./reads";
import {
  checkV2SlotBeforeSettling,
  paidBy,
  sendSettlementCall,
  settledFinally,
  type EscrowCall,
  type SettlementResult,
} from "./settle";
import type { RecordedAgent } from "./slot-v2";

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
  /** RELEASE and SPLIT on version 1: the agent's address (version 2 pays the slot's assigned agent). */
  to?: Address;
  /** The contract holding the slot (1 when absent). */
  version?: EscrowVersion;
  /** Version 2, RELEASE and SPLIT: the agent recorded at acceptance, checked against the slot's. */
  agent?: RecordedAgent;
  /** SPLIT: the agent's share of the part, before the fee. */
  agentShare?: bigint;
  /** Where the signed transaction is kept before it is broadcast (the settlement's row). */
  durable?: StoredSend;
}

const EVENT_OF = { RELEASE: "PartReleased", REFUND: "PartRefunded", SPLIT: "PartSplitSettled" } as const;
const V2_EVENT_OF = { RELEASE: "PartReleased", REFUND: "PartRefunded", SPLIT: "PartSplit" } as const;

/** The part's settling call: version 1 names the agent, version 2 pays the one its payer assigned. */
function partCall(p: PartSettlement, jobId: Hex, part: bigint): EscrowCall {
  const version = p.version ?? 1;
  if (p.goal === "REFUND") return { version, functionName: "refundPart", args: [jobId, p.payer, part, p.amount] };
  if (version === 2)
    return p.goal === "RELEASE"
      ? { version, functionName: "releasePart", args: [jobId, p.payer, part, p.amount] }
      : { version, functionName: "settlePartSplit", args: [jobId, p.payer, part, p.amount, p.agentShare ?? 0n] };
  if (!p.to) throw new EscrowError("TX_FAILED", "a part settlement of the first escrow names the agent it pays");
  return p.goal === "RELEASE"
    ? { version, functionName: "releasePart", args: [jobId, p.payer, part, p.amount, p.to] }
    : { version, functionName: "settlePartSplit", args: [jobId, p.payer, part, p.amount, p.to, p.agentShare ?? 0n] };
}

export async function settleEscrowPart(p: PartSettlement): Promise<SettlementResult> {
  const jobId = normalizeEscrowJobId(p.escrowJobId);
  const part = BigInt(p.part);
  if (p.version === 2 && p.goal !== "REFUND" && !p.agent)
    throw new EscrowError("TX_FAILED", "a version 2 part release or split names the agent recorded at acceptance");
  const done = await existingPart(p, jobId, part);
  if (done) return done;
  const call = partCall(p, jobId, part);
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
  const version = p.version ?? 1;
  const address = escrowContractOf(p.config, version).address;
  // getPart is the same function in both contracts.
  const [settledBlock] = await client.readContract({
    address,
    abi: escrowAbi,
    functionName: "getPart",
    args: [jobId, p.payer, part],
  });
  if (settledBlock === 0n) {
    const slot = await getEscrow({ config: p.config, escrowJobId: jobId, payer: p.payer, version });
    if (slot.state !== "FUNDED")
      throw new EscrowError(
        slot.state === "NONE" ? "NOT_FUNDED" : "ALREADY_SETTLED",
        `the escrow slot is ${slot.state.toLowerCase()}; part ${p.part} cannot settle`,
      );
    if (version === 2)
      await checkV2SlotBeforeSettling(
        p.config,
        { ...(slot as EscrowV2Record), jobId },
        p.goal === "REFUND" ? undefined : p.agent,
      );
    return null;
  }
  const range = { fromBlock: settledBlock, toBlock: settledBlock };
  for (const goal of ["RELEASE", "REFUND", "SPLIT"] as const) {
    const logs =
      version === 2
        ? await client.getContractEvents({
            address,
            abi: escrowV2Abi,
            eventName: V2_EVENT_OF[goal],
            args: { jobId, payer: p.payer, part },
            ...range,
          })
        : await client.getContractEvents({
            address,
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
  const version = p.version ?? 1;
  const logs = receipt.logs.filter((l) => isAddressEqual(l.address, escrowContractOf(p.config, version).address));
  const events =
    version === 2
      ? parseEventLogs({ abi: escrowV2Abi, logs, args: { jobId } })
      : parseEventLogs({ abi: escrowAbi, logs, args: { jobId } });
  let to: Address | undefined;
  let amount = 0n;
  let fee = 0n;
  let payerAmount: bigint | undefined;
  for (const e of events) {
    if (!("part" in e.args) || e.args.part !== part || !isAddressEqual(e.args.payer, p.payer)) continue;
    if (e.eventName === "PartReleased" && p.goal === "RELEASE") {
      to = "agent" in e.args ? e.args.agent : e.args.to;
      ({ amount, fee } = e.args);
    }
    if (e.eventName === "PartRefunded" && p.goal === "REFUND") {
      to = e.args.payer;
      amount = e.args.amount;
    }
    if ((e.eventName === "PartSplitSettled" || e.eventName === "PartSplit") && p.goal === "SPLIT")
      ({ agent: to, agentAmount: amount, fee, payerAmount } = e.args);
  }
  return paidBy(receipt, events, { to, amount, fee, payerAmount });
}
