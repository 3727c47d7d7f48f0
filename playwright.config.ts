import { defineConfig } from "@playwright/test";

// Browser tests run in Debian's Chromium: Playwright cannot download its own browser here. The
// flags keep Chromium off the (closed) network and working as root in a container.
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  // e2e/global-setup.ts starts anvil, the database and the built app on free ports, and sets
  // E2E_BASE_URL / E2E_RPC_URL; workers start afterwards and read them below.
  globalSetup: "./e2e/global-setup.ts",
  // One worker: the specs share one stack and one chain, and the machine has two cores.
  workers: 1,
  fullyParallel: false,
  retries: process.env.CI ? 1 : 0,
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // `npm test` asks for the JSON report too (PLAYWRIGHT_JSON_OUTPUT_FILE): each spec's duration.
  reporter: [
    ["list"],
    ...(process.env.CI ? [["html", { open: "never", outputFolder: "playwright-report" }] as const] : []),
    ...(process.env.PLAYWRIGHT_JSON_OUTPUT_FILE ? [["json"] as const] : []),
  ],
  outputDir: "test-results",
  use: {
    baseURL: process.env.E2E_BASE_URL,
    browserName: "chromium",
    headless: true,
    launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    // No service worker may answer in place of the server: every response passes the recorders.
    serviceWorkers: "block",
  },
  // The operator console's spec reads the reconciliation of the whole suite's money flows, so it
  // runs last, in a project that depends on every other spec (run it alone with --no-deps).
  projects: [
    { name: "chromium", testIgnore: "**/operator-console.spec.ts" },
    { name: "operator-console", testMatch: "**/operator-console.spec.ts", dependencies: ["chromium"] },
  ],
});
