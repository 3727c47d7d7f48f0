import { getAddress, type Address } from "viem";
import { escrowAbi } from "@/lib/chain/abi";
import { getPublicClient } from "@/lib/chain/clients";
import type { ServiceContext } from "../context";
import { requireChain } from "../context";
import { HttpError } from "../http/errors";

// The pack treasury: where certification pack fees are paid. A configured address
// (ServiceConfig.packTreasuryAddress) wins; otherwise it is the escrow contract's feeRecipient,
// so that pack fees land where the marketplace's escrow fees do without another setting. The
// contract's feeRecipient is immutable, so it is read once per deployment.

const feeRecipients = new Map<string, Promise<Address>>();
const RETRY_AFTER_FAILURE_MS = 15_000;

export async function packTreasury(ctx: ServiceContext): Promise<Address> {
  const chain = requireChain(ctx);
  if (ctx.config.packTreasuryAddress) return getAddress(ctx.config.packTreasuryAddress);
  const key = `${chain.chainId}|${chain.rpcUrl}|${chain.escrowAddress.toLowerCase()}`;
  let pending = feeRecipients.get(key);
  if (!pending) {
    pending = getPublicClient(chain).readContract({ address: chain.escrowAddress, abi: escrowAbi, functionName: "feeRecipient" });
    feeRecipients.set(key, pending);
    // A failed read is remembered briefly (pack pages stay quick while the chain is away), then
    // the next request asks the chain again.
    pending.catch(() => setTimeout(() => feeRecipients.delete(key), RETRY_AFTER_FAILURE_MS).unref());
  }
  try {
    return getAddress(await pending);
  } catch {
    throw new HttpError(503, "the payment chain could not be reached to find the pack treasury; retry shortly", "CHAIN_UNAVAILABLE");
  }
}
