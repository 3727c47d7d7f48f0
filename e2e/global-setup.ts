// Starts the whole local stack for the browser tests (a fresh anvil with the contracts, a fresh
// database, the app built into its own directory and served on a free port) and hands its
// addresses to the workers through the environment: Playwright starts workers after global setup,
// and they re-read playwright.config.ts, so `use.baseURL` picks up E2E_BASE_URL there.
//
// To run the specs against a stack that is already up (faster while writing tests):
//   E2E_BASE_URL=http://127.0.0.1:3100 E2E_RPC_URL=http://127.0.0.1:8545 E2E_OUTBOX_TOKEN=<its outbox ?token=> npx playwright test

export default async function globalSetup(): Promise<(() => Promise<void>) | void> {
  if (process.env.E2E_BASE_URL) {
    console.log(
      `[e2e] using the running stack at ${process.env.E2E_BASE_URL} (anvil: ${process.env.E2E_RPC_URL ?? "unset"})`,
    );
    return;
  }
  const { startE2EStack } = await import("../scripts/e2e-stack");
  const started = Date.now();
  const stack = await startE2EStack();
  console.log(
    `[e2e] stack up in ${Math.round((Date.now() - started) / 1000)} s: app ${stack.baseUrl}, anvil ${stack.rpcUrl}`,
  );
  process.env.E2E_BASE_URL = stack.baseUrl;
  process.env.E2E_RPC_URL = stack.rpcUrl;
  process.env.E2E_DATA_DIR = stack.dataDir;
  process.env.E2E_OUTBOX_TOKEN = stack.outboxToken;
  // The returned function is Playwright's global teardown.
  return async () => {
    await stack.stop();
  };
}
