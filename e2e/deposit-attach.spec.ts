import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { getEscrow } from "@/lib/chain/escrow/reads";
import { expect, test } from "./fixtures";
import { chainConfig, signedInHuman } from "./api-actors";
import { signInWithWallet } from "./sign-in-steps";

// A deposit is never lost by a closed tab: the poster funds a job from the injected wallet and the
// request that registers the deposit never reaches the marketplace (dropped by the test, as a lost
// network or a closed tab would). The page says the job is already funded and finishing, offers no
// second deposit, and shows the job funded once the service attached the deposit by itself.

// anvil's account 1: the injected test wallet signs as it, and it holds test USDC.
const ACCOUNT_1_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;

test("a deposit whose registration request was dropped is shown as funded within a minute, never offered twice", async ({
  page,
  wallet,
  secrets,
}) => {
  test.setTimeout(180_000);
  const poster = await signedInHuman(ACCOUNT_1_KEY);
  expect(poster.address).toBe(wallet.address);
  const job = (
    await poster.client.createJob({
      body: {
        templateId: "custom-v1",
        title: `Funded with the tab closing ${Date.now()}`,
        description: "A job whose deposit's registration never reaches the marketplace.",
        acceptanceCriteria: ["Funded"],
        inputData: { budgetType: "bid" },
        budget: "6.5",
      },
    })
  ).data;
  const escrowJobId = escrowJobIdFromWire(job.escrowJobId);

  await signInWithWallet(page, `/jobs/${job.id}/fund`);
  await expect(page.getByRole("heading", { name: "Fund the escrow" })).toBeVisible();
  // The registration (the server action carrying the deposit's transaction hash) is dropped.
  let dropped = 0;
  await page.route(`**/jobs/${job.id}/fund`, async (route) => {
    const request = route.request();
    if (request.method() === "POST" && /0x[0-9a-f]{64}/i.test(request.postData() ?? "")) {
      dropped += 1;
      return route.abort("internetdisconnected");
    }
    return route.continue();
  });

  await page.getByRole("button", { name: "Fund 6.5 USDC into escrow" }).click();
  const finishing = page.getByTestId("fund-finishing");
  await expect(finishing).toContainText("Already funded, finishing", { timeout: 60_000 });
  expect(dropped).toBe(1);
  await expect(page.getByRole("button", { name: /Fund 6.5 USDC/ })).toHaveCount(0);
  expect(await getEscrow({ config: chainConfig(), escrowJobId, payer: wallet.address, version: 2 })).toMatchObject({
    amount: 6_500_000n,
    state: "FUNDED",
  });

  // A reload reads the slot on chain: still no second deposit offered, while the service finishes.
  await page.reload();
  await expect(page.getByText("This job is funded").or(finishing)).toBeVisible();
  await expect(page.getByRole("button", { name: /Fund 6.5 USDC/ })).toHaveCount(0);

  // The service attaches the deposit by itself: the page shows the job funded.
  await expect(page.getByText("This job is funded")).toBeVisible({ timeout: 60_000 });
  const detail = (await poster.client.getJob({ params: { id: job.id } })).data;
  expect(detail).toMatchObject({ funded: true, escrowVersion: 2 });
  expect(detail.escrowTxHash).toMatch(/^0x[0-9a-f]{64}$/);
  await secrets.assertNoLeaks();
});
