import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { getEscrow } from "@/lib/chain/escrow/reads";
import { expect, test } from "./fixtures";
import { chainConfig, signedInHuman } from "./api-actors";

// New deposits go to EscrowV2 by default (EscrowV2 being deployed), on the suite's own app. The
// poster sees the expiry the service chose before funding, and the fund page deposits into
// EscrowV2 with it.

// anvil's account 1: the injected test wallet signs as it, and it holds test USDC.
const ACCOUNT_1_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;
const DAY_MS = 24 * 60 * 60_000;

/** The suite's app (e2e/global-setup.ts), which runs the default: new deposits into EscrowV2. */
const app = { url: process.env.E2E_BASE_URL! };

test("by default the poster sees the deposit's expiry and funds the job into EscrowV2 from the injected wallet", async ({
  page,
  wallet,
}) => {
  const poster = await signedInHuman(ACCOUNT_1_KEY, app.url);
  expect(poster.address).toBe(wallet.address);
  const chain = (await poster.client.getChain({})).data;
  expect(chain).toMatchObject({ escrowVersion: 2, escrowAddress: chain.escrowV2Address });

  const deadline = new Date(Date.now() + 10 * DAY_MS);
  const job = (
    await poster.client.createJob({
      body: {
        templateId: "custom-v1",
        title: `Fund me in EscrowV2 ${Date.now()}`,
        description: "A job whose budget the poster deposits into EscrowV2 from the browser.",
        acceptanceCriteria: ["Funded"],
        inputData: { budgetType: "bid" },
        budget: "6.5",
        deadlineAt: deadline.toISOString(),
      },
    })
  ).data;
  expect(Date.parse(job.escrowExpiryNeededAt!)).toBeGreaterThan(deadline.getTime());

  await page.goto(`${app.url}/sign-in?returnTo=${encodeURIComponent(`/jobs/${job.id}/fund`)}`);
  await page.getByRole("button", { name: "Connect wallet to sign in" }).click();
  await page.getByRole("button", { name: /Test Wallet/ }).click();
  await page.getByRole("button", { name: /sign message/i }).click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}/fund$`));

  // The expiry, as a date, before anything is sent.
  const expiry = page.getByTestId("fund-expiry");
  await expect(expiry).toContainText(new Date(job.escrowExpiryNeededAt!).toUTCString());
  await expect(expiry).toContainText("anyone can return the money to your wallet");

  await page.getByRole("button", { name: "Fund 6.5 USDC into escrow" }).click();
  await expect(page.getByText("This job is funded")).toBeVisible({ timeout: 30_000 });

  const funded = (await poster.client.getJob({ params: { id: job.id } })).data;
  expect(funded).toMatchObject({
    funded: true,
    escrowAddress: chain.escrowV2Address,
    escrowVersion: 2,
    escrowExpiresAt: job.escrowExpiryNeededAt,
    escrowExtensionNeeded: false,
  });
  const slot = await getEscrow({
    config: chainConfig(),
    escrowJobId: escrowJobIdFromWire(job.escrowJobId),
    payer: wallet.address,
    version: 2,
  });
  expect(slot).toMatchObject({ amount: 6_500_000n, state: "FUNDED" });
  expect(new Date(Number(slot.expiresAt) * 1000).toISOString()).toBe(job.escrowExpiryNeededAt);
});
