// Starts a local anvil node from the npm package @foundry-rs/anvil (lib/chain/anvil.ts).
//
//   npx tsx scripts/chain/anvil.ts [--deploy]     (ANVIL_PORT, CHAIN_ID, ANVIL_BLOCK_TIME, DATA_DIR)
//
// It keeps the chain's state in ${DATA_DIR}/anvil-state.json, so restarting the dev stack keeps
// its deployments and balances; --deploy also deploys the contracts when needed.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { startAnvil } from "@/lib/chain/anvil";

async function main(): Promise<void> {
  const dataDir = process.env.DATA_DIR || ".data";
  const anvil = await startAnvil({
    port: Number(process.env.ANVIL_PORT || 8545),
    chainId: Number(process.env.CHAIN_ID || 31337),
    blockTime: process.env.ANVIL_BLOCK_TIME ? Number(process.env.ANVIL_BLOCK_TIME) : undefined,
    statePath: path.resolve(dataDir, "anvil-state.json"),
  });
  console.log(`anvil (chain ${anvil.chainId}) listening on ${anvil.rpcUrl}, pid ${anvil.pid}`);
  if (process.argv.includes("--deploy")) {
    const { ensureLocalStack } = await import("@/lib/chain/local-stack");
    const deployment = await ensureLocalStack({ rpcUrl: anvil.rpcUrl, dataDir });
    console.log(`escrow ${deployment.escrowAddress}, USDC ${deployment.tokenAddress}`);
  }
  const shutdown = () => {
    void anvil.stop().then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
