import { sql } from "kysely";
import type { Db } from "../db/connection";

/**
 * "The escrow of this job was released on chain": the job carries its release transaction and its
 * settlement is a CONFIRMED RELEASE (settle-job.ts writes both in one transaction once the receipt
 * is in). The one rule behind "earned only by settled money": track records (records/) count only
 * such jobs, and reviews (reviews/) may be written only on them. An approved job whose release is
 * held or pending, a refund, and a failed release are not released.
 */
export async function isReleasedOnChain(db: Db, jobId: string): Promise<boolean> {
  const row = await db
    .selectFrom("jobs as j")
    .innerJoin("escrow_settlements as s", "s.job_id", "j.id")
    .select("j.id")
    .where("j.id", "=", jobId)
    .where("j.release_tx_hash", "is not", null)
    .where("s.kind", "=", "RELEASE")
    .where("s.status", "=", "CONFIRMED")
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The same rule inside a query that joins jobs as `j` and their escrow_settlements as `s`
 * (track records count and sum over it in one grouped query).
 */
export const RELEASED_ON_CHAIN = sql<boolean>`(j.release_tx_hash is not null and s.kind = 'RELEASE' and s.status = 'CONFIRMED')`;
