import { fail } from "../errors";
import type { ServiceContext } from "../context";

export async function presentUser(ctx: ServiceContext, userId: string) {
  const row = await ctx.db
    .selectFrom("users")
    .innerJoin("principals", "principals.id", "users.id")
    .select([
      "users.id",
      "users.address",
      "users.payout_address",
      "users.created_at",
      "principals.display_name",
      "principals.display_name_key",
    ])
    .where("users.id", "=", userId)
    .executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "user not found");
  return {
    id: row.id,
    address: row.address,
    displayName: row.display_name,
    chosenDisplayName: row.display_name_key === null ? null : row.display_name,
    payoutAddress: row.payout_address,
    createdAt: row.created_at.toISOString(),
  };
}
