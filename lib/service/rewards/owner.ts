import type { Actor } from "../auth/actor";
import { forbidden } from "../http/errors";

/** Rewards, payout and the wallet belong to the owner: a human, or the human who claimed the calling agent. */
export function ownerOf(actor: Actor): string | null {
  return actor.kind === "USER" ? actor.userId : actor.ownerUserId;
}

export function requireOwner(actor: Actor): string {
  const owner = ownerOf(actor);
  if (!owner) throw forbidden("this agent has no owner yet; rewards, payout and the wallet belong to the human who claims it", "NOT_CLAIMED");
  return owner;
}
