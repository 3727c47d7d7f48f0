import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Page } from "@playwright/test";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { parseUsdc } from "@/lib/chain/units";
import type { ApiClient } from "@/lib/api";
import { apiClient, chainConfig, signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { signInWithKey, signInWithWallet } from "./sign-in-steps";

// Revisions as the two people live them, on a wide screen and on a phone: the poster reads the
// delivered work and, instead of approving or disputing, sends it back with a message; the agent
// sees the request (its round and the message, as plain text) on the job and on the submission
// page, resubmits, and the job is in review again with the request on its timeline. On a job paid
// in parts, one part is sent back alone.

// anvil's account 1: the injected test wallet signs as it, and it holds test USDC.
const POSTER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;
const WIDTHS = [
  { name: "1280 px", viewport: { width: 1280, height: 900 } },
  { name: "390 px", viewport: { width: 390, height: 844 } },
] as const;

async function serveWork(marker: string) {
  const server: Server = createServer((req, res) => {
    const part = /part-(\d+)/.exec(req.url ?? "")?.[1];
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(
        `<!doctype html><title>Report</title><h1>Report ${req.url}</h1><p>${marker}</p>${part ? `<p>${marker}-part-${part}</p>` : ""}`,
      );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, close: () => new Promise((r) => server.close(r)) };
}

/** A funded job assigned to a fresh agent, set up through the API as scripts would. */
async function assignedJob(poster: ApiClient, marker: string, milestones?: unknown[]) {
  const job = (
    await poster.createJob({
      body: {
        templateId: "custom-v1",
        title: `Revised report ${Date.now()}`,
        description: "A short market report delivered as a public web page that carries the proof marker.",
        acceptanceCriteria: ["The report is readable"],
        inputData: { budgetType: "bid", proofHoldHours: 0, proofContentMarker: marker },
        budget: "20",
        maxRevisions: 2,
        ...(milestones ? { milestones: milestones as never } : {}),
      },
    })
  ).data;
  const { txHash } = await depositToEscrow({
    config: chainConfig(),
    privateKey: POSTER_KEY,
    escrowJobId: escrowJobIdFromWire(job.escrowJobId),
    amount: parseUsdc("20"),
  });
  await poster.registerEscrow({ params: { id: job.id }, body: { txHash } });
  const signup = (
    await apiClient().signUpAgent({ body: { ownerEmail: `revise-${Date.now()}@example.test`, name: "Revision Bot" } })
  ).data;
  const agent = apiClient(signup.apiKey);
  await agent.heartbeat({});
  await agent.updateAgent({
    params: { id: signup.agent.id },
    body: { walletAddress: privateKeyToAccount(generatePrivateKey()).address },
  });
  const bid = await agent.placeBid({
    params: { id: job.id },
    body: { agentId: signup.agent.id, proposedUsdc: "20", coverLetter: "I will deliver the report." },
  });
  await poster.acceptBid({ params: { jobId: job.id, bidId: bid.data.id } });
  return { job, apiKey: signup.apiKey, agent };
}

async function noSideways(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, "no horizontal scroll").toBeLessThanOrEqual(0);
}

for (const { name, viewport } of WIDTHS) {
  test(`at ${name}: the poster requests changes with a message, the agent reads it, resubmits, and the job is in review again`, async ({
    page,
    browser,
    baseURL,
    wallet,
    secrets,
  }) => {
    test.setTimeout(180_000);
    await page.setViewportSize(viewport);
    const marker = `AWM-REVISE-${Date.now()}`;
    const site = await serveWork(marker);
    const poster = await signedInHuman(POSTER_KEY);
    expect(poster.address).toBe(wallet.address);
    const { job, apiKey, agent } = await assignedJob(poster.client, marker);
    secrets.addSecret(apiKey);
    try {
      await agent.submitDeliverable({ params: { id: job.id }, body: { outputData: { url: `${site.base}/v1` } } });

      // ── The poster: Request changes beside Approve and Dispute, with a message and a confirmation.
      await signInWithWallet(page, `/jobs/${job.id}/review`);
      const decision = page.getByRole("region", { name: "Your decision" });
      await expect(decision.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
      await expect(decision.getByRole("button", { name: "Dispute", exact: true })).toBeVisible();
      const message = "The table lacks the source column.\nAdd it for every row, please. <b>not bold</b>";
      await decision.getByLabel("What should the agent change?").fill(message);
      await expect(decision.getByText("Round 1 of 2.")).toBeVisible();
      await decision.getByRole("button", { name: "Request changes" }).click();
      const dialog = page.getByRole("dialog");
      await expect(dialog).toContainText("round 1 of 2");
      await dialog.getByRole("button", { name: "Request changes" }).click();
      // The page now shows the request, waiting for the agent.
      await expect(page.getByTestId("change-request")).toContainText("Waiting for the agent to resubmit");
      await expect(page.getByTestId("change-request-message")).toHaveText(message);
      await noSideways(page);
      expect((await poster.client.getJob({ params: { id: job.id } })).data).toMatchObject({
        status: "IN_PROGRESS",
        revisionCount: 1,
      });

      // ── The agent, in its own session: the request on the job page and on the submission page.
      const agentContext = await browser.newContext({ baseURL, viewport });
      const agentPage = await agentContext.newPage();
      await signInWithKey(agentPage, apiKey, `/jobs/${job.id}`);
      const note = agentPage.getByTestId("change-request");
      await expect(note).toContainText("revision 1 of 2");
      // Plain text, line breaks kept, markup shown as written.
      await expect(agentPage.getByTestId("change-request-message")).toHaveText(message);
      await noSideways(agentPage);
      await agentPage.getByRole("link", { name: "Submit the revised deliverable" }).click();
      await expect(agentPage.getByTestId("change-request")).toContainText("Fix the work and submit it again.");
      await agentPage.getByLabel("Deliverable URL").fill(`${site.base}/v2`);
      await agentPage.getByRole("button", { name: "Submit for review" }).click();
      await expect(agentPage).toHaveURL(new RegExp(`/jobs/${job.id}/review\\?submitted=1$`));
      await noSideways(agentPage);
      await agentContext.close();

      // ── The poster again: in review, with the request on the timeline; one round is left.
      await page.goto(`/jobs/${job.id}`);
      await expect(page.getByTestId("revision-count")).toContainText("Revised 1 of 2 times");
      const request = page.getByTestId("job-timeline").locator('li[data-event-type="job.changes_requested"]');
      await expect(request).toContainText("Changes requested");
      await expect(request).toContainText("round 1");
      await page.goto(`/jobs/${job.id}/review`);
      await expect(decision.getByText("Round 2 of 2.")).toBeVisible();
      await noSideways(page);
      await secrets.assertNoLeaks();
    } finally {
      await site.close();
    }
  });
}

test("on a job paid in parts, the poster sends one delivered part back; the agent sees it on that part", async ({
  page,
  browser,
  baseURL,
  wallet,
  secrets,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 390, height: 844 });
  const marker = `AWM-PARTS-${Date.now()}`;
  const site = await serveWork(marker);
  const poster = await signedInHuman(POSTER_KEY);
  expect(poster.address).toBe(wallet.address);
  const { job, apiKey, agent } = await assignedJob(poster.client, marker, [
    { title: "Research", amountUsdc: "12", acceptanceCriteria: "20 sources", proofContentMarker: `${marker}-part-1` },
    { title: "Draft", amountUsdc: "8", acceptanceCriteria: "A draft", proofContentMarker: `${marker}-part-2` },
  ]);
  secrets.addSecret(apiKey);
  try {
    await agent.submitMilestone({
      params: { id: job.id, position: 1 },
      body: { outputData: { url: `${site.base}/part-1` } },
    });
    await signInWithWallet(page, `/jobs/${job.id}`);
    const first = page.getByTestId("milestone-1");
    await expect(first.getByTestId("milestone-1-state")).toHaveText("Delivered");
    await first.getByLabel("What should change in part 1?").fill("Cite the 2024 figures.");
    await first.getByRole("button", { name: "Request changes to part 1" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Request changes" }).click();
    await expect(first.getByTestId("milestone-1-change-request")).toContainText("Waiting for the agent to resubmit");
    await noSideways(page);

    const agentContext = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
    const agentPage = await agentContext.newPage();
    await signInWithKey(agentPage, apiKey, `/jobs/${job.id}`);
    const part = agentPage.getByTestId("milestone-1");
    await expect(part.getByTestId("milestone-1-state")).toHaveText("Open");
    await expect(part.getByTestId("milestone-1-change-request")).toContainText("revision 1 of 2");
    await expect(part.getByTestId("milestone-1-change-request-message")).toHaveText("Cite the 2024 figures.");
    await noSideways(agentPage);
    await agentContext.close();
    await secrets.assertNoLeaks();
  } finally {
    await site.close();
  }
});
