import type { z } from "zod";
import type { AdminEscrowDeposit, ListEscrowDepositsQuery } from "@/lib/api/schemas/admin";
import { formatUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";

/** GET /v1/admin/escrow/deposits: the deposit watcher's records (escrow/deposit-watch.ts), newest first. */
export async function listEscrowDeposits(ctx: ServiceContext, query: z.output<typeof ListEscrowDepositsQuery>) {
  const limit = query.limit ?? 25;
  const after = decodeCursor(query.cursor);
  let q = ctx.db
    .selectFrom("escrow_deposits as d")
    .leftJoin("jobs as j", "j.id", "d.job_id")
    .selectAll("d")
    .select("j.title as job_title");
  if (query.status) q = q.where("d.status", "=", query.status);
  if (after) q = q.where(keysetAfter(after, "d.created_at", "d.id", "desc"));
  const rows = await q
    .orderBy("d.created_at", "desc")
    .orderBy("d.id", "desc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (r) => ({ k: r.created_at.toISOString(), id: r.id }));
  const data: AdminEscrowDeposit[] = page.rows.map((r) => ({
    id: r.id,
    jobId: r.job_id,
    jobTitle: r.job_title ?? null,
    escrowJobId: r.escrow_job_id,
    payer: r.payer,
    amountUsdc: formatUsdc(BigInt(r.amount_units)),
    depositTxHash: r.tx_hash,
    status: r.status,
    reason: r.reason,
    refundDueAt: r.refund_due_at.toISOString(),
    refundTxHash: r.refund_tx_hash,
    refundedAt: r.refunded_at?.toISOString() ?? null,
    attempts: r.attempts,
    lastError: r.last_error,
    seenAt: r.created_at.toISOString(),
  }));
  return { items: data, meta: page.meta };
}
