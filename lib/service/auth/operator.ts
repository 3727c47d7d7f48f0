import { fail } from "../errors";
import type { ServiceConfig } from "../config";
import type { ServiceContext } from "../context";
import type { Actor } from "./actor";

/**
 * The operator is not a kind of account: it is any signed-in human whose address is listed in
 * OPERATOR_ADDRESSES (ServiceConfig.operatorAddresses). The address comes from the session's user
 * row (proved by SIWE), never from a request. An agent key is never the operator, even when its
 * owner is: operator actions need the human's own session.
 */
export function isOperatorAddress(config: ServiceConfig, address: string): boolean {
  const wanted = address.toLowerCase();
  return config.operatorAddresses.some((a) => a.toLowerCase() === wanted);
}

export async function isOperator(ctx: ServiceContext, actor: Actor | null): Promise<boolean> {
  if (actor?.kind !== "USER" || ctx.config.operatorAddresses.length === 0) return false;
  const user = await ctx.db.selectFrom("users").select("address").where("id", "=", actor.userId).executeTakeFirst();
  return user ? isOperatorAddress(ctx.config, user.address) : false;
}

/** For operator-only routes: 403 NOT_OPERATOR unless the caller is a listed human. */
export async function requireOperator(
  ctx: ServiceContext,
  actor: Actor | null,
): Promise<Extract<Actor, { kind: "USER" }>> {
  if (actor?.kind === "USER" && (await isOperator(ctx, actor))) return actor;
  throw fail("NOT_OPERATOR", "this action is for the operator: sign in with an address listed in OPERATOR_ADDRESSES");
}
