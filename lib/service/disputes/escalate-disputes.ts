import { sql } from "kysely";
import type { ServiceContext } from "../context";
import { publishEvent } from "../events/publish-event";
import { announceResolved } from "./announce-resolved";
import { disputeRecipients } from "./recipients";

export interface DisputeRoundOptions {
  /** The clock of this round (default ctx.now()). */
  now?: Date;
  /** Only the cases of these jobs: for tests that move the clock on a database other suites share. */
  only?: string[];
  batchSize?: number;
}

/**
 * One round of escalation: every OPEN case whose ruling deadline has passed goes to the operator
 * (status ESCALATED, escalatedAt), with dispute.escalated to both sides, the evaluator and the
 * operators. Claimed with FOR UPDATE SKIP LOCKED, so instances share the work and a case being
 * ruled on (its row locked by the ruling) is left for the next round, when it is RULED. Nothing is
 * refunded or released: from now on the operator may rule, and the deadline stays on the case.
 */
export async function escalateDueDisputes(ctx: ServiceContext, options: DisputeRoundOptions = {}): Promise<number> {
  const now = options.now ?? ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    let q = trx
      .selectFrom("dispute_cases")
      .selectAll()
      .where("status", "=", "OPEN")
      .where("ruling_deadline_at", "<=", now);
    if (options.only)
      q = options.only.length > 0 ? q.where("job_id", "in", options.only) : q.where(sql<boolean>`false`);
    const due = await q
      .orderBy("ruling_deadline_at")
      .limit(options.batchSize ?? 50)
      .forUpdate()
      .skipLocked()
      .execute();
    for (const kase of due) {
      await trx
        .updateTable("dispute_cases")
        .set({ status: "ESCALATED", escalated_at: now, updated_at: now })
        .where("id", "=", kase.id)
        .execute();
      const job = await trx
        .selectFrom("jobs")
        .select(["poster_id", "agent_id"])
        .where("id", "=", kase.job_id)
        .executeTakeFirstOrThrow();
      await publishEvent(trx, {
        type: "dispute.escalated",
        jobId: kase.job_id,
        to: await disputeRecipients(trx, ctx.config, job, kase, { evaluator: true, operators: true }),
        actorId: null,
        data: {
          caseId: kase.id,
          rulingDeadlineAt: kase.ruling_deadline_at.toISOString(),
          escalatedAt: now.toISOString(),
        },
      });
    }
    return due.length;
  });
}

/** Ruled cases whose settlement the settlement worker confirmed after the ruling: announce them. */
export async function announceSettledRulings(ctx: ServiceContext, options: DisputeRoundOptions = {}): Promise<number> {
  let q = ctx.db
    .selectFrom("dispute_cases as c")
    .innerJoin("dispute_rulings as r", "r.case_id", "c.id")
    .leftJoin("escrow_settlements as s", "s.id", "r.settlement_id")
    .select("c.id")
    .where("c.status", "=", "RULED")
    .where("c.resolved_event_at", "is", null)
    .where((eb) => eb.or([eb("r.settlement_id", "is", null), eb("s.status", "=", "CONFIRMED")]));
  if (options.only)
    q = options.only.length > 0 ? q.where("c.job_id", "in", options.only) : q.where(sql<boolean>`false`);
  const rows = await q.limit(options.batchSize ?? 50).execute();
  let announced = 0;
  for (const row of rows) if (await announceResolved(ctx, row.id)) announced += 1;
  return announced;
}
