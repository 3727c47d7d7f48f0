// The whole local marketplace from one command (called by `npm start`): anvil with the test USDC
// and the escrow deployed, the app (dashboard + built-in /v1 service) built and served, and demo
// data on first start. Every port is configurable: PORT (app), ANVIL_PORT (chain).
import path from "node:path";
import { existsSync, writeFileSync } from "node:fs";
import { choosePort, PortError, startAppServer, startLocalChain } from "./stack";
import { ensureBuild } from "./build-cache";
import { privateKeyToAccount } from "viem/accounts";
import { DEMO_KEYS, seedDemoData } from "./seed";
import { devOutboxToken } from "@/lib/server-secrets.mjs";

const dataDir = path.resolve(process.env.DATA_DIR || ".data");
// Two build folders: a new build goes into the one no running server serves (scripts/build-cache.ts).
const buildSlots = process.env.NEXT_DIST_DIR ? [process.env.NEXT_DIST_DIR] : [".next", ".next-alt"];

async function main() {
  const useLocalChain = (process.env.CHAIN ?? "local") === "local" && !process.env.RPC_URL;
  const port = await choosePort({ envName: "PORT", defaultPort: 3000, what: "the app" });
  const anvilPort = useLocalChain
    ? await choosePort({ envName: "ANVIL_PORT", defaultPort: 8545, what: "the local chain (anvil)" })
    : 0;
  const siteUrl = process.env.SITE_URL || `http://localhost:${port}`;
  const chain = useLocalChain ? await startLocalChain({ port: anvilPort, dataDir, persist: true }) : null;
  if (chain) console.log(`[stack] anvil on ${chain.rpcUrl}; contracts in ${path.join(dataDir, "chain.json")}`);

  const distDir = ensureBuild(buildSlots);
  const server = await startAppServer({
    port,
    distDir,
    env: {
      DATA_DIR: dataDir,
      SITE_URL: siteUrl,
      ...(chain ? { RPC_URL: chain.rpcUrl, ANVIL_PORT: String(anvilPort) } : {}),
      // The local stack's deliverables are often served from this machine.
      PROBE_ALLOW_LOOPBACK: process.env.PROBE_ALLOW_LOOPBACK ?? "1",
      // On the local chain the demo owner (anvil account 2) is a reward admin, so the demo data can
      // fund forum rewards and a new user sees them paid.
      ...(chain
        ? {
            REWARDS_ADMIN_ADDRESSES:
              process.env.REWARDS_ADMIN_ADDRESSES ?? privateKeyToAccount(DEMO_KEYS.owner).address,
          }
        : {}),
      // ...and the marketplace's operator (the console, rulings, moderation).
      ...(chain
        ? { OPERATOR_ADDRESSES: process.env.OPERATOR_ADDRESSES ?? privateKeyToAccount(DEMO_KEYS.owner).address }
        : {}),
    },
  });

  // Demo data uses anvil's public keys, so it exists only on the local chain, and only once.
  const marker = path.join(dataDir, "seeded");
  if (chain && !existsSync(marker) && process.env.SEED !== "0") {
    console.log("[stack] adding demo data…");
    try {
      const { seeded } = await seedDemoData({ baseUrl: server.url, siteUrl, dataDir });
      if (seeded) writeFileSync(marker, new Date().toISOString());
    } catch (error) {
      // The marketplace works without demo data; say why it is missing and keep serving.
      console.error("[stack] demo data could not be added:", error);
    }
  }

  console.log(
    `\n  Agent Work Marketplace is running: ${siteUrl}\n  API: ${siteUrl}/v1 (OpenAPI at ${siteUrl}/v1/openapi.json)\n  Mail outbox (claim links): ${chain ? `${siteUrl}/dev/outbox?token=${devOutboxToken({ ...process.env, DATA_DIR: dataDir })}` : "only on the local chain"}\n`,
  );

  const shutdown = async () => {
    await server.stop();
    await chain?.stop();
    process.exit(0);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  server.process.on("exit", async (code) => {
    await chain?.stop();
    process.exit(code ?? 1);
  });
}

main().catch((error) => {
  if (error instanceof PortError) {
    console.error(`[stack] ${error.message}`);
    process.exit(1);
  }
  console.error("[stack] failed:", error);
  process.exit(1);
});
