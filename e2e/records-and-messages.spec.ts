import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { parseUsdc } from "@/lib/chain/units";
import type { ApiClient } from "@/lib/api";
import { apiClient, chainConfig, signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { signInWithKey, signInWithWallet } from "./sign-in-steps";

// Track records, reviews and a job's conversations, as the poster and the agent live them in the
// dashboard: a question and its answer before the bid is accepted (Markdown shown inert), and after
// a funded job is delivered, approved and released on the local chain, both ratings and the public
// profiles that show the record.

// anvil's account 1: the injected test wallet signs as it, and it holds test USDC.
const POSTER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;

async function bidder(name: string) {
  const signup = (
    await apiClient().signUpAgent({
      body: { ownerEmail: `records-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`, name },
    })
  ).data;
  const agent = apiClient(signup.apiKey);
  await agent.heartbeat({});
  return { agent, apiKey: signup.apiKey, agentId: signup.agent.id };
}

async function postJob(poster: ApiClient, title: string, extra: Record<string, unknown> = {}) {
  return (
    await poster.createJob({
      body: {
        templateId: "custom-v1",
        title,
        description: "A short market report delivered as a public web page that carries the proof marker.",
        acceptanceCriteria: ["The report is readable"],
        inputData: { budgetType: "bid", proofHoldHours: 0, ...extra },
        budget: "20",
      },
    })
  ).data;
}

test("a bidder asks a question and the poster answers it before accepting, in the dashboard", async ({
  page,
  browser,
  baseURL,
  wallet,
  secrets,
}) => {
  test.setTimeout(120_000);
  const poster = await signedInHuman(POSTER_KEY);
  expect(poster.address).toBe(wallet.address);
  const job = await postJob(poster.client, `Lead list with a question ${Date.now()}`);
  const { agent, apiKey, agentId } = await bidder("Curious Bot");
  secrets.addSecret(apiKey);
  await agent.placeBid({
    params: { id: job.id },
    body: { agentId, proposedUsdc: "20", coverLetter: "Happy to do it." },
  });

  // ── The agent (signed in with its key) asks, with a Markdown injection attempt in the question.
  const agentContext = await browser.newContext({ baseURL });
  const agentPage = await agentContext.newPage();
  await signInWithKey(agentPage, apiKey, `/jobs/${job.id}`);
  const agentMessages = agentPage.locator("#messages");
  await expect(agentMessages.getByRole("heading", { name: "Messages" })).toBeVisible();
  await agentMessages
    .getByLabel(/Message to/)
    .fill("Should the list include **phone numbers**?\n\n[details](javascript:alert(1)) <img src=x onerror=alert(2)>");
  await agentMessages.getByRole("button", { name: "Send" }).click();
  await expect(agentMessages.getByRole("list", { name: /Conversation with Curious Bot/ })).toContainText(
    "Should the list include phone numbers?",
  );
  await expect(agentMessages.locator("strong", { hasText: "phone numbers" })).toBeVisible();
  await expect(agentMessages.locator('a[href^="javascript"], img')).toHaveCount(0);

  // ── The poster sees one unread conversation, opens it, answers.
  await signInWithWallet(page, `/jobs/${job.id}`);
  const messages = page.locator("#messages");
  const link = messages.getByRole("navigation", { name: "Conversations" }).getByRole("link", { name: /Curious Bot/ });
  await expect(link).toContainText("1 new");
  await link.click();
  await expect(messages.getByRole("list", { name: "Conversation with Curious Bot" })).toContainText(
    "Should the list include phone numbers?",
  );
  await expect(messages.locator('a[href^="javascript"], img')).toHaveCount(0);
  // Opening it marked it read.
  await expect(messages.getByRole("navigation", { name: "Conversations" })).not.toContainText("new");
  await messages.getByLabel("Message to Curious Bot").fill("No phone numbers: *emails only*.");
  await messages.getByRole("button", { name: "Send" }).click();
  await expect(messages.getByRole("list", { name: "Conversation with Curious Bot" })).toContainText(
    "No phone numbers: emails only.",
  );

  // The bid is still pending: the answer came before acceptance.
  expect((await poster.client.listJobBids({ params: { jobId: job.id }, query: {} })).data[0]!.status).toBe("PENDING");

  // ── The agent reads the answer.
  await agentPage.reload();
  await expect(
    agentPage.locator("#messages").getByRole("list", { name: /Conversation with Curious Bot/ }),
  ).toContainText("emails only");
  await agentContext.close();
  await secrets.assertNoLeaks();
});

async function serveDeliverable(marker: string): Promise<{ url: string; close: () => Promise<unknown> }> {
  const server: Server = createServer((_req, res) => {
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(`<!doctype html><title>Market report</title><h1>Market report</h1><p>Findings of the study. ${marker}</p>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/report`,
    close: () => new Promise((r) => server.close(r)),
  };
}

test("after a job is paid on chain, both sides rate each other and the profiles show the track record", async ({
  page,
  browser,
  baseURL,
  wallet,
  secrets,
}) => {
  test.setTimeout(150_000);
  const poster = await signedInHuman(POSTER_KEY);
  expect(poster.address).toBe(wallet.address);
  const marker = `AWM-RECORD-${Date.now()}`;
  const site = await serveDeliverable(marker);
  try {
    // A full funded flow through the API: deposit on chain, bid, accept, deliver, approve, release.
    const job = await postJob(poster.client, `Rated market report ${Date.now()}`, { proofContentMarker: marker });
    const { txHash } = await depositToEscrow({
      config: chainConfig(),
      privateKey: POSTER_KEY,
      escrowJobId: escrowJobIdFromWire(job.escrowJobId),
      amount: parseUsdc("20"),
    });
    await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
    const { agent, apiKey, agentId } = await bidder(`Record Bot ${Date.now() % 100000}`);
    secrets.addSecret(apiKey);
    await agent.updateAgent({
      params: { id: agentId },
      body: { walletAddress: privateKeyToAccount(generatePrivateKey()).address },
    });
    const bid = await agent.placeBid({ params: { id: job.id }, body: { agentId, proposedUsdc: "20" } });
    await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.data.id } });
    await agent.submitDeliverable({ params: { id: job.id }, body: { outputData: { url: site.url } } });
    await poster.client.approveJob({ params: { id: job.id } });
    await expect
      .poll(async () => (await poster.client.getJob({ params: { id: job.id } })).data.releaseTxHash, {
        timeout: 60_000,
      })
      .toMatch(/^0x[0-9a-f]{64}$/);

    // ── The poster rates the agent: hidden until the agent writes.
    await signInWithWallet(page, `/jobs/${job.id}`);
    const reviews = page.getByRole("region", { name: "Reviews" });
    await reviews.getByLabel("5 stars").check();
    await reviews.getByLabel(/Review \(optional/).fill("Delivered a **clean** report, on time.");
    await reviews.getByRole("button", { name: "Publish review" }).click();
    await expect(reviews.getByTestId("my-review")).toContainText("published when");
    await expect(reviews.getByRole("list", { name: "Reviews" })).toHaveCount(0);

    // ── The agent (its key) rates the poster: both are public now.
    const agentContext = await browser.newContext({ baseURL });
    const agentPage = await agentContext.newPage();
    await signInWithKey(agentPage, apiKey, `/jobs/${job.id}`);
    const agentReviews = agentPage.getByRole("region", { name: "Reviews" });
    await agentReviews.getByLabel("4 stars").check();
    await agentReviews.getByLabel(/Review \(optional/).fill("Clear brief and a quick approval.");
    await agentReviews.getByRole("button", { name: "Publish review" }).click();
    await expect(agentReviews.getByRole("list", { name: "Reviews" })).toContainText(
      "Clear brief and a quick approval.",
    );
    await expect(agentReviews.getByRole("list", { name: "Reviews" })).toContainText(
      "Delivered a clean report, on time.",
    );
    await agentContext.close();

    // ── The agent's public profile, signed out: the record from the released escrow and the review.
    const visitor = await browser.newContext({ baseURL });
    const visitorPage = await visitor.newPage();
    await visitorPage.goto(`/agents/${agentId}`);
    const record = visitorPage.getByLabel("Track record", { exact: true }).and(visitorPage.locator("dl"));
    await expect(record.getByRole("definition").first()).toHaveText("1"); // completed jobs
    await expect(record).toContainText("19.00"); // 20 USDC less the 5% fee, as released on chain
    await expect(visitorPage.getByRole("list", { name: "Reviews" })).toContainText(
      "Delivered a clean report, on time.",
    );

    // The poster's profile, reached from the job page: what it paid and the agent's review.
    await visitorPage.goto(`/jobs/${job.id}`);
    await visitorPage.getByText("Posted by").getByRole("link", { name: job.poster.displayName }).click();
    await expect(visitorPage).toHaveURL(new RegExp(`/people/${job.posterId}$`));
    await expect(visitorPage.getByLabel("Record as a poster", { exact: true })).toContainText("Jobs paid");
    await expect(visitorPage.getByRole("list", { name: "Reviews" })).toContainText("Clear brief and a quick approval.");
    await visitor.close();
    await secrets.assertNoLeaks();
  } finally {
    await site.close();
  }
});
