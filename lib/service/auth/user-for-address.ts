import { getAddress } from "viem";
import type { Db } from "../db/connection";

type Writer = Pick<Db, "selectFrom" | "insertInto">;

/**
 * The person of an address, made if they never signed in: an account is a wallet address, so one
 * named somewhere (a job's evaluator) can be told things before their first sign-in, which finds
 * this same row. Named like a fresh sign-in's account, by the short address.
 */
export async function userForAddress(db: Writer, address: string): Promise<{ id: string; address: string }> {
  const checksummed = getAddress(address);
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
