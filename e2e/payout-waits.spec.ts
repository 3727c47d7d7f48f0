import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { parseUsdc } from "@/lib/chain/units";
import { apiClient, chainConfig, claimAsOwner, signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { signInWithWallet } from "./sign-in-steps";
import { hydrated } from "./hydrated";

// A part approved for an agent that has no payout wallet, as its people live it: the poster is
// told before approving that the money will wait, approves the part on the job page, and reads
// that it waits in escrow; the agent's owner sets the wallet on the agent's page, and the part is
// paid on chain (the balance is read from the chain).

// anvil's account 1: the injected test wallet signs as it, and it holds test USDC.
const POSTER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;

test("a part approved for an agent without a payout wallet waits in escrow and is paid once its owner sets the wallet", async ({
  page,
  wallet,
  secrets,
}) => {
  test.setTimeout(180_000);
  const stamp = Date.now();
  const marker = `AWM-WAITS-${stamp}`;
  const site: Server = createServer((req, res) =>
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(`<!doctype html><title>Part</title><h1>Part ${req.url}</h1><p>Delivered as agreed. ${marker}</p>`),
  );
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const config = chainConfig();
  try {
    // The person in the browser posts a job of two parts, funds it, and owns the agent that does it.
    const poster = await signedInHuman(POSTER_KEY);
    expect(poster.address).toBe(wallet.address);
    const job = (
      await poster.client.createJob({
        body: {
          templateId: "custom-v1",
          title: `Two parts, no wallet yet ${stamp}`,
          description: "A job paid in two parts whose agent has no payout wallet when the first is approved.",
          acceptanceCriteria: ["Both parts online"],
          inputData: { budgetType: "bid", proofHoldHours: 0, proofContentMarker: marker },
          budget: "8",
          milestones: [
            { title: "First half", amountUsdc: "4", acceptanceCriteria: "The first half is online" },
            { title: "Second half", amountUsdc: "4", acceptanceCriteria: "The second half is online" },
          ],
        },
      })
    ).data;
    const { txHash } = await depositToEscrow({
      config,
      privateKey: POSTER_KEY,
      escrowJobId: escrowJobIdFromWire(job.escrowJobId),
      amount: parseUsdc("8"),
    });
    await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
    const ownerEmail = `waits-${stamp}@example.test`;
    const agentName = `Walletless Writer ${stamp}`;
    const signup = (await apiClient().signUpAgent({ body: { ownerEmail, name: agentName } })).data;
    secrets.addSecret(signup.apiKey);
    const agent = apiClient(signup.apiKey);
    await agent.heartbeat({});
    await claimAsOwner(poster.client, ownerEmail);
    const bid = await agent.placeBid({
      params: { id: job.id },
      body: { agentId: signup.agent.id, proposedUsdc: "8", coverLetter: "Two halves." },
    });
    await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.data.id } });
    await agent.submitMilestone({
      params: { id: job.id, position: 1 },
      body: { outputData: { url: `${base}/half-1` } },
    });

    // The poster is told before approving that the money would wait, and approves all the same.
    await signInWithWallet(page, `/jobs/${job.id}`);
    const panel = page.getByTestId("milestones");
    await expect(panel.getByText(`${agentName} has no payout wallet yet.`)).toBeVisible();
    await expect(panel.getByRole("button", { name: "Ask the owner to set a wallet" })).toBeVisible();
    const part1 = panel.getByTestId("milestone-1");
    await (await hydrated(part1.getByRole("button", { name: "Approve part 1" }))).click();
    const dialog = page.getByRole("dialog");
    await expect(dialog).toContainText("waits in escrow until the agent's owner sets a payout wallet");
    await dialog.getByRole("button", { name: "Approve part" }).click();
    await expect(panel.getByTestId("milestone-1-state")).toHaveText("Approved", { timeout: 30_000 });
    await expect(part1).toContainText("the payment waits in escrow until the agent has a payout wallet");

    // The owner sets the wallet on the agent's page: the part is paid on chain, 4 less the 5 % fee.
    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    await page.goto(`/agents/${signup.agent.id}`);
    await page.getByRole("textbox", { name: "Payout wallet" }).fill(payTo);
    await page.getByRole("button", { name: "Save wallet" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Saved" })).toContainText(payTo);
    await expect.poll(() => erc20BalanceOf({ config, address: payTo }), { timeout: 60_000 }).toBe(parseUsdc("3.8"));
    await page.goto(`/jobs/${job.id}`);
    await expect(panel.getByTestId("milestone-1-state")).toHaveText("Paid");
    await expect(panel.getByTestId("milestone-1-receipt")).toContainText("Paid 3.8 USDC to the agent (fee 0.2)");
    await expect(panel.getByText(`${agentName} has no payout wallet yet.`)).toHaveCount(0);
    await secrets.assertNoLeaks();
  } finally {
    await new Promise((resolve) => site.close(resolve));
  }
});
