import { isAddressEqual, zeroAddress, type Address, type Hex } from "viem";
import { getPublicClient } from "@/lib/chain/clients";
import type { ChainConfig } from "@/lib/chain/config";
import { assignAgent, assignmentTypedData, type Assignment } from "@/lib/chain/escrow/assign";
import { EscrowError, chainFailureReason } from "@/lib/chain/escrow/errors";
import { getEscrowV2 } from "@/lib/chain/escrow/reads";
import { assertKept, type StoredSend } from "@/lib/chain/durable-transfer";
import { requireChain, type ServiceContext } from "../context";
import { fail } from "../errors";
import { requirePayableAddress } from "../payouts/payable-address";

/**
 * Fixing the agent of a job's EscrowV2 slot at the step where the poster chooses it (accepting a
 * bid; docs/escrow-v2.md, step 3). The slot will pay only that address, so it is the chosen
 * agent's payout wallet now, and the payer consents on chain: by its EIP-712 `Assign`, which the
 * service relays, or by sending `assign` itself. Nothing is accepted until the assignment is
 * mined; the address and its block are recorded on the job (jobs.escrow_agent) for every
 * settlement to check against.
 */

/** How long an `Assign` the service asks for stays good: time to sign and send it back. */
const ASSIGNMENT_TTL_SECONDS = 3600;

export interface SlotToAssign {
  id: string;
  escrow_job_id: string;
  escrow_payer: string | null;
}

/**
 * Makes sure the job's EscrowV2 slot pays `agentId`'s payout wallet, assigning it on chain when
 * it pays nobody yet; returns once it does, or throws the answer to give (409
 * ASSIGNMENT_SIGNATURE_REQUIRED with the data to sign, 400 ASSIGNMENT_SIGNATURE_INVALID, 409
 * AGENT_ALREADY_ASSIGNED, 409 AGENT_WALLET_MISSING, 400 ADDRESS_NOT_PAYABLE, 503 CHAIN_UNAVAILABLE).
 * The deadline of the `Assign` asked for is kept on the job (escrow_assign_deadline), so the
 * signature sent back is relayed with the deadline it was made for.
 */
export async function assignSlotAgent(
  ctx: ServiceContext,
  job: SlotToAssign,
  agentId: string,
  signature: string | undefined,
  /** Where the poster asks the agent's owner for a wallet ("ask the owner"), added to AGENT_WALLET_MISSING. */
  askOwner?: { askOwnerPath: string; walletAskedAt: string | null },
): Promise<void> {
  const chain = requireChain(ctx);
  if (!job.escrow_payer) throw fail("CHAIN_UNAVAILABLE", "the job's deposit names no payer; register it again");
  const payer = job.escrow_payer as Address;
  const agentRow = await ctx.db
    .selectFrom("agents")
    .select("wallet_address")
    .where("id", "=", agentId)
    .executeTakeFirst();
  if (!agentRow?.wallet_address)
    throw fail(
      "AGENT_WALLET_MISSING",
      `the job is funded in the escrow that pays only the agent fixed at acceptance, and this agent has no payout wallet: its owner sets walletAddress (PATCH /v1/agents/:id), then accept again${askOwner ? ` (POST ${askOwner.askOwnerPath} asks the owner, and you are told when it is set)` : ""}`,
      { agentId, ...askOwner },
    );
  const agent = await requirePayableAddress(ctx, agentRow.wallet_address, "walletAddress");

  const slot = await onChain(() => getEscrowV2({ config: chain, escrowJobId: job.escrow_job_id, payer }));
  if (!isAddressEqual(slot.agent, zeroAddress)) {
    // Assigned already: by the payer's own call, or by an earlier relay of this acceptance.
    if (!isAddressEqual(slot.agent, agent)) throw alreadyAssigned(slot.agent);
    return recordAgent(ctx, job.id, agent, await onChain(() => blockNow(chain)));
  }
  const deadlineOffered = signature ? await offeredDeadline(ctx, job.id) : null;
  const nowSeconds = Math.floor(ctx.now().getTime() / 1000);
  if (!signature || deadlineOffered === null || deadlineOffered < nowSeconds) {
    const assignment = await offerAssignment(ctx, job, payer, agent);
    throw fail(
      "ASSIGNMENT_SIGNATURE_REQUIRED",
      signature
        ? "the signature was made for an assignment that is no longer open (expired, or another one was asked for since): sign `assignment` and accept again with {assignmentSignature}"
        : "the job is funded in the escrow that pays only the agent its payer assigned: sign `assignment` with the wallet that funded the job and accept again with {assignmentSignature}, or send assign from that wallet and accept again",
      { assignment },
    );
  }
  let assigned: Assignment;
  try {
    assigned = await assignAgent({
      config: chain,
      escrowJobId: job.escrow_job_id,
      payer,
      agent,
      deadline: BigInt(deadlineOffered),
      signature: signature as Hex,
      durable: await keptOnJob(ctx, job.id),
    });
  } catch (error) {
    if (error instanceof EscrowError && error.code === "AGENT_MISMATCH") {
      const now = await getEscrowV2({ config: chain, escrowJobId: job.escrow_job_id, payer }).catch(() => null);
      throw alreadyAssigned(now?.agent ?? zeroAddress);
    }
    if (error instanceof EscrowError && error.code === "REVERTED")
      throw fail("ASSIGNMENT_SIGNATURE_INVALID", `the escrow refuses this assignment: ${error.message}`, {
        reason: error.contractError ?? "REVERTED",
        assignment: await offerAssignment(ctx, job, payer, agent),
      });
    throw fail(
      "CHAIN_UNAVAILABLE",
      `the assignment of the agent on chain did not complete (${chainFailureReason(error)}); nothing was accepted: send the same call again`,
    );
  }
  await recordAgent(ctx, job.id, assigned.agent, assigned.blockNumber);
}

const alreadyAssigned = (assignedAgent: Address) =>
  fail(
    "AGENT_ALREADY_ASSIGNED",
    `the job's escrow slot already pays ${assignedAgent}, assigned once by its payer: only a bid whose agent is paid there can be accepted`,
    { assignedAgent },
  );

/** A fresh `Assign` to sign (deadline an hour ahead), its deadline kept on the job for the signature's return. */
async function offerAssignment(ctx: ServiceContext, job: SlotToAssign, payer: Address, agent: Address) {
  const deadline = Math.floor(ctx.now().getTime() / 1000) + ASSIGNMENT_TTL_SECONDS;
  const assignment = await onChain(() =>
    assignmentTypedData(requireChain(ctx), { escrowJobId: job.escrow_job_id, payer, agent, deadline }),
  );
  await ctx.db.updateTable("jobs").set({ escrow_assign_deadline: deadline }).where("id", "=", job.id).execute();
  return assignment;
}

async function offeredDeadline(ctx: ServiceContext, jobId: string): Promise<number | null> {
  const job = await ctx.db
    .selectFrom("jobs")
    .select("escrow_assign_deadline")
    .where("id", "=", jobId)
    .executeTakeFirst();
  return job?.escrow_assign_deadline == null ? null : Number(job.escrow_assign_deadline);
}

/** The slot's agent as the service learnt it; moves of the agent's own are followed from `block`. */
async function recordAgent(ctx: ServiceContext, jobId: string, agent: Address, block: bigint): Promise<void> {
  await ctx.db
    .updateTable("jobs")
    .set({ escrow_agent: agent, escrow_agent_block: block.toString() })
    .where("id", "=", jobId)
    .execute();
}

/** The relayed `assign`, kept on the job before it is broadcast: a retried acceptance asks the chain about it. */
async function keptOnJob(ctx: ServiceContext, jobId: string): Promise<StoredSend> {
  const row = await ctx.db
    .selectFrom("jobs")
    .select(["escrow_assign_raw_tx", "escrow_assign_tx_hash"])
    .where("id", "=", jobId)
    .executeTakeFirstOrThrow();
  const jobs = () => ctx.db.updateTable("jobs").where("id", "=", jobId);
  return {
    stored: { raw: row.escrow_assign_raw_tx as Hex | null, hash: row.escrow_assign_tx_hash as Hex | null },
    forget: async (hash) => {
      await jobs()
        .set({ escrow_assign_raw_tx: null, escrow_assign_tx_hash: null })
        .where("escrow_assign_tx_hash", "=", hash)
        .execute();
    },
    record: async (raw, hash) => {
      assertKept(
        await jobs()
          .set({ escrow_assign_raw_tx: raw, escrow_assign_tx_hash: hash })
          .where("escrow_assign_tx_hash", "is", null)
          .executeTakeFirst(),
      );
    },
  };
}

/** A read of the chain; no answer is 503 CHAIN_UNAVAILABLE (nothing was accepted). */
async function onChain<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw fail("CHAIN_UNAVAILABLE", `the escrow could not be read (${chainFailureReason(error)}); try again`);
  }
}

const blockNow = (chain: ChainConfig) => getPublicClient(chain).getBlockNumber({ cacheTime: 0 });
