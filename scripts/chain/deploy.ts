// Deploys the local stack's contracts (test USDC, the escrow and EscrowV2 beside it) to an anvil node, mints demo
// USDC, and records everything in ${DATA_DIR}/chain.json for loadChainConfig (lib/chain/local-stack.ts).
//
//   npx tsx scripts/chain/deploy.ts [--force]     (RPC_URL or ANVIL_PORT, DATA_DIR, FEE_BPS)
//
// Without --force an existing deployment that is still on the chain is kept.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ensureLocalStack } from "@/lib/chain/local-stack";

async function main(): Promise<void> {
  const rpcUrl = process.env.RPC_URL || `http://127.0.0.1:${process.env.ANVIL_PORT || 8545}`;
  const dataDir = process.env.DATA_DIR || ".data";
  const d = await ensureLocalStack({
    rpcUrl,
    dataDir,
    feeBps: process.env.FEE_BPS ? Number(process.env.FEE_BPS) : undefined,
    force: process.argv.includes("--force"),
  });
  console.log(
    [
      `chain ${d.chainId} at ${d.rpcUrl}`,
      `  USDC   ${d.tokenAddress}`,
      `  escrow ${d.escrowAddress} (fee ${d.feeBps} bps, operator ${d.operator.address})`,
      `  escrow v2 ${d.escrowV2Address} (owner ${d.escrowV2Owner?.address})`,
      `  rewards wallet ${d.rewards.address}`,
      `  pack treasury ${d.treasury}`,
      `  written to ${path.join(dataDir, "chain.json")}`,
    ].join("\n"),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
