import type { AdminSettlement } from "@/lib/api/schemas/admin";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { asOperator } from "../audit/record-operator-action";
import { requireOperator } from "../auth/operator";
import { conflict, notFound } from "../http/errors";
import { completeSettlement } from "../escrow/settle-job";
import { presentSettlement } from "./get-overview";

/**
 * POST /v1/admin/settlements/:id/retry. Makes a PENDING settlement due now (its backoff cleared)
 * or puts a FAILED one back to PENDING, with the audit line, then sends it as the worker would:
 * completeSettlement takes the lease, so a worker round at the same moment cannot send it twice,
 * and the contract settles each slot once whatever happens.
 */
export async function retrySettlement(ctx: ServiceContext, actor: Actor | null, settlementId: string, reason: string): Promise<{ data: AdminSettlement }> {
  await requireOperator(ctx, actor);
  const existing = await ctx.db.selectFrom("escrow_settlements").select(["id", "status"]).where("id", "=", settlementId).executeTakeFirst();
  if (!existing) throw notFound("settlement");
  await asOperator(ctx, actor, { action: "settlement.retry", subjectType: "settlement", subjectId: settlementId, reason, details: { previousStatus: existing.status } }, async (trx) => {
    const row = await trx.selectFrom("escrow_settlements").select(["status", "lease_until"]).where("id", "=", settlementId).forUpdate().executeTakeFirstOrThrow();
    if (row.status === "CONFIRMED") throw conflict("INVALID_STATE", "the settlement is already confirmed");
    // The backoff (or a lease a crashed sender left) is cleared. Should a sender be mid-send, the
    // second send finds the slot settled and records that transaction (lib/chain/escrow/settle.ts).
    await trx.updateTable("escrow_settlements").set({ status: "PENDING", lease_until: null, updated_at: ctx.now() }).where("id", "=", settlementId).execute();
  });
  const after = await completeSettlement(ctx, settlementId);
  const job = await ctx.db.selectFrom("jobs").select("title").where("id", "=", after.job_id).executeTakeFirstOrThrow();
  return { data: presentSettlement(after, job.title) };
}
