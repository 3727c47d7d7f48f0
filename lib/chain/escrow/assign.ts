import { isAddressEqual, zeroAddress, parseEventLogs, type Address, type Hex } from "viem";
import { escrowV2Abi } from "../abi";
import { getPublicClient } from "../clients";
import type { ChainConfig } from "../config";
import type { StoredSend } from "../durable-transfer";
import { normalizeEscrowJobId } from "../escrow-id";
import { EscrowError } from "./errors";
import { escrowContractOf } from "./contracts";
import { getEscrowV2 } from "./reads";
import { sendSettlementCall } from "./settle";

// Assigning a version 2 slot's agent with the payer's consent (docs/escrow-v2.md, step 3): the
// EIP-712 `Assign` the payer signs, and relaying it as `assign(jobId, payer, agent, deadline,
// signature)` through the durable sender, once.

/** The EIP-712 data a payer signs to assign its slot's agent: what viem's signTypedData takes. */
export interface AssignmentTypedData {
  domain: { name: string; version: string; chainId: number; verifyingContract: Address };
  types: { Assign: Array<{ name: string; type: string }> };
  primaryType: "Assign";
  /** deadline: unix seconds, the last second the signature is good for. */
  message: { jobId: Hex; payer: Address; agent: Address; deadline: number };
}

/** EscrowV2's `Assign(bytes32 jobId,address payer,address agent,uint256 deadline)`. */
const ASSIGN_TYPES = {
  Assign: [
    { name: "jobId", type: "bytes32" },
    { name: "payer", type: "address" },
    { name: "agent", type: "address" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

/** The `Assign` for a slot, its domain read from the contract (ERC-5267 eip712Domain), never assumed. */
export async function assignmentTypedData(
  config: ChainConfig,
  slot: { escrowJobId: string; payer: Address; agent: Address; deadline: number },
): Promise<AssignmentTypedData> {
  const address = escrowContractOf(config, 2).address;
  const [, name, version, chainId, verifyingContract] = await getPublicClient(config).readContract({
    address,
    abi: escrowV2Abi,
    functionName: "eip712Domain",
  });
  return {
    domain: { name, version, chainId: Number(chainId), verifyingContract },
    types: { Assign: ASSIGN_TYPES.Assign.map((field) => ({ ...field })) },
    primaryType: "Assign",
    message: {
      jobId: normalizeEscrowJobId(slot.escrowJobId),
      payer: slot.payer,
      agent: slot.agent,
      deadline: slot.deadline,
    },
  };
}

/** A slot's agent, assigned: by this relay (txHash), or found already there (txHash null). */
export interface Assignment {
  agent: Address;
  /** The block it was assigned in, or read at: the agent's own moves are followed from there. */
  blockNumber: bigint;
  txHash: Hex | null;
}

/**
 * Makes `agent` the agent of `payer`'s slot, once. A slot that already has `agent` (the payer sent
 * `assign` itself, or an earlier relay landed) is done without sending; another agent there is a
 * final refusal (AGENT_MISMATCH). Otherwise, with the payer's `signature` (empty: only the payer
 * itself may send), the call is simulated first, so a signature that is not the payer's for this
 * job, agent, deadline, chain and contract is REVERTED with contractError InvalidSignature (or
 * SignatureExpired) before anything is signed; then signed, kept through `durable`, broadcast, and
 * waited for until AgentAssigned is mined.
 */
export async function assignAgent(params: {
  config: ChainConfig;
  escrowJobId: string;
  payer: Address;
  agent: Address;
  deadline: bigint;
  signature: Hex;
  durable?: StoredSend;
}): Promise<Assignment> {
  const { config, payer, agent } = params;
  const jobId = normalizeEscrowJobId(params.escrowJobId);
  const alreadyThere = async (): Promise<Assignment | null> => {
    const slot = await getEscrowV2({ config, escrowJobId: jobId, payer });
    if (slot.state === "NONE") throw new EscrowError("NOT_FUNDED", `no deposit by ${payer} for escrow job id ${jobId}`);
    if (slot.state !== "FUNDED")
      throw new EscrowError("ALREADY_SETTLED", `the escrow slot is ${slot.state.toLowerCase()}; it takes no agent`);
    if (isAddressEqual(slot.agent, zeroAddress)) return null;
    if (!isAddressEqual(slot.agent, agent))
      throw new EscrowError(
        "AGENT_MISMATCH",
        `the escrow slot already pays ${slot.agent}; an agent is assigned once`,
        undefined,
        "AgentAlreadyAssigned",
      );
    return {
      agent: slot.agent,
      blockNumber: await getPublicClient(config).getBlockNumber({ cacheTime: 0 }),
      txHash: null,
    };
  };
  const found = await alreadyThere();
  if (found) return found;
  let receipt;
  try {
    receipt = await sendSettlementCall(
      config,
      { version: 2, functionName: "assign", args: [jobId, payer, agent, params.deadline, params.signature] },
      "assignment of the agent",
      params.durable,
      async () => null,
    );
  } catch (error) {
    // A relay that lost to another (a retried request, the payer's own call) left the agent assigned.
    const raced = await alreadyThere().catch(() => null);
    if (raced) return raced;
    throw error;
  }
  if ("alreadySettled" in receipt) throw new EscrowError("TX_FAILED", "an assignment is not a settlement");
  const address = escrowContractOf(config, 2).address;
  const [assigned] = parseEventLogs({
    abi: escrowV2Abi,
    eventName: "AgentAssigned",
    logs: receipt.logs.filter((l) => isAddressEqual(l.address, address)),
    args: { jobId, payer },
  });
  if (!assigned)
    throw new EscrowError(
      "TX_FAILED",
      "the assignment succeeded but emitted no AgentAssigned",
      receipt.transactionHash,
    );
  return { agent: assigned.args.agent, blockNumber: receipt.blockNumber, txHash: receipt.transactionHash };
}
