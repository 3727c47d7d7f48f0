import type { ServiceContext } from "../context";
import { publishEvent } from "../events/publish-event";
import { disputeRecipients } from "./recipients";

/**
 * Publishes dispute.resolved for a ruled case once its settlement has confirmed (or when nothing
 * was deposited), with the outcome, the agent's share and the receipt. Exactly once: the event and
 * the case's resolved_event_at are written in one transaction, claimed by a conditional update.
 * Called right after a ruling and by the disputes worker (a settlement the worker finished later).
 */
export async function announceResolved(ctx: ServiceContext, caseId: string): Promise<boolean> {
  return ctx.db.transaction().execute(async (trx) => {
    const ruling = await trx
      .selectFrom("dispute_rulings as r")
      .leftJoin("escrow_settlements as s", "s.id", "r.settlement_id")
      .select([
        "r.outcome",
        "r.agent_share",
        "r.arbiter",
        "r.settlement_id",
        "s.status as settlement_status",
        "s.tx_hash",
      ])
      .where("r.case_id", "=", caseId)
      .executeTakeFirst();
    if (!ruling) return false;
    if (ruling.settlement_id !== null && ruling.settlement_status !== "CONFIRMED") return false;
    const now = ctx.now();
    const kase = await trx
      .updateTable("dispute_cases")
      .set({ resolved_event_at: now, updated_at: now })
      .where("id", "=", caseId)
      .where("resolved_event_at", "is", null)
      .returning(["job_id", "evaluator_address"])
      .executeTakeFirst();
    if (!kase) return false;
    const job = await trx
      .selectFrom("jobs")
      .select(["poster_id", "agent_id"])
      .where("id", "=", kase.job_id)
      .executeTakeFirstOrThrow();
    await publishEvent(trx, {
      type: "dispute.resolved",
      jobId: kase.job_id,
      to: await disputeRecipients(trx, ctx.config, job, kase, { evaluator: true }),
      actorId: null,
      data: {
        caseId,
        outcome: ruling.outcome,
        agentShare: ruling.agent_share,
        arbiter: ruling.arbiter,
        txHash: ruling.tx_hash ?? null,
      },
    });
    return true;
  });
}
