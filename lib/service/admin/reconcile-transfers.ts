import { getAddress, isAddressEqual, parseEventLogs, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { usdcAbi } from "@/lib/chain/abi";
import { getPublicClient } from "@/lib/chain/clients";
import type { ChainConfig } from "@/lib/chain/config";
import { getEscrow, partSettledBlock } from "@/lib/chain/escrow/reads";
import type { EscrowVersion } from "@/lib/chain/escrow/contracts";
import type { Reconciliation } from "@/lib/api/schemas/admin";
import { formatUsdc, normaliseDecimal, parseUsdc } from "@/lib/chain/units";
import { chainFailureReason } from "@/lib/chain/escrow/errors";
import type { ServiceContext } from "../context";
import { chainKeyOf, managedWalletAddress } from "../rewards/amounts";

type Difference = Reconciliation["differences"][number];

/** Slots read at once, as for the held jobs. */
const READ_CONCURRENCY = 16;
/** Confirmed escrow settlements checked per run, newest first: enough for weeks of settlements in one page of reads. */
const SETTLEMENTS_CHECKED = 1_000;

interface OutgoingRow {
  table: "wallet_withdrawals" | "eval_pack_payouts" | "jobs";
  id: string;
  userId: string | null;
  jobId: string | null;
  to: Address;
  units: bigint;
  txHash: string | null;
  confirmed: boolean;
  what: string;
}

/**
 * Every outgoing transfer the service sends against the chain's token Transfer events:
 * - each USDC transfer out of the service's wallets (the rewards wallet, which is also the managed
 *   wallet, and the operator wallet) must be a row the database recorded (a withdrawal, a pack
 *   payout, a reward slot's escrow deposit) with that transaction hash: one it does not know is
 *   TRANSFER_UNRECORDED, naming the rows it looks like (same recipient and amount: a second
 *   payment of one withdrawal shows up here);
 * - each row the database says is CONFIRMED must have its transfer on chain, to its recipient and
 *   of its amount: otherwise TRANSFER_MISSING names the row;
 * - each CONFIRMED escrow settlement's slot must be settled on chain the way the row says
 *   (released, refunded or split): otherwise SETTLEMENT_MISMATCH names the settlement and its job;
 * - each x402 payment (a payer's USDC to the pack treasury, sent by the operator key) recorded as
 *   SETTLED must have its transfer on chain (TRANSFER_MISSING), and one still PENDING (sent) in the books
 *   whose transfer the chain has is TRANSFER_UNRECORDED until the worker records it.
 * Returns the differences and whether the transfer events could be read (some RPCs refuse a scan
 * from block 0; the settlements are checked either way).
 */
export async function reconcileTransfers(
  ctx: ServiceContext,
  chain: ChainConfig,
): Promise<{ transfersScanned: boolean; differences: Difference[] }> {
  const differences: Difference[] = [];
  const rewardsWallet = getAddress(managedWalletAddress(chain)!);
  const operatorWallet = privateKeyToAccount(chain.operatorPrivateKey).address;
  const wallets = [...new Set([rewardsWallet, operatorWallet])];

  const rows = await outgoingRows(ctx, chain, rewardsWallet, operatorWallet);
  let logs: Array<{ txHash: string; from: Address; to: Address; units: bigint }> | null = null;
  try {
    const client = getPublicClient(chain);
    const found = await Promise.all(
      wallets.map((from) =>
        client.getContractEvents({
          address: chain.tokenAddress,
          abi: usdcAbi,
          eventName: "Transfer",
          args: { from },
          fromBlock: 0n,
        }),
      ),
    );
    logs = found.flat().map((l) => ({
      txHash: l.transactionHash!.toLowerCase(),
      from: l.args.from as Address,
      to: l.args.to as Address,
      units: l.args.value as bigint,
    }));
  } catch {
    logs = null;
  }

  if (logs) {
    const byHash = new Map<string, OutgoingRow>();
    for (const row of rows) if (row.txHash) byHash.set(row.txHash.toLowerCase(), row);
    for (const log of logs) {
      const row = byHash.get(log.txHash);
      if (row && isAddressEqual(row.to, log.to) && row.units === log.units) continue;
      if (row) {
        differences.push({
          kind: "TRANSFER_MISMATCH",
          jobId: row.jobId,
          table: row.table,
          rowId: row.id,
          userId: row.userId,
          txHash: log.txHash,
          detail: `${row.what} was recorded as ${formatUsdc(row.units)} USDC to ${row.to}; its transaction moved ${formatUsdc(log.units)} USDC to ${log.to}`,
          databaseUsdc: formatUsdc(row.units),
          chainUsdc: formatUsdc(log.units),
        });
        continue;
      }
      const lookalikes = rows.filter((r) => isAddressEqual(r.to, log.to) && r.units === log.units);
      const named = lookalikes[0];
      differences.push({
        kind: "TRANSFER_UNRECORDED",
        jobId: named?.jobId ?? null,
        table: named?.table ?? null,
        rowId: named?.id ?? null,
        userId: named?.userId ?? null,
        txHash: log.txHash,
        detail:
          `${formatUsdc(log.units)} USDC left ${log.from} for ${log.to} in ${log.txHash}, which no recorded transfer names` +
          (named
            ? `; it looks like a second payment of ${named.what} (${named.table} ${named.id}, recorded with ${named.txHash ?? "no transaction"})`
            : ""),
        databaseUsdc: null,
        chainUsdc: formatUsdc(log.units),
      });
    }
    const onChain = new Set(logs.map((l) => l.txHash));
    for (const row of rows) {
      if (!row.confirmed || (row.txHash && onChain.has(row.txHash.toLowerCase()))) continue;
      differences.push({
        kind: "TRANSFER_MISSING",
        jobId: row.jobId,
        table: row.table,
        rowId: row.id,
        userId: row.userId,
        txHash: row.txHash,
        detail: `${row.what} is recorded as confirmed, but the chain has no transfer of it${row.txHash ? ` in ${row.txHash}` : ""}`,
        databaseUsdc: formatUsdc(row.units),
        chainUsdc: "0",
      });
    }
  }

  differences.push(...(await checkSettlements(ctx, chain)));
  differences.push(...(await checkX402Payments(ctx, chain)));
  return { transfersScanned: logs !== null, differences };
}

async function outgoingRows(
  ctx: ServiceContext,
  chain: ChainConfig,
  rewardsWallet: Address,
  operatorWallet: Address,
): Promise<OutgoingRow[]> {
  const [withdrawals, payouts, deposits] = await Promise.all([
    ctx.db
      .selectFrom("wallet_withdrawals")
      .select(["id", "owner_user_id", "to_address", "amount_usdc", "sent_tx_hash", "status"])
      .where("chain_key", "=", chainKeyOf(chain))
      .where("status", "<>", "FAILED")
      .execute(),
    ctx.db
      .selectFrom("eval_pack_payouts")
      .select(["id", "publisher_user_id", "to_address", "amount_units", "sent_tx_hash", "status"])
      .where((eb) => eb.or([eb("chain_id", "is", null), eb("chain_id", "=", chain.chainId)]))
      .execute(),
    // Escrow deposits the service's own wallets made (reward slots): a Transfer to the escrow.
    ctx.db
      .selectFrom("jobs")
      .select(["id", "poster_id", "escrow_tx_hash", "budget_usdc"])
      .where("chain_id", "=", chain.chainId)
      .where("escrow_tx_hash", "is not", null)
      .where((eb) => eb.fn("lower", ["escrow_payer"]), "in", [
        rewardsWallet.toLowerCase(),
        operatorWallet.toLowerCase(),
      ])
      .execute(),
  ]);
  return [
    ...withdrawals.map((w): OutgoingRow => ({
      table: "wallet_withdrawals",
      id: w.id,
      userId: w.owner_user_id,
      jobId: null,
      to: w.to_address as Address,
      units: parseUsdc(normaliseDecimal(w.amount_usdc)),
      txHash: w.sent_tx_hash,
      confirmed: w.status === "CONFIRMED",
      what: `withdrawal ${w.id} of user ${w.owner_user_id}`,
    })),
    ...payouts.map((p): OutgoingRow => ({
      table: "eval_pack_payouts",
      id: p.id,
      userId: p.publisher_user_id,
      jobId: null,
      to: p.to_address as Address,
      units: BigInt(p.amount_units),
      txHash: p.sent_tx_hash,
      confirmed: p.status === "CONFIRMED",
      what: `pack payout ${p.id} to publisher ${p.publisher_user_id}`,
    })),
    ...deposits.map((j): OutgoingRow => ({
      table: "jobs",
      id: j.id,
      userId: null,
      jobId: j.id,
      to: chain.escrowAddress,
      units: parseUsdc(normaliseDecimal(j.budget_usdc)),
      txHash: j.escrow_tx_hash,
      confirmed: true,
      what: `the escrow deposit of job ${j.id}`,
    })),
  ];
}

/** The slot's state a confirmed settlement leaves; a refund claimed after the expiry (settled_outside CLAIM_REFUND) leaves REFUND_CLAIMED. */
const SETTLED_AS = { RELEASE: "RELEASED", REFUND: "REFUNDED", SPLIT: "SPLIT" } as const;

async function checkSettlements(ctx: ServiceContext, chain: ChainConfig): Promise<Difference[]> {
  const settled = await ctx.db
    .selectFrom("escrow_settlements as s")
    .innerJoin("jobs as j", "j.id", "s.job_id")
    .select([
      "s.id",
      "s.job_id",
      "s.kind",
      "s.tx_hash",
      "s.amount_units",
      "s.settled_outside",
      "j.escrow_job_id",
      "j.escrow_payer",
      "j.escrow_version",
    ])
    .where("s.status", "=", "CONFIRMED")
    .where("j.chain_id", "=", chain.chainId)
    .where((eb) => eb.fn("lower", ["j.token_address"]), "=", chain.tokenAddress.toLowerCase())
    .orderBy("s.confirmed_at", "desc")
    .limit(SETTLEMENTS_CHECKED)
    .execute();
  const differences: Difference[] = [];
  for (let i = 0; i < settled.length; i += READ_CONCURRENCY) {
    const batch = settled.slice(i, i + READ_CONCURRENCY);
    const slots = await Promise.all(
      batch.map((s) =>
        s.escrow_payer
          ? getEscrow({
              config: chain,
              escrowJobId: s.escrow_job_id,
              payer: s.escrow_payer as Address,
              // The contract holding the job's slot (EscrowV2 for a job funded there).
              version: s.escrow_version as EscrowVersion | null,
            }).catch((e: Error) => e)
          : Promise.resolve(new Error("no escrow payer")),
      ),
    );
    batch.forEach((s, k) => {
      const slot = slots[k]!;
      const common = {
        jobId: s.job_id,
        table: "escrow_settlements" as const,
        rowId: s.id,
        userId: null,
        txHash: (s.tx_hash as Hex | null) ?? null,
      };
      if (slot instanceof Error) {
        differences.push({
          ...common,
          kind: "SLOT_UNREADABLE",
          detail: `the slot of settlement ${s.id} could not be read: ${chainFailureReason(slot)}`,
          databaseUsdc: null,
          chainUsdc: null,
        });
      } else if (slot.state !== (s.settled_outside === "CLAIM_REFUND" ? "REFUND_CLAIMED" : SETTLED_AS[s.kind])) {
        differences.push({
          ...common,
          kind: "SETTLEMENT_MISMATCH",
          detail: `the ${s.kind.toLowerCase()} of job ${s.job_id} is recorded as confirmed (${s.tx_hash ?? "no transaction"}), but its slot on chain is ${slot.state}`,
          databaseUsdc: s.amount_units ? formatUsdc(BigInt(s.amount_units)) : null,
          chainUsdc: slot.state === "FUNDED" ? formatUsdc(slot.amount) : null,
        });
      }
    });
  }
  differences.push(...(await checkPartSettlements(ctx, chain)));
  return differences;
}

/** Each CONFIRMED part settlement's part must be settled on chain (the contract records its block). */
async function checkPartSettlements(ctx: ServiceContext, chain: ChainConfig): Promise<Difference[]> {
  const settled = await ctx.db
    .selectFrom("milestone_settlements as s")
    .innerJoin("jobs as j", "j.id", "s.job_id")
    .innerJoin("job_milestones as m", "m.id", "s.milestone_id")
    .select([
      "s.id",
      "s.job_id",
      "s.kind",
      "s.tx_hash",
      "s.amount_units",
      "m.position",
      "j.escrow_job_id",
      "j.escrow_payer",
      "j.escrow_version",
    ])
    .where("s.status", "=", "CONFIRMED")
    .where("j.chain_id", "=", chain.chainId)
    .where((eb) => eb.fn("lower", ["j.token_address"]), "=", chain.tokenAddress.toLowerCase())
    .orderBy("s.confirmed_at", "desc")
    .limit(SETTLEMENTS_CHECKED)
    .execute();
  const differences: Difference[] = [];
  for (let i = 0; i < settled.length; i += READ_CONCURRENCY) {
    const batch = settled.slice(i, i + READ_CONCURRENCY);
    const blocks = await Promise.all(
      batch.map((s) =>
        s.escrow_payer
          ? partSettledBlock({
              config: chain,
              escrowJobId: s.escrow_job_id,
              payer: s.escrow_payer as Address,
              part: s.position - 1,
              version: s.escrow_version as EscrowVersion | null,
            }).catch((e: Error) => e)
          : Promise.resolve(new Error("no escrow payer")),
      ),
    );
    batch.forEach((s, k) => {
      const block = blocks[k]!;
      const common = {
        jobId: s.job_id,
        table: "milestone_settlements" as const,
        rowId: s.id,
        userId: null,
        txHash: (s.tx_hash as Hex | null) ?? null,
      };
      if (block instanceof Error) {
        differences.push({
          ...common,
          kind: "SLOT_UNREADABLE",
          detail: `part ${s.position} of job ${s.job_id} could not be read: ${chainFailureReason(block)}`,
          databaseUsdc: null,
          chainUsdc: null,
        });
      } else if (block === 0n) {
        differences.push({
          ...common,
          kind: "SETTLEMENT_MISMATCH",
          detail: `the ${s.kind.toLowerCase()} of part ${s.position} of job ${s.job_id} is recorded as confirmed (${s.tx_hash ?? "no transaction"}), but the part is not settled on chain`,
          databaseUsdc: s.amount_units ? formatUsdc(BigInt(s.amount_units)) : null,
          chainUsdc: null,
        });
      }
    });
  }
  return differences;
}

/** Keeps a reconciliation's outcome for GET /v1/health (which never reads the chain for it). */
export async function recordReconciliation(
  ctx: ServiceContext,
  chain: ChainConfig,
  report: Reconciliation,
): Promise<void> {
  await ctx.db
    .insertInto("reconciliation_runs")
    .values({
      chain_id: chain.chainId,
      checked_at: new Date(report.checkedAt),
      differences: report.differences.length,
      report: JSON.stringify(report),
    })
    .execute();
  // The last day's runs are plenty: health reads the newest.
  await ctx.db
    .deleteFrom("reconciliation_runs")
    .where("chain_id", "=", chain.chainId)
    .where("checked_at", "<", new Date(ctx.now().getTime() - 86_400_000))
    .execute();
}

/** x402 payments checked per run, newest first. */
const X402_CHECKED = 1_000;
/** A sent payment (PENDING with its transaction kept) younger than this is still its request's (or the worker's) to finish. */
const X402_SENT_GRACE_MS = 15 * 60_000;

/** The x402 payments against their transfers on chain (the receipt of each recorded transaction). */
async function checkX402Payments(ctx: ServiceContext, chain: ChainConfig): Promise<Difference[]> {
  const rows = await ctx.db
    .selectFrom("x402_payments")
    .select(["id", "payer_address", "pay_to", "amount_units", "sent_tx_hash as tx_hash", "status", "created_at"])
    .where("network", "=", `eip155:${chain.chainId}`)
    // SETTLED, or still owed with its transferWithAuthorization kept (sent, maybe mined).
    .where("sent_tx_hash", "is not", null)
    .where("status", "in", ["SETTLED", "PENDING"])
    .orderBy("created_at", "desc")
    .limit(X402_CHECKED)
    .execute();
  const client = getPublicClient(chain);
  const graceStart = ctx.now().getTime() - X402_SENT_GRACE_MS;
  const differences: Difference[] = [];
  for (const row of rows) {
    if (row.status === "PENDING" && row.created_at.getTime() > graceStart) continue;
    const units = BigInt(row.amount_units);
    let moved = false;
    try {
      const receipt = await client.getTransactionReceipt({ hash: row.tx_hash as Hex });
      moved =
        receipt.status === "success" &&
        parseEventLogs({ abi: usdcAbi, eventName: "Transfer", logs: receipt.logs }).some(
          (log) =>
            isAddressEqual(log.address, chain.tokenAddress) &&
            isAddressEqual(log.args.from, row.payer_address as Address) &&
            isAddressEqual(log.args.to, row.pay_to as Address) &&
            log.args.value === units,
        );
    } catch {
      moved = false;
    }
    const what = `x402 payment ${row.id} of ${formatUsdc(units)} USDC from ${row.payer_address}`;
    if (row.status === "SETTLED" && !moved)
      differences.push({
        kind: "TRANSFER_MISSING",
        jobId: null,
        table: "x402_payments",
        rowId: row.id,
        userId: null,
        txHash: row.tx_hash,
        detail: `${what} is recorded as settled, but the chain has no such transfer in ${row.tx_hash}`,
        databaseUsdc: formatUsdc(units),
        chainUsdc: "0",
      });
    if (row.status === "PENDING" && moved)
      differences.push({
        kind: "TRANSFER_UNRECORDED",
        jobId: null,
        table: "x402_payments",
        rowId: row.id,
        userId: null,
        txHash: row.tx_hash,
        detail: `${what} moved on chain in ${row.tx_hash}, but the books still have it unsettled (the x402 worker records it)`,
        databaseUsdc: null,
        chainUsdc: formatUsdc(units),
      });
  }
  return differences;
}
