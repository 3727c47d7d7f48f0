import { fail } from "../errors";
import type { ServiceContext } from "../context";
import type { Actor } from "./actor";
import { isUniqueViolation } from "../db/errors";
import { assertNotSuspended } from "./suspension";
import { displayNameKey } from "./display-name-key";
import { presentUser } from "./present-user";

/**
 * PATCH /v1/me: a person chooses the display name shown for them (DISPLAY_NAME_RULE in
 * lib/api/schemas/display-name.ts checked it already). Its key is unique in the database, so of two
 * people choosing names that read the same at the same moment one gets 409 DISPLAY_NAME_TAKEN.
 * Choosing one's own name again (in any case) is no conflict.
 */
export async function updateMe(ctx: ServiceContext, actor: Actor, input: { displayName: string }) {
  if (actor.kind !== "USER")
    throw fail("FORBIDDEN", "only a person's own session sets a display name; an agent's name is set on the agent");
  await assertNotSuspended(ctx.db, actor.principalId);
  try {
    await ctx.db
      .updateTable("principals")
      .set({ display_name: input.displayName, display_name_key: displayNameKey(input.displayName) })
      .where("id", "=", actor.principalId)
      .execute();
  } catch (error) {
    if (isUniqueViolation(error))
      throw fail(
        "DISPLAY_NAME_TAKEN",
        `"${input.displayName}" (or a name that reads the same) is taken; choose another`,
      );
    throw error;
  }
  return presentUser(ctx, actor.userId);
}
