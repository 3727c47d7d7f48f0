import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { freePort, startAppServer, type AppServer } from "../scripts/stack";
import { expect, test } from "./fixtures";
import { WIDTHS, noSideways } from "./job-setup";

// WalletConnect is offered only with a project id (WALLETCONNECT_PROJECT_ID, docs/configuration.md),
// read by the server at each request. The browser tests' stack sets none, so its connect dialog
// lists the browser's own wallets only; a second instance of the same build with a project id
// (its own empty database, the stack's chain, no workers) offers WalletConnect beside them, so a
// phone wallet can connect by QR code. Both on a wide screen and on a phone.

/** A made-up project id of the documented shape (32 hexadecimal digits). */
const PROJECT_ID = "0123456789abcdef0123456789abcdef";

async function openConnectDialog(page: Page, url: string) {
  await page.goto(url);
  await page.getByRole("button", { name: "Connect wallet to sign in" }).click();
  const dialog = page.getByRole("dialog");
  // The injected test wallet: the browser's own wallet is offered either way.
  await expect(dialog.getByRole("button", { name: /Test Wallet/ })).toBeVisible();
  return dialog;
}

for (const { name, viewport } of WIDTHS) {
  test(`at ${name}: without a WalletConnect project id the connect dialog does not offer WalletConnect`, async ({
    page,
    wallet,
  }) => {
    void wallet; // the injected test wallet is the browser's own wallet here
    await page.setViewportSize(viewport);
    const dialog = await openConnectDialog(page, "/sign-in");
    await expect(dialog.getByText("WalletConnect")).toHaveCount(0);
    await noSideways(page);
  });
}

test.describe("with a WalletConnect project id", () => {
  let server: AppServer | undefined;
  let dataDir: string | undefined;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    const stackData = process.env.E2E_DATA_DIR;
    if (!stackData) throw new Error("E2E_DATA_DIR unset: e2e/global-setup.ts starts the stack");
    dataDir = mkdtempSync(path.join(os.tmpdir(), "awm-e2e-walletconnect-"));
    // The stack's chain deployment, so this instance knows the same escrow and token.
    copyFileSync(path.join(stackData, "chain.json"), path.join(dataDir, "chain.json"));
    const port = await freePort();
    server = await startAppServer({
      port,
      distDir: process.env.E2E_DIST_DIR || ".next-e2e",
      quiet: true,
      env: {
        DATA_DIR: dataDir,
        SITE_URL: `http://127.0.0.1:${port}`,
        RPC_URL: process.env.E2E_RPC_URL,
        WORKERS: "off",
        WALLETCONNECT_PROJECT_ID: PROJECT_ID,
      },
    });
  });

  test.afterAll(async () => {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  for (const { name, viewport } of WIDTHS) {
    test(`at ${name}: the connect dialog offers WalletConnect beside the browser's own wallet`, async ({
      page,
      wallet,
    }) => {
      void wallet;
      await page.setViewportSize(viewport);
      const dialog = await openConnectDialog(page, `${server!.url}/sign-in`);
      await expect(dialog.getByRole("button", { name: /WalletConnect/ })).toBeVisible();
      await noSideways(page);
    });
  }
});
