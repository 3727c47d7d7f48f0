import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../db/schema";

type Reader = Kysely<Database> | Transaction<Database>;

/**
 * The one home of "this job's money reached the agent" (released on chain), for a whole job and for
 * a job paid in parts alike:
 * - a whole job: it carries its release transaction and its settlement is a CONFIRMED RELEASE
 *   (settle-job.ts writes both in one transaction once the receipt is in);
 * - a job paid in parts: its last part settled (settle-part.ts then writes the job's release
 *   transaction and COMPLETED with the last part's receipt) and at least one of its parts paid the
 *   agent (a CONFIRMED part RELEASE, or a SPLIT that gave the agent a share).
 * An approved job whose release is held or pending, a refund, a failed release, a job whose parts
 * are still being paid and a job cancelled after some parts are not released.
 *
 * Track records (records/) count and sum only such jobs, reviews (reviews/) may be written only on
 * them, and the notifications and webhooks of a payment follow the same receipts.
 */

/**
 * Every confirmed settlement that paid the agent, whole-job or part, with what it gave the agent
 * (`net_units`, after the fee) and the fee the operator earned on it (`fee_units`): the one list
 * the operator's fees, the overview and the records sum over. A whole job's dispute split counts
 * here (the agent got its share and the fee was taken) although it does not make the job released.
 */
export function agentPayouts(db: Reader) {
  const whole = db
    .selectFrom("escrow_settlements as s")
    .innerJoin("jobs as j", "j.id", "s.job_id")
    .select([
      "s.job_id",
      sql<string | null>`null::uuid`.as("milestone_id"),
      "s.kind",
      "j.chain_id",
      sql<string>`coalesce(s.amount_units, '0')::numeric`.as("net_units"),
      sql<string>`coalesce(s.fee_units, '0')::numeric`.as("fee_units"),
    ])
    .where("s.status", "=", "CONFIRMED")
    .where("s.kind", "in", ["RELEASE", "SPLIT"]);
  const parts = db
    .selectFrom("milestone_settlements as ms")
    .innerJoin("jobs as j", "j.id", "ms.job_id")
    .select([
      "ms.job_id",
      sql<string | null>`ms.milestone_id`.as("milestone_id"),
      "ms.kind",
      "j.chain_id",
      sql<string>`coalesce(ms.amount_units, '0')::numeric`.as("net_units"),
      sql<string>`coalesce(ms.fee_units, '0')::numeric`.as("fee_units"),
    ])
    .where("ms.status", "=", "CONFIRMED")
    .where("ms.kind", "in", ["RELEASE", "SPLIT"]);
  return whole.unionAll(parts);
}

/**
 * One row per released job (the rule above): `job_id`, what reached the agent (`net_units`, every
 * part's net summed for a job in parts), the operator's fee on it (`fee_units`), and when the work
 * was delivered (`delivered_at`: the job's submission, or its last part's).
 */
export function releasedJobs(db: Reader) {
  const whole = db
    .selectFrom("jobs as j")
    .innerJoin("escrow_settlements as s", "s.job_id", "j.id")
    .select([
      "j.id as job_id",
      sql<string>`coalesce(s.amount_units, '0')::numeric`.as("net_units"),
      sql<string>`coalesce(s.fee_units, '0')::numeric`.as("fee_units"),
      sql<Date | null>`j.submitted_at`.as("delivered_at"),
    ])
    .where("j.release_tx_hash", "is not", null)
    .where("s.kind", "=", "RELEASE")
    .where("s.status", "=", "CONFIRMED");
  const inParts = db
    .selectFrom("jobs as j")
    .innerJoin("job_milestones as m", "m.job_id", "j.id")
    .leftJoin("milestone_settlements as ms", (join) =>
      join
        .onRef("ms.milestone_id", "=", "m.id")
        .on("ms.status", "=", "CONFIRMED")
        .on("ms.kind", "in", ["RELEASE", "SPLIT"]),
    )
    .select([
      "j.id as job_id",
      sql<string>`coalesce(sum(ms.amount_units::numeric), 0)`.as("net_units"),
      sql<string>`coalesce(sum(ms.fee_units::numeric), 0)`.as("fee_units"),
      sql<Date | null>`max(m.submitted_at)`.as("delivered_at"),
    ])
    .where("j.release_tx_hash", "is not", null)
    .groupBy("j.id")
    .having(sql<boolean>`count(ms.id) > 0`);
  return whole.unionAll(inParts);
}

/** True when this job's money reached its agent (the rule above). */
export async function isReleasedOnChain(db: Reader, jobId: string): Promise<boolean> {
  const row = await db
    .selectFrom(releasedJobs(db).as("r"))
    .select("r.job_id")
    .where("r.job_id", "=", jobId)
    .executeTakeFirst();
  return row !== undefined;
}
