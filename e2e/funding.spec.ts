import { expect, test } from "./fixtures";
import { signedInHuman } from "./api-actors";

// anvil's account 1: the injected test wallet signs as it, and it holds test USDC.
const ACCOUNT_1_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;

test("a poster funds a job from the injected wallet, watches the progress, and the job shows funded", async ({ page, wallet, secrets }) => {
  const poster = await signedInHuman(ACCOUNT_1_KEY);
  expect(poster.address).toBe(wallet.address);
  const job = (
    await poster.client.createJob({
      body: {
        templateId: "custom-v1",
        title: `Fund me ${Date.now()}`,
        description: "A job whose budget the poster deposits into the escrow from the browser.",
        acceptanceCriteria: ["Funded"],
        inputData: { budgetType: "bid" },
        budget: "12.5",
      },
    })
  ).data;

  await page.goto(`/sign-in?returnTo=${encodeURIComponent(`/jobs/${job.id}/fund`)}`);
  await page.getByRole("button", { name: "Connect wallet to sign in" }).click();
  await page.getByRole("button", { name: /Test Wallet/ }).click();
  await page.getByRole("button", { name: /sign message/i }).click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}/fund$`));
  await expect(page.getByRole("heading", { name: "Fund the escrow" })).toBeVisible();

  await page.getByRole("button", { name: "Fund 12.5 USDC into escrow" }).click();
  await expect(page.getByRole("status")).toContainText(/Waiting for your wallet|confirmations|checking/);
  // Once the service has verified the deposit, the page re-renders as funded, with the receipt.
  await expect(page.getByText("This job is funded")).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText(/^Deposit:/)).toBeVisible();

  await page.getByRole("link", { name: "Back to the job" }).first().click();
  await expect(page.getByText("Escrow funded by")).toBeVisible();
  const detail = (await poster.client.getJob({ params: { id: job.id } })).data;
  expect(detail.funded).toBe(true);
  expect(detail.escrowTxHash).toMatch(/^0x[0-9a-f]{64}$/);
  await secrets.assertNoLeaks();
});
