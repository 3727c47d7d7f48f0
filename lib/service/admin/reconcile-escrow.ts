import { fail } from "../errors";
import { sql } from "kysely";
import type { Address, Hex } from "viem";
import { chainFailureReason } from "@/lib/chain/escrow/errors";
import { escrowAbi, escrowV2Abi } from "@/lib/chain/abi";
import { escrowContracts, type EscrowContract, type EscrowVersion } from "@/lib/chain/escrow/contracts";
import { getPublicClient } from "@/lib/chain/clients";
import type { ChainConfig } from "@/lib/chain/config";
import { normalizeEscrowJobId } from "@/lib/chain/escrow-id";
import type { Reconciliation } from "@/lib/api/schemas/admin";
import {
  erc20BalanceOf,
  feesAccruedOf,
  getEscrow,
  remainingInSlot,
  totalClaimableOf,
  type EscrowRecord,
} from "@/lib/chain/escrow/reads";
import { formatUsdc, parseUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import { reconcileTransfers, recordReconciliation } from "./reconcile-transfers";
import { followOutsideSettlements } from "../escrow/outside-settlements";

type Difference = Reconciliation["differences"][number];

/** Slots read at once: enough to be quick on a few thousand held jobs without flooding the RPC. */
const READ_CONCURRENCY = 16;

/**
 * GET /v1/admin/reconciliation. What the database says the escrow holds (jobs whose deposit was
 * verified and that have no confirmed settlement) against the chain: each of those jobs' slot must
 * be FUNDED with the job's budget, and the contract's token balance must be exactly those slots
 * plus the credits it keeps for refused payouts. Anything else is listed as a difference.
 */
export async function reconcileEscrow(ctx: ServiceContext): Promise<Reconciliation> {
  const chain = ctx.config.chain;
  const checkedAt = ctx.now().toISOString();
  if (!chain) {
    return {
      checkedAt,
      chainConfigured: false,
      escrowAddress: null,
      jobsHeld: 0,
      heldInDatabaseUsdc: "0",
      heldOnChainUsdc: "0",
      claimableUsdc: "0",
      feesAccruedUsdc: "0",
      strayDepositsScanned: false,
      strayDeposits: [],
      tokenBalanceUsdc: "0",
      transfersScanned: false,
      settledOutsideService: 0,
      differences: [],
    };
  }
  // EscrowV2 slots the parties (or anyone, after the expiry) settled without the service are
  // recorded first (as the deposit watcher does): settled outside the service, not differences.
  await followOutsideSettlements(ctx);
  const held = await ctx.db
    .selectFrom("jobs as j")
    .select(["j.id", "j.escrow_job_id", "j.escrow_payer", "j.budget_usdc", "j.escrow_version"])
    // The parts of a job paid in milestones that already left the slot (confirmed part settlements).
    .select(
      sql<string>`(select coalesce(sum(ms.part_units), 0)::text from milestone_settlements ms where ms.job_id = j.id and ms.status = 'CONFIRMED')`.as(
        "parts_units",
      ),
    )
    .where("j.escrow_tx_hash", "is not", null)
    .where("j.chain_id", "=", chain.chainId)
    .where((eb) => eb.fn("lower", ["j.token_address"]), "=", chain.tokenAddress.toLowerCase())
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("escrow_settlements as s")
            .select("s.id")
            .whereRef("s.job_id", "=", "j.id")
            .where("s.status", "=", "CONFIRMED"),
        ),
      ),
    )
    .orderBy("j.funded_at")
    .execute();

  // Each contract holds its own slots, credits and fees: the first escrow, and EscrowV2 once deployed.
  const contracts = escrowContracts(chain);
  let perContract: Array<{ balance: bigint; claimable: bigint; fees: bigint }>;
  try {
    perContract = await Promise.all(
      contracts.map(async ({ version, address }) => {
        const [balance, claimable, fees] = await Promise.all([
          erc20BalanceOf({ config: chain, address }),
          totalClaimableOf(chain, version),
          feesAccruedOf(chain, version),
        ]);
        return { balance, claimable, fees };
      }),
    );
  } catch (error) {
    throw fail("CHAIN_UNAVAILABLE", `the chain could not be read: ${chainFailureReason(error)}`);
  }
  const sum = (pick: (c: (typeof perContract)[number]) => bigint) => perContract.reduce((t, c) => t + pick(c), 0n);
  const [balance, claimable, fees] = [sum((c) => c.balance), sum((c) => c.claimable), sum((c) => c.fees)];
  const onChainOf = new Map<EscrowVersion, bigint>(contracts.map((c) => [c.version, 0n]));

  const differences: Difference[] = [];
  let inDatabase = 0n;
  let onChain = 0n;
  for (let i = 0; i < held.length; i += READ_CONCURRENCY) {
    const batch = held.slice(i, i + READ_CONCURRENCY);
    const slots = await Promise.all(
      batch.map((job) =>
        job.escrow_payer
          ? getEscrow({
              config: chain,
              escrowJobId: job.escrow_job_id,
              payer: job.escrow_payer as Address,
              version: versionOf(job),
            })
              .then(async (slot) =>
                // A slot that paid parts holds what they left: the deposit less the settled parts.
                BigInt(job.parts_units) > 0n && slot.state === "FUNDED"
                  ? {
                      ...slot,
                      amount: await remainingInSlot({
                        config: chain,
                        escrowJobId: job.escrow_job_id,
                        payer: job.escrow_payer as Address,
                        version: versionOf(job),
                      }),
                    }
                  : slot,
              )
              .catch((error: Error) => error)
          : Promise.resolve(new Error("the job has no registered payer")),
      ),
    );
    batch.forEach((job, k) => {
      const expected = parseUsdc(job.budget_usdc) - BigInt(job.parts_units);
      // Every part settled: the slot is empty (PARTS_SETTLED) and nothing is held.
      if (expected === 0n) return;
      inDatabase += expected;
      const slot = slots[k] as EscrowRecord | Error;
      if (slot instanceof Error) {
        differences.push({
          kind: "SLOT_UNREADABLE",
          jobId: job.id,
          detail: `the slot could not be read: ${chainFailureReason(slot)}`,
          databaseUsdc: formatUsdc(expected),
          chainUsdc: null,
        });
        return;
      }
      if (slot.state !== "FUNDED") {
        differences.push({
          kind: "SLOT_NOT_FUNDED",
          jobId: job.id,
          detail: `the database holds this job's budget in escrow, but its slot on chain is ${slot.state}${slot.settledBlock > 0n ? ` (settled in block ${slot.settledBlock})` : ""}`,
          databaseUsdc: formatUsdc(expected),
          chainUsdc: "0",
        });
        return;
      }
      onChain += slot.amount;
      onChainOf.set(versionOf(job), (onChainOf.get(versionOf(job)) ?? 0n) + slot.amount);
      if (slot.amount !== expected) {
        differences.push({
          kind: "AMOUNT_MISMATCH",
          jobId: job.id,
          detail: "the slot holds another amount than the job's budget",
          databaseUsdc: formatUsdc(expected),
          chainUsdc: formatUsdc(slot.amount),
        });
      }
    });
  }

  // A contract's balance is its funded slots, its credits, its fees and the deposits nobody registered.
  let strays: Array<{ jobId: string; payer: Address; amount: bigint }> | null = [];
  for (const [i, contract] of contracts.entries()) {
    const found = await findStrayDeposits(ctx, chain, contract);
    strays = strays && found ? [...strays, ...found] : null;
    const { balance: held, claimable: credits, fees: accrued } = perContract[i]!;
    const explained =
      (onChainOf.get(contract.version) ?? 0n) + credits + accrued + (found?.reduce((t, s) => t + s.amount, 0n) ?? 0n);
    if (held === explained) continue;
    const name = contract.version === 2 ? `EscrowV2 (${contract.address})` : `the escrow (${contract.address})`;
    differences.push({
      kind: "BALANCE_MISMATCH",
      jobId: null,
      detail:
        held > explained
          ? `${name} holds ${formatUsdc(held - explained)} USDC more than the funded slots the database knows, the claimable credits and the accrued fees (a deposit the service never registered, or a settlement it did not record)`
          : `${name} holds ${formatUsdc(explained - held)} USDC less than the funded slots, the claimable credits and the accrued fees`,
      databaseUsdc: formatUsdc(explained),
      chainUsdc: formatUsdc(held),
    });
  }
  // Every outgoing transfer (withdrawals, pack payouts, reward slot deposits, settlements) against the chain.
  const transfers = await reconcileTransfers(ctx, chain);
  differences.push(...transfers.differences);
  const report: Reconciliation = {
    checkedAt,
    chainConfigured: true,
    escrowAddress: chain.escrowAddress,
    jobsHeld: held.length,
    heldInDatabaseUsdc: formatUsdc(inDatabase),
    heldOnChainUsdc: formatUsdc(onChain),
    claimableUsdc: formatUsdc(claimable),
    feesAccruedUsdc: formatUsdc(fees),
    strayDepositsScanned: strays !== null,
    strayDeposits: (strays ?? []).map((s) => ({
      escrowJobId: s.jobId,
      payer: s.payer,
      amountUsdc: formatUsdc(s.amount),
    })),
    tokenBalanceUsdc: formatUsdc(balance),
    transfersScanned: transfers.transfersScanned,
    settledOutsideService: Number(
      (
        await ctx.db
          .selectFrom("escrow_settlements as s")
          .innerJoin("jobs as j", "j.id", "s.job_id")
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .where("s.status", "=", "CONFIRMED")
          .where("s.settled_outside", "is not", null)
          .where("j.chain_id", "=", chain.chainId)
          .executeTakeFirstOrThrow()
      ).n,
    ),
    differences,
  };
  await recordReconciliation(ctx, chain, report);
  return report;
}

/**
 * Deposits the service never registered that the contract still holds: anyone may deposit under a
 * job's public id into their own slot (a stranger's front-run, or a poster who has not registered
 * yet). They are explained money, not a disagreement: listed apart, and the operator may refund
 * them to their payer. Found from the contract's Deposited events; null when the RPC will not
 * serve the whole log range (then they show up in BALANCE_MISMATCH instead).
 */
async function findStrayDeposits(
  ctx: ServiceContext,
  chain: ChainConfig,
  contract: EscrowContract,
): Promise<Array<{ jobId: string; payer: Address; amount: bigint }> | null> {
  let logs: Array<{ args: { jobId?: Hex; payer?: Address } }>;
  try {
    logs = await getPublicClient(chain).getContractEvents({
      address: contract.address,
      abi: contract.version === 2 ? escrowV2Abi : escrowAbi,
      eventName: "Deposited",
      fromBlock: 0n,
    });
  } catch {
    return null;
  }
  const registered = new Set(
    (
      await ctx.db
        .selectFrom("jobs")
        .select(["escrow_job_id", "escrow_payer", "escrow_version"])
        .where("escrow_payer", "is not", null)
        .where("chain_id", "=", chain.chainId)
        .execute()
    )
      .filter((j) => versionOf(j) === contract.version)
      .map((j) => `${normalizeEscrowJobId(j.escrow_job_id).toLowerCase()}:${j.escrow_payer!.toLowerCase()}`),
  );
  const candidates = new Map<string, { jobId: string; payer: Address }>();
  for (const log of logs) {
    const key = `${log.args.jobId!.toLowerCase()}:${log.args.payer!.toLowerCase()}`;
    if (!registered.has(key)) candidates.set(key, { jobId: log.args.jobId!, payer: log.args.payer! });
  }
  const strays: Array<{ jobId: string; payer: Address; amount: bigint }> = [];
  for (const c of candidates.values()) {
    const slot = await getEscrow({ config: chain, escrowJobId: c.jobId, payer: c.payer, version: contract.version });
    if (slot.state === "FUNDED") strays.push({ ...c, amount: slot.amount });
  }
  return strays;
}

/** The contract holding a job's slot: jobs.escrow_version (null before migration 0125's first round: the first escrow). */
const versionOf = (job: { escrow_version: number | null }): EscrowVersion => (job.escrow_version === 2 ? 2 : 1);
