import { isAddressEqual, zeroAddress, type Address, type Hex } from "viem";
import { escrowV2Abi } from "../abi";
import { getPublicClient } from "../clients";
import type { ChainConfig } from "../config";
import { EscrowError, contractErrorSentence } from "./errors";
import { escrowContractOf } from "./contracts";
import type { EscrowV2Record } from "./reads";

// What the operator checks of a version 2 slot before it settles it (docs/escrow-v2.md, step 4):
// the slot pays the agent the service recorded at acceptance (or where that agent moved itself),
// and its expiry is far enough ahead that the settlement cannot race a claimRefund.

/**
 * No operator settlement is sent within this many seconds of a slot's expiry: a transaction signed
 * now may be mined minutes later, when the contract refuses it (SlotExpired) or claimRefund has
 * already returned the money. The slot then goes back to its payer through claimRefund.
 */
export const SETTLE_MARGIN_SECONDS = 15n * 60n;

/** What the service recorded of a slot's agent: its address and the block it learnt it in. */
export interface RecordedAgent {
  address: Address;
  /** The block of the assignment (or of the last move followed): AgentMoved is looked for from there. */
  sinceBlock: bigint;
}

/** The agent a slot pays now, when it is the one recorded or where that one moved itself. */
export interface FollowedAgent {
  address: Address;
  /** The block the chain was read at: moves before it are followed. */
  atBlock: bigint;
  moved: boolean;
}

/**
 * The slot's agent, checked against the one recorded: the same address, or the end of a chain of
 * the agent's own AgentMoved events (moveAgent / moveAgentWithSig: only the current agent can move
 * it) starting at the recorded address. Anything else, or no agent at all, is a final refusal
 * (AGENT_MISMATCH, REVERTED AgentNotAssigned): the service never pays an agent it did not choose.
 */
export async function followAssignedAgent(
  config: ChainConfig,
  slot: EscrowV2Record & { jobId: Hex },
  recorded: RecordedAgent,
): Promise<FollowedAgent> {
  if (isAddressEqual(slot.agent, zeroAddress))
    throw new EscrowError(
      "REVERTED",
      `the escrow refuses it: ${contractErrorSentence("AgentNotAssigned", [])} (AgentNotAssigned)`,
    );
  const client = getPublicClient(config);
  const atBlock = await client.getBlockNumber({ cacheTime: 0 });
  if (isAddressEqual(slot.agent, recorded.address)) return { address: slot.agent, atBlock, moved: false };
  const moves = await client.getContractEvents({
    address: escrowContractOf(config, 2).address,
    abi: escrowV2Abi,
    eventName: "AgentMoved",
    args: { jobId: slot.jobId, payer: slot.payer },
    fromBlock: recorded.sinceBlock,
    toBlock: atBlock,
    strict: true,
  });
  // Logs come in chain order; each move starts where the previous one ended.
  let current = recorded.address;
  for (const move of moves) if (isAddressEqual(move.args.from, current)) current = move.args.to;
  if (!isAddressEqual(current, slot.agent))
    throw new EscrowError(
      "AGENT_MISMATCH",
      `the escrow slot pays ${slot.agent}, not the agent ${recorded.address} accepted for this job nor an address it moved to`,
    );
  return { address: slot.agent, atBlock, moved: true };
}

/**
 * Refuses (SLOT_EXPIRING, final) an operator settlement of a slot whose expiry is less than
 * SETTLE_MARGIN_SECONDS after the chain's latest block: it returns to the payer by claimRefund.
 */
export async function assertClearOfExpiry(config: ChainConfig, slot: EscrowV2Record): Promise<void> {
  const latest = await getPublicClient(config).getBlock({ blockTag: "latest" });
  if (latest.timestamp + SETTLE_MARGIN_SECONDS < slot.expiresAt) return;
  const at = new Date(Number(slot.expiresAt) * 1000).toISOString();
  throw new EscrowError(
    "SLOT_EXPIRING",
    latest.timestamp >= slot.expiresAt
      ? `the escrow slot expired at ${at}: the operator cannot settle it; anyone may return it to the payer with claimRefund`
      : `the escrow slot expires at ${at}, within ${SETTLE_MARGIN_SECONDS / 60n} minutes: no settlement is sent so close to it (it could race a claimRefund); the payer may extend the expiry, or it returns to the payer`,
  );
}
