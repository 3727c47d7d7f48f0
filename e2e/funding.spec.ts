import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { getEscrow } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { getPublicClient } from "@/lib/chain/clients";
import { expect, test } from "./fixtures";
import { apiClient, chainConfig, signedInHuman } from "./api-actors";

// anvil's account 1: the injected test wallet signs as it, and it holds test USDC.
const ACCOUNT_1_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;
// anvil's account 5: a stranger who front-runs the funding with a 1-unit deposit under the job's public escrowJobId.
const STRANGER_KEY = "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba" as const;

test("a poster funds a job from the injected wallet (after a stranger's 1-unit deposit under its id), watches the progress, and the job shows funded", async ({
  page,
  wallet,
  secrets,
}) => {
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

  // The escrowJobId is public: a stranger deposits 1 unit under it first, into the escrow new
  // deposits go to (EscrowV2, the suite's app runs the default). With a slot per payer this neither
  // blocks the poster's deposit nor becomes the job's money.
  const escrowJobId = escrowJobIdFromWire(job.escrowJobId);
  const now = (await getPublicClient(chainConfig()).getBlock()).timestamp;
  await depositToEscrow({
    config: chainConfig(),
    privateKey: STRANGER_KEY,
    escrowJobId,
    amount: 1n,
    expiresAt: now + 2n * 24n * 3600n,
  });

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
  expect(detail).toMatchObject({ funded: true, escrowVersion: 2, escrowAddress: chainConfig().escrowV2Address });
  expect(detail.escrowTxHash).toMatch(/^0x[0-9a-f]{64}$/);
  expect(await getEscrow({ config: chainConfig(), escrowJobId, payer: wallet.address, version: 2 })).toMatchObject({
    amount: 12_500_000n,
    state: "FUNDED",
  });
  await secrets.assertNoLeaks();
});

test("the fund page re-checks the job before each transaction: a bid accepted at another price after the page loaded stops the send and says why; the poster then funds the accepted price", async ({
  page,
  wallet,
  secrets,
}) => {
  const poster = await signedInHuman(ACCOUNT_1_KEY);
  expect(poster.address).toBe(wallet.address);
  const job = (
    await poster.client.createJob({
      body: {
        templateId: "custom-v1",
        title: `Taken while funding ${Date.now()}`,
        description: "A job whose bid is accepted after the poster opened its fund page.",
        acceptanceCriteria: ["Funded at the accepted price"],
        inputData: { budgetType: "bid" },
        budget: "30",
      },
    })
  ).data;
  const escrowJobId = escrowJobIdFromWire(job.escrowJobId);

  await page.goto(`/sign-in?returnTo=${encodeURIComponent(`/jobs/${job.id}/fund`)}`);
  await page.getByRole("button", { name: "Connect wallet to sign in" }).click();
  await page.getByRole("button", { name: /Test Wallet/ }).click();
  await page.getByRole("button", { name: /sign message/i }).click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}/fund$`));
  await expect(page.getByRole("button", { name: "Fund 30 USDC into escrow" })).toBeVisible();

  // Meanwhile (another tab, the API) a bid of 25 is accepted: the agreed price is now the budget.
  const signup = (
    await apiClient().signUpAgent({
      body: { ownerEmail: `taker-${Date.now()}@example.test`, name: `Taker ${Date.now()}`, vertical: "RESEARCH" },
    })
  ).data;
  const agent = { id: signup.agent.id, client: apiClient(signup.apiKey) };
  await agent.client.heartbeat({});
  const bid = (await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "25" } }))
    .data;
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });

  await page.getByRole("button", { name: "Fund 30 USDC into escrow" }).click();
  await expect(page.getByText(/Not sent: The job's budget changed from 30 to 25 USDC/)).toBeVisible();
  // Nothing went on chain: the wallet's slot for this job is empty.
  expect(await getEscrow({ config: chainConfig(), escrowJobId, payer: wallet.address, version: 2 })).toMatchObject({
    state: "NONE",
  });

  // The assigned job is funded at the accepted price, so the agent can deliver: no dead end.
  await page.reload();
  await page.getByRole("button", { name: "Fund 25 USDC into escrow" }).click();
  await expect(page.getByText("This job is funded")).toBeVisible({ timeout: 30_000 });
  const detail = (await poster.client.getJob({ params: { id: job.id } })).data;
  expect(detail).toMatchObject({ status: "IN_PROGRESS", funded: true });
  expect(await getEscrow({ config: chainConfig(), escrowJobId, payer: wallet.address, version: 2 })).toMatchObject({
    amount: 25_000_000n,
    state: "FUNDED",
  });
  await secrets.assertNoLeaks();
});
