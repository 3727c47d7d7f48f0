import type { ChainConfig } from "@/lib/chain/config";
import type { Db } from "../db/connection";

/**
 * Which escrow contract holds a job's slot: jobs.escrow_address and jobs.escrow_version (migration
 * 0125-job-escrow-contract), null while the job is not funded. EscrowV2 is deployed beside the
 * first escrow (docs/escrow-v2.md, step 1), but the service does not take deposits into it yet
 * (steps 2 to 4: the expiry at deposit, the agent assigned at acceptance, settlements without a
 * destination). So every deposit registered now is the first escrow's, version 1, and a funded
 * job settles on the contract recorded here until it is done.
 */

/** What a job funded now records: the contract its verified deposit went to (ChainConfig.escrowAddress). */
export function escrowContractOfNewDeposit(chain: ChainConfig): { escrow_address: string; escrow_version: 1 } {
  return { escrow_address: chain.escrowAddress, escrow_version: 1 };
}

/** What a job unfunded again (a reorganisation removed its deposit) records: no contract holds its slot. */
export const NO_ESCROW_CONTRACT = { escrow_address: null, escrow_version: null } as const;

/**
 * Funded jobs that name no contract get the first escrow's address and version 1: those funded
 * before the migration (which recorded version 1 but could not know the address), and any written
 * by an instance of an earlier release during a rolling deploy. Only jobs of the configured chain;
 * no job is funded in EscrowV2 yet, so a funded job without an address can only be version 1's.
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
