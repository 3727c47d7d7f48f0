import { fail } from "../errors";
import { getAddress, type Address } from "viem";
import type { ServiceContext } from "../context";
import { requireChain } from "../context";

// The pack treasury: where certification pack fees are paid. A dedicated address of its own
// (ChainConfig.treasuryAddress: TREASURY_ADDRESS, or the local stack's treasury account), never
// the escrow's fee recipient: the escrow sends USDC to its fee recipient at every fee withdrawal, and
// none of those transfers may ever look like a pack payment. Without one, paid packs cannot be
// bought (503); nothing is guessed.

export function packTreasury(ctx: ServiceContext): Address {
  const chain = requireChain(ctx);
  if (!chain.treasuryAddress) {
    throw fail(
      "TREASURY_NOT_CONFIGURED",
      "no pack treasury is configured (TREASURY_ADDRESS): paid packs cannot be bought on this deployment",
    );
  }
  return getAddress(chain.treasuryAddress);
}
