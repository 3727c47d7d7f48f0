import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { ApiClient } from "@/lib/api";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { parseUsdc } from "@/lib/chain/units";
import { apiClient, chainConfig, claimAsOwner, readOutbox, signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { signInWithWallet } from "./sign-in-steps";
import { hydrated } from "./hydrated";

// The flows that used to end in an API hint, done in the dashboard: cancel a funded job and see
// the refund arrive on chain, set an agent's payout wallet (warned about before accepting a
// wallet-less agent), tick a manual criterion, and ask a wallet-less agent's owner for a wallet.

// anvil's account 1: the injected test wallet signs as it, and it holds test USDC.
const POSTER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;

async function fundedJob(
  poster: ApiClient,
  title: string,
  budget: string,
  extra: { criteria?: unknown[]; marker?: string } = {},
) {
  const job = (
    await poster.createJob({
      body: {
        templateId: "custom-v1",
        title,
        description: "A job made by the dashboard flows spec, funded from the poster's wallet.",
        acceptanceCriteria: (extra.criteria ?? ["Done"]) as never,
        inputData: {
          budgetType: "bid",
          proofHoldHours: 0,
          ...(extra.marker ? { proofContentMarker: extra.marker } : {}),
        },
        budget,
      },
    })
  ).data;
  const { txHash } = await depositToEscrow({
    config: chainConfig(),
    privateKey: POSTER_KEY,
    escrowJobId: escrowJobIdFromWire(job.escrowJobId),
    amount: parseUsdc(budget),
  });
  await poster.registerEscrow({ params: { id: job.id }, body: { txHash } });
  return job;
}

/** A fresh agent with no payout wallet, signed up for `ownerEmail`. */
async function walletlessAgent(ownerEmail: string, name: string) {
  const signup = (await apiClient().signUpAgent({ body: { ownerEmail, name } })).data;
  const agent = apiClient(signup.apiKey);
  await agent.heartbeat({});
  return { id: signup.agent.id, client: agent };
}

test("the poster cancels a funded job in the dashboard; the deposit returns to the payer on chain and the receipt shows", async ({
  page,
  wallet,
}) => {
  test.setTimeout(90_000);
  const poster = await signedInHuman(POSTER_KEY);
  expect(poster.address).toBe(wallet.address);
  const job = await fundedJob(poster.client, `Cancel me ${Date.now()}`, "7.25");
  const before = await erc20BalanceOf({ config: chainConfig(), address: wallet.address });

  await signInWithWallet(page, `/jobs/${job.id}`);
  await expect(page.getByText("Cancelling returns the whole deposit")).toBeVisible();
  await (await hydrated(page.getByRole("button", { name: "Cancel job" }))).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("the whole deposit goes back to the wallet that paid it");
  await dialog.getByRole("button", { name: "Cancel job" }).click();

  const receipt = page.getByRole("status").filter({ hasText: "Refunded" });
  await expect(receipt).toBeVisible({ timeout: 30_000 });
  const done = (await poster.client.getJob({ params: { id: job.id } })).data;
  expect(done.status).toBe("CANCELLED");
  expect(done.refundTxHash).toMatch(/^0x[0-9a-f]{64}$/);
  await expect(receipt).toContainText(done.refundTxHash!.slice(0, 6));
  // Gas is paid in ETH by the operator: the payer's USDC grows by exactly the deposit.
  const after = await erc20BalanceOf({ config: chainConfig(), address: wallet.address });
  expect(after - before).toBe(parseUsdc("7.25"));
  await expect(page.getByRole("button", { name: "Cancel job" })).toHaveCount(0);
});

test("the bids table warns before accepting a wallet-less agent; its owner sets the payout wallet on the agent's page and the warning goes", async ({
  page,
  wallet,
}) => {
  test.setTimeout(90_000);
  const poster = await signedInHuman(POSTER_KEY);
  expect(poster.address).toBe(wallet.address);
  const stamp = Date.now();
  const ownerEmail = `wallet-owner-${stamp}@example.test`;
  const agent = await walletlessAgent(ownerEmail, `Walletless ${stamp}`);
  // The person in the browser owns the agent (claimed from the mailed link) and posts the job.
  await claimAsOwner(poster.client, ownerEmail);
  const job = (
    await poster.client.createJob({
      body: {
        templateId: "custom-v1",
        title: `Needs a wallet ${stamp}`,
        description: "A job whose bidder has no payout wallet yet.",
        acceptanceCriteria: ["Done"],
        inputData: { budgetType: "bid" },
        budget: "4",
      },
    })
  ).data;
  await agent.client.placeBid({
    params: { id: job.id },
    body: { agentId: agent.id, proposedUsdc: "4", coverLetter: "I will do it." },
  });

  await signInWithWallet(page, `/jobs/${job.id}`);
  const bids = page.getByRole("table").filter({ hasText: `Walletless ${stamp}` });
  await expect(bids).toContainText("No payout wallet yet");
  await (await hydrated(bids.getByRole("button", { name: "Accept" }))).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText(`Walletless ${stamp} has no payout wallet yet`);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  expect((await poster.client.getJob({ params: { id: job.id } })).data.status).toBe("OPEN");

  const payTo = privateKeyToAccount(generatePrivateKey()).address;
  await page.goto(`/agents/${agent.id}`);
  await page.getByRole("textbox", { name: "Payout wallet" }).fill(payTo);
  await page.getByRole("button", { name: "Save wallet" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved" })).toContainText(payTo);
  expect((await apiClient().getAgent({ params: { id: agent.id } })).data.walletAddress).toBe(payTo);

  await page.goto(`/jobs/${job.id}`);
  await expect(page.getByRole("table").filter({ hasText: `Walletless ${stamp}` })).not.toContainText(
    "No payout wallet yet",
  );
});

test("on the review of a wallet-less agent's delivery the poster ticks the manual criterion, reads that the payment would wait, and asks the owner by mail", async ({
  page,
  wallet,
}) => {
  test.setTimeout(90_000);
  const marker = `AWM-FLOWS-${Date.now()}`;
  const server = createServer((_req, res) =>
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(`<!doctype html><title>Report</title><h1>Report</h1><p>The findings. ${marker}</p>`),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const poster = await signedInHuman(POSTER_KEY);
    expect(poster.address).toBe(wallet.address);
    const stamp = Date.now();
    const ownerEmail = `remind-${stamp}@example.test`;
    const agent = await walletlessAgent(ownerEmail, `Forgetful ${stamp}`);
    const job = await fundedJob(poster.client, `Tick and remind ${stamp}`, "3", {
      marker,
      criteria: [{ description: "The report reads well", check: { type: "manual" } }],
    });
    const bid = await agent.client.placeBid({
      params: { id: job.id },
      body: { agentId: agent.id, proposedUsdc: "3", coverLetter: "On it." },
    });
    await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.data.id } });
    await agent.client.submitDeliverable({
      params: { id: job.id },
      body: { outputData: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/report` } },
    });

    await signInWithWallet(page, `/jobs/${job.id}/review`);
    const criterion = page.getByTestId("criterion-ac-1");
    await expect(criterion).toContainText("Pending");
    await criterion.getByRole("button", { name: 'Tick "The report reads well"' }).click();
    await expect(criterion).toContainText("Met");
    await expect(criterion.getByRole("button", { name: 'Untick "The report reads well"' })).toBeVisible();

    await expect(page.getByText(`Forgetful ${stamp} has no payout wallet yet.`)).toBeVisible();
    // Approval is offered all the same: the money would wait in escrow for the wallet.
    await expect(page.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
    await page.getByRole("button", { name: "Ask the owner to set a wallet" }).click();
    await expect(page.getByRole("status").filter({ hasText: "asked by mail" })).toBeVisible();
    const mail = (await readOutbox()).find((m) => m.to === ownerEmail && /payout wallet/.test(m.subject));
    expect(mail, `a reminder mailed to ${ownerEmail}`).toBeTruthy();
    expect(mail!.text).toContain(`/agents/${agent.id}`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
