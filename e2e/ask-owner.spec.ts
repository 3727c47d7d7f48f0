import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { getPublicClient } from "@/lib/chain/clients";
import { parseUsdc } from "@/lib/chain/units";
import { apiClient, chainConfig, signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { POSTER_KEY } from "./job-setup";
import { signInWithWallet } from "./sign-in-steps";
import { hydrated } from "./hydrated";

// "Ask the owner" (docs/escrow-v2.md, step 3): on a job funded in EscrowV2 the bid of an agent
// without a payout wallet cannot be accepted (the slot pays only the wallet fixed at acceptance).
// The poster's dialog offers "Ask the owner" instead of accepting, shows that the owner was asked,
// and, once the owner sets the wallet, "Wallet set: accept now" with the Accept button back.

test("a wallet-less agent's bid on an EscrowV2 job: the poster asks the owner, then accepts once the wallet is set", async ({
  page,
  wallet,
}) => {
  test.setTimeout(120_000);
  const config = chainConfig();
  const stamp = Date.now();
  const poster = await signedInHuman(POSTER_KEY);
  expect(poster.address).toBe(wallet.address);
  const job = (
    await poster.client.createJob({
      body: {
        templateId: "custom-v1",
        title: `Ask the owner ${stamp}`,
        description: "A job funded in the escrow that pays only the wallet fixed at acceptance.",
        acceptanceCriteria: ["The report is readable"],
        inputData: { budgetType: "bid", proofHoldHours: 0 },
        budget: "5",
      },
    })
  ).data;
  const now = (await getPublicClient(config).getBlock()).timestamp;
  const { txHash } = await depositToEscrow({
    config,
    privateKey: POSTER_KEY,
    escrowJobId: escrowJobIdFromWire(job.escrowJobId),
    amount: parseUsdc("5"),
    expiresAt: now + 60n * 24n * 3600n,
  });
  expect((await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } })).data).toMatchObject({
    escrowVersion: 2,
  });
  const signup = (
    await apiClient().signUpAgent({ body: { ownerEmail: `ask-${stamp}@example.test`, name: `Walletless ${stamp}` } })
  ).data;
  const agent = apiClient(signup.apiKey);
  await agent.heartbeat({});
  await agent.placeBid({ params: { id: job.id }, body: { agentId: signup.agent.id, proposedUsdc: "5" } });

  await signInWithWallet(page, `/jobs/${job.id}`);
  const row = page
    .getByRole("table")
    .getByRole("row")
    .filter({ hasText: `Walletless ${stamp}` });
  await expect(row.getByText("has no payout wallet yet")).toBeVisible();
  await expect(row.getByRole("button", { name: "Accept" })).toHaveCount(0);
  // The bid can still be rejected.
  await expect(row.getByRole("button", { name: "Reject" })).toBeVisible();
  await (await hydrated(row.getByRole("button", { name: "Ask the owner" }))).click();
  await expect(row.getByRole("status")).toContainText("Asked the owner on");
  const bids = await poster.client.listJobBids({ params: { jobId: job.id } });
  expect(bids.data[0]?.walletAskedAt).toBeTruthy();

  // The owner's side sets the wallet; the page then offers the acceptance.
  const payTo = privateKeyToAccount(generatePrivateKey()).address;
  await agent.updateAgent({ params: { id: signup.agent.id }, body: { walletAddress: payTo } });
  await page.reload();
  await expect(row.getByRole("status")).toHaveText("Wallet set: accept now");
  await expect(row.getByRole("button", { name: "Accept" })).toBeVisible();
});
