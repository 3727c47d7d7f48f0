import type { Address } from "viem";
import type { ChainConfig } from "@/lib/chain/config";
import { EscrowError } from "@/lib/chain/escrow/errors";
import type { EscrowContract, EscrowVersion } from "@/lib/chain/escrow/contracts";
import type { RecordedAgent } from "@/lib/chain/escrow/slot-v2";
import type { Db } from "../db/connection";

/**
 * Which escrow contract holds a job's slot: jobs.escrow_address and jobs.escrow_version (migration
 * 0125-job-escrow-contract), null while the job is not funded, and for a version 2 slot its expiry
 * (jobs.escrow_expires_at, migration 0135). A poster's deposit is registered in whichever
 * configured contract it went to (verify-deposit.ts: the Deposited event's emitter); a funded job
 * settles on the contract recorded here until it is done.
 */

/** What a job funded by a verified deposit records: the contract it went to, and a version 2 slot's expiry. */
export function escrowContractOfDeposit(deposit: { escrow: EscrowContract; expiresAt: bigint | null }) {
  return {
    escrow_address: deposit.escrow.address,
    escrow_version: deposit.escrow.version,
    escrow_expires_at: deposit.expiresAt === null ? null : new Date(Number(deposit.expiresAt) * 1000),
  };
}

/** What a reward slot funded by the rewards wallet records: the first escrow (version 1), where rewards are deposited. */
export function escrowContractOfNewDeposit(chain: ChainConfig): { escrow_address: string; escrow_version: 1 } {
  return { escrow_address: chain.escrowAddress, escrow_version: 1 };
}

/** What a job unfunded again (a reorganisation removed its deposit) records: no contract holds its slot. */
export const NO_ESCROW_CONTRACT = { escrow_address: null, escrow_version: null, escrow_expires_at: null } as const;

/**
 * Funded jobs that name no contract get the first escrow's address and version 1: those funded
 * before the migration (which recorded version 1 but could not know the address), and any written
 * by an instance of an earlier release during a rolling deploy. Only jobs of the configured chain,
 * and only version 1's: a version 2 deposit is always registered with its address.
 * Run by each round of the deposit watcher (escrow/worker.ts): one cheap update on a partial index
 * that is empty once every row is filled. Returns how many jobs it filled.
 */
export async function recordFirstEscrowOfFundedJobs(db: Db, chain: ChainConfig): Promise<number> {
  const result = await db
    .updateTable("jobs")
    .set({ escrow_address: chain.escrowAddress, escrow_version: 1 })
    .where("escrow_tx_hash", "is not", null)
    .where("escrow_address", "is", null)
    .where("chain_id", "=", chain.chainId)
    .where((eb) => eb.or([eb("escrow_version", "is", null), eb("escrow_version", "=", 1)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** What a job row says of the contract holding its slot and of the agent a version 2 slot pays. */
export interface JobSlotContract {
  escrow_version: 1 | 2 | null;
  escrow_agent: string | null;
  escrow_agent_block: string | null;
}

/** The columns of JobSlotContract, for the selects that read them. */
export const JOB_SLOT_CONTRACT_COLUMNS = [
  "jobs.escrow_version",
  "jobs.escrow_agent",
  "jobs.escrow_agent_block",
] as const;

/** The contract version of a funded job's slot: version 1 when the row names none (funded before 0125). */
export const escrowVersionOf = (job: Pick<JobSlotContract, "escrow_version">): EscrowVersion =>
  job.escrow_version === 2 ? 2 : 1;

/**
 * The agent a version 2 slot was assigned at acceptance, as settlements check it (slot-v2.ts).
 * None recorded: the slot cannot pay an agent (the contract would refuse, AgentNotAssigned), a
 * final refusal rather than a retry.
 */
export function recordedAgentOf(job: JobSlotContract): RecordedAgent {
  if (!job.escrow_agent)
    throw new EscrowError(
      "REVERTED",
      "no agent was assigned to this job's escrow slot at acceptance: the escrow pays none (AgentNotAssigned)",
    );
  return { address: job.escrow_agent as Address, sinceBlock: BigInt(job.escrow_agent_block ?? 0) };
}

/**
 * Where a settlement of the job pays its agent, as recorded on its settlement row: a version 2
 * slot's assigned agent (fixed at acceptance, whatever the agent's payout wallet is now); a
 * version 1 job's agent's payout wallet (null while it has none: the release waits for it).
 */
export async function agentPayoutOf(
  db: Db,
  job: JobSlotContract & { agent_id: string | null },
  agentId: string | null = job.agent_id,
): Promise<Address | null> {
  if (job.escrow_version === 2) return (job.escrow_agent as Address | null) ?? null;
  if (!agentId) return null;
  const agent = await db.selectFrom("agents").select("wallet_address").where("id", "=", agentId).executeTakeFirst();
  return (agent?.wallet_address as Address | null | undefined) ?? null;
}

/**
 * A version 2 slot's expiry read on chain, recorded on its job when it is later than the one
 * recorded (the payer's extendExpiry; the contract never shortens it). Returns whether it changed.
 */
export async function recordSlotExpiry(db: Db, jobId: string, expiresAtSeconds: bigint, now: Date): Promise<boolean> {
  const expiresAt = new Date(Number(expiresAtSeconds) * 1000);
  const result = await db
    .updateTable("jobs")
    .set({ escrow_expires_at: expiresAt, updated_at: now })
    .where("id", "=", jobId)
    .where("escrow_version", "=", 2)
    .where((eb) => eb.or([eb("escrow_expires_at", "is", null), eb("escrow_expires_at", "<", expiresAt)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
