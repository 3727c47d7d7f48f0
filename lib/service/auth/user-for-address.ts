import { sql } from "kysely";
import { getAddress } from "viem";
import type { Db } from "../db/connection";

/**
 * The person of an address, made if they never signed in: an account is a wallet address, so one
 * named somewhere (a job's evaluator) can be told things before their first sign-in, which finds
 * this same row. Named like a fresh sign-in's account, by the short address.
 *
 * Call it inside a transaction: two first sign-ins of one wallet at once (two tabs, a retried
 * request) would both find no row and both insert, and the second would break the address's
 * uniqueness. A lock per address, held until the caller's transaction ends, makes the second
 * wait and find the first one's row.
 */
export async function userForAddress(db: Db, address: string): Promise<{ id: string; address: string }> {
  const checksummed = getAddress(address);
  await sql`select pg_advisory_xact_lock(hashtext(${`user-address:${checksummed}`}))`.execute(db);
  const found = await db
    .selectFrom("users")
    .select(["id", "address"])
    .where("address", "=", checksummed)
    .executeTakeFirst();
  if (found) return found;
  const principal = await db
    .insertInto("principals")
    .values({ kind: "USER", display_name: `${checksummed.slice(0, 6)}…${checksummed.slice(-4)}` })
    .returning("id")
    .executeTakeFirstOrThrow();
  return db
    .insertInto("users")
    .values({ id: principal.id, address: checksummed })
    .returning(["id", "address"])
    .executeTakeFirstOrThrow();
}
