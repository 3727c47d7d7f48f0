import { expect, test } from "./fixtures";

// WalletConnect is offered only with a project id (WALLETCONNECT_PROJECT_ID, docs/configuration.md);
// the browser tests' stack sets none, so the connect dialog lists the browser's own wallets without it.
test("without a WalletConnect project id the connect dialog does not offer WalletConnect", async ({ page, wallet }) => {
  void wallet; // the injected test wallet is the browser's own wallet here
  await page.goto("/sign-in");
  await page.getByRole("button", { name: "Connect wallet to sign in" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("button", { name: /Test Wallet/ })).toBeVisible();
  await expect(dialog.getByText("WalletConnect")).toHaveCount(0);
});
