import type { AdminTransfer } from "@/lib/api/schemas/admin";
import { formatUsdc, normaliseDecimal } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import { chainKeyOf, explorerTxUrl } from "../rewards/amounts";

/** Rows of each kind shown: the newest, enough to see what is moving and what is stuck. */
const PER_KIND = 25;

/**
 * Every kind of outgoing transfer for the operator's console, newest first: escrow settlements
 * (releases, refunds, splits), managed-wallet withdrawals, pack payouts and reward slot funding,
 * each with its status and a link to its transaction.
 */
export async function listOutgoingTransfers(ctx: ServiceContext): Promise<AdminTransfer[]> {
  const chain = ctx.config.chain;
  const link = (hash: string | null) => explorerTxUrl(chain, hash);
  const [settlements, withdrawals, payouts, funding] = await Promise.all([
    ctx.db
      .selectFrom("escrow_settlements as s")
      .innerJoin("jobs as j", "j.id", "s.job_id")
      .select([
        "s.id",
        "s.job_id",
        "s.kind",
        "s.status",
        "s.to_address",
        "s.tx_hash",
        "s.amount_units",
        "s.last_error",
        "s.created_at",
        "j.title",
        "j.budget_usdc",
      ])
      .orderBy("s.created_at", "desc")
      .limit(PER_KIND)
      .execute(),
    ctx.db
      .selectFrom("wallet_withdrawals")
      .selectAll()
      .where("chain_key", "=", chainKeyOf(chain))
      .orderBy("created_at", "desc")
      .limit(PER_KIND)
      .execute(),
    ctx.db.selectFrom("eval_pack_payouts").selectAll().orderBy("created_at", "desc").limit(PER_KIND).execute(),
    ctx.db
      .selectFrom("forum_reward_slots as s")
      .innerJoin("jobs as j", "j.id", "s.job_id")
      .select([
        "s.job_id",
        "s.fund_status",
        "s.sent_tx_hash",
        "s.last_error",
        "s.created_at",
        "s.slot_no",
        "j.escrow_tx_hash",
        "j.budget_usdc",
      ])
      .where("s.chain_key", "=", chainKeyOf(chain))
      .orderBy("s.created_at", "desc")
      .limit(PER_KIND)
      .execute(),
  ]);
  const all: AdminTransfer[] = [
    ...settlements.map((s): AdminTransfer => ({
      kind: "ESCROW_SETTLEMENT",
      id: s.id,
      status: s.status,
      detail: `${s.kind.toLowerCase()} of "${s.title}"`,
      amountUsdc: s.amount_units ? formatUsdc(BigInt(s.amount_units)) : normaliseDecimal(s.budget_usdc),
      toAddress: s.to_address,
      txHash: s.tx_hash,
      explorerUrl: link(s.tx_hash),
      jobId: s.job_id,
      userId: null,
      lastError: s.last_error,
      createdAt: s.created_at.toISOString(),
    })),
    ...withdrawals.map((w): AdminTransfer => ({
      kind: "WITHDRAWAL",
      id: w.id,
      status: w.status,
      detail: "managed-wallet withdrawal",
      amountUsdc: normaliseDecimal(w.amount_usdc),
      toAddress: w.to_address,
      txHash: w.sent_tx_hash,
      explorerUrl: link(w.sent_tx_hash),
      jobId: null,
      userId: w.owner_user_id,
      lastError: w.failure_reason,
      createdAt: w.created_at.toISOString(),
    })),
    ...payouts.map((p): AdminTransfer => ({
      kind: "PACK_PAYOUT",
      id: p.id,
      // SENT: a PENDING payout whose transfer is kept and broadcast (evals/pack-payouts.ts).
      status: p.status === "PENDING" && p.sent_tx_hash ? "SENT" : p.status,
      detail: `pack payout (attempt ${p.attempt_id})`,
      amountUsdc: formatUsdc(BigInt(p.amount_units)),
      toAddress: p.to_address,
      txHash: p.sent_tx_hash,
      explorerUrl: link(p.sent_tx_hash),
      jobId: null,
      userId: p.publisher_user_id,
      lastError: p.last_error,
      createdAt: p.created_at.toISOString(),
    })),
    ...funding.map((f): AdminTransfer => ({
      kind: "REWARD_FUNDING",
      id: f.job_id,
      // SENT: a PENDING deposit whose transaction is kept and broadcast (rewards/campaigns.ts).
      status: f.fund_status === "FUNDED" ? "FUNDED" : f.sent_tx_hash ? "SENT" : "UNFUNDED",
      detail: `reward slot ${f.slot_no} deposit`,
      amountUsdc: normaliseDecimal(f.budget_usdc),
      toAddress: chain?.escrowAddress ?? null,
      txHash: f.escrow_tx_hash ?? f.sent_tx_hash,
      explorerUrl: link(f.escrow_tx_hash ?? f.sent_tx_hash),
      jobId: f.job_id,
      userId: null,
      lastError: f.last_error,
      createdAt: f.created_at.toISOString(),
    })),
  ];
  return all.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
