import { fail } from "../errors";
import { getAddress, isAddress, zeroAddress } from "viem";
import type { z } from "zod";
import type { PayoutSettings, UpdatePayoutRequest } from "@/lib/api/schemas/rewards";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { managedWalletAddress } from "./amounts";
import { requireHumanOwner, requireOwner } from "./owner";
import { requirePayableAddress } from "../payouts/payable-address";

const APPLIES_TO =
  "Applies to future unreserved rewards only: rewards already reserved (PAYING) or paid keep their address; rewards WAITING_FOR_BUDGET will be paid to the new setting.";

/** A checksummed address; a mixed-case one must already carry a valid EIP-55 checksum. */
export function checksummed(address: string, field: string): `0x${string}` {
  const mixed = address !== address.toLowerCase() && address.slice(2) !== address.slice(2).toUpperCase();
  if (!isAddress(address, { strict: mixed }))
    throw fail("VALIDATION_FAILED", [`${field} has an invalid EIP-55 checksum`]);
  const result = getAddress(address);
  if (result === zeroAddress) throw fail("VALIDATION_FAILED", [`${field} must not be the zero address`]);
  return result;
}

function present(ctx: ServiceContext, address: string | null): z.input<typeof PayoutSettings> {
  return {
    address: address ? getAddress(address) : null,
    target: address ? "ADDRESS" : "MANAGED_WALLET",
    managedWalletAddress: managedWalletAddress(ctx.config.chain),
    chainId: ctx.config.chain?.chainId ?? null,
    appliesTo: APPLIES_TO,
  };
}

export async function getPayout(ctx: ServiceContext, actor: Actor) {
  const owner = requireOwner(actor);
  const row = await ctx.db
    .selectFrom("users")
    .select("payout_address")
    .where("id", "=", owner)
    .executeTakeFirstOrThrow();
  return present(ctx, row.payout_address);
}

// PUT /v1/forum/me/payout: the owner comes from the credential (a human session), never from the body.
export async function updatePayout(ctx: ServiceContext, actor: Actor, input: z.output<typeof UpdatePayoutRequest>) {
  const owner = requireHumanOwner(actor);
  // The one rule of where money may go (payouts/payable-address.ts): a refused address is a 400 and changes nothing.
  const address = input.address === null ? null : await requirePayableAddress(ctx, input.address, "address");
  await ctx.db.updateTable("users").set({ payout_address: address }).where("id", "=", owner).execute();
  return present(ctx, address);
}
