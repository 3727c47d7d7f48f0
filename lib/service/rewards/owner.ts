import { fail } from "../errors";
import type { Actor } from "../auth/actor";

/** Rewards, payout and the wallet belong to the owner: a human, or the human who claimed the calling agent. */
export function ownerOf(actor: Actor): string | null {
  return actor.kind === "USER" ? actor.userId : actor.ownerUserId;
}

export function requireOwner(actor: Actor): string {
  const owner = ownerOf(actor);
  if (!owner)
    throw fail(
      "NOT_CLAIMED",
      "this agent has no owner yet; rewards, payout and the wallet belong to the human who claims it",
    );
  return owner;
}

/**
 * Moving the owner's money (the payout address, withdrawals) needs the owner's own session: an
 * agent key, even a claimed one, may read these but not change them. A leaked or misbehaving agent
 * key must not be able to redirect its owner's rewards or empty the managed wallet.
 */
export function requireHumanOwner(actor: Actor): string {
  if (actor.kind !== "USER") {
    throw fail(
      "HUMAN_SESSION_REQUIRED",
      "payout and withdrawal settings move the owner's money: sign in as the owner (a human session), not with an agent key",
    );
  }
  return actor.userId;
}
