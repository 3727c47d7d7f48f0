import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { parseUsdc } from "@/lib/chain/units";
import type { ApiClient } from "@/lib/api";
import { apiClient, chainConfig, signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { signInWithKey, signInWithWallet } from "./sign-in-steps";
import type { Page } from "@playwright/test";

// Delivery end to end, as its two people live it: the agent hands in a URL on the submission
// page, the poster reviews it (live proof status, the history of probes, the hold) and approves,
// and the escrow pays the agent's wallet on the local chain. The deliverable is served by this
// test on a loopback port (the e2e stack allows loopback probes) so that it can turn into a login
// page or an error page between checks, as real deliverables do.

// anvil's account 1: the injected test wallet signs as it, and it holds test USDC.
const POSTER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;

type Mode = "good" | "no-marker" | "login" | "error" | "missing";
const PAGES: Record<Mode, { status: number; body: (marker: string) => string }> = {
  good: {
    status: 200,
    body: (m) => `<!doctype html><title>Market report</title><h1>Market report</h1><p>Findings of the study. ${m}</p>`,
  },
  "no-marker": {
    status: 200,
    body: () => `<!doctype html><title>Market report</title><h1>Market report</h1><p>Findings, but no marker.</p>`,
  },
  login: {
    status: 200,
    body: (m) =>
      `<!doctype html><title>Sign in</title><h1>Sign in to continue</h1><form><input name="u"><input type="password" name="p"></form><!-- ${m} -->`,
  },
  error: { status: 200, body: (m) => `<!doctype html><title>404 Not Found</title><h1>Page not found</h1><p>${m}</p>` },
  missing: { status: 404, body: () => "not here" },
};

async function serveDeliverable(marker: string) {
  let mode: Mode = "good";
  const server: Server = createServer((req, res) => {
    const page = req.url?.startsWith("/check") ? PAGES.missing : PAGES[mode];
    res.writeHead(page.status, { "content-type": "text/html; charset=utf-8" }).end(page.body(marker));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/report`,
    checkUrl: `${base}/check`,
    set: (m: Mode) => void (mode = m),
    close: () => new Promise((r) => server.close(r)),
  };
}

/** A funded job assigned to a fresh agent with a fresh wallet, as the API users would set it up. */
async function assignedFundedJob(poster: ApiClient, options: { title: string; marker: string; criteria?: unknown[] }) {
  const job = (
    await poster.createJob({
      body: {
        templateId: "custom-v1",
        title: options.title,
        description: "A short market report delivered as a public web page that carries the proof marker.",
        acceptanceCriteria: (options.criteria ?? ["The report is readable"]) as never,
        inputData: { budgetType: "bid", proofHoldHours: 0, proofContentMarker: options.marker },
        budget: "20",
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
    await apiClient().signUpAgent({ body: { ownerEmail: `deliver-${Date.now()}@example.test`, name: "Delivery Bot" } })
  ).data;
  const agent = apiClient(signup.apiKey);
  const wallet = privateKeyToAccount(generatePrivateKey()).address;
  await agent.heartbeat({});
  await agent.updateAgent({ params: { id: signup.agent.id }, body: { walletAddress: wallet } });
  const bid = await agent.placeBid({
    params: { id: job.id },
    body: { agentId: signup.agent.id, proposedUsdc: "20", coverLetter: "I will deliver the report." },
  });
  await poster.acceptBid({ params: { jobId: job.id, bidId: bid.data.id } });
  return { job, apiKey: signup.apiKey, agentId: signup.agent.id, wallet };
}

async function approve(page: Page) {
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
}

test("the agent submits, the poster reviews the probes and approves, and the escrow pays the agent's wallet on chain", async ({
  page,
  browser,
  baseURL,
  wallet,
  secrets,
}) => {
  test.setTimeout(120_000);
  const marker = `AWM-PROOF-${Date.now()}`;
  const site = await serveDeliverable(marker);
  const poster = await signedInHuman(POSTER_KEY);
  expect(poster.address).toBe(wallet.address);
  const {
    job,
    apiKey,
    wallet: agentWallet,
  } = await assignedFundedJob(poster.client, { title: `Market report ${Date.now()}`, marker });
  secrets.addSecret(apiKey);

  try {
    // ── The agent, in its own browser session, signed in with its key.
    const agentContext = await browser.newContext({ baseURL });
    const agentPage = await agentContext.newPage();
    await signInWithKey(agentPage, apiKey, `/jobs/${job.id}/submit`);
    await expect(agentPage.getByRole("heading", { name: "Submit the deliverable" })).toBeVisible();

    // A page without the marker is refused with the prober's reason; the job does not move.
    site.set("no-marker");
    await agentPage.getByLabel("Deliverable URL").fill(site.url);
    await agentPage.getByRole("button", { name: "Submit for review" }).click();
    await expect(agentPage.getByRole("alert").filter({ hasText: "did not find the work live" })).toContainText(
      "Marker missing",
    );
    await expect(agentPage.getByTestId("proof-refusal-reason")).toContainText(/marker/i);
    expect((await poster.client.getJob({ params: { id: job.id } })).data.status).toBe("IN_PROGRESS");

    // The real page is live: on to review.
    site.set("good");
    await agentPage.getByRole("button", { name: "Submit for review" }).click();
    await expect(agentPage).toHaveURL(new RegExp(`/jobs/${job.id}/review\\?submitted=1$`));
    await expect(agentPage.getByTestId("proof-status")).toContainText("Live");
    await agentContext.close();

    // ── The poster, signed in with the wallet, on the job page and then the review.
    await signInWithWallet(page, `/jobs/${job.id}`);
    await page.getByRole("link", { name: "Review the delivery" }).click();
    await expect(page.getByRole("heading", { name: "Review the delivery" })).toBeVisible();
    await expect(page.getByRole("link", { name: site.url })).toHaveAttribute("href", site.url);
    await expect(page.getByTestId("proof-status")).toContainText("Live");
    await expect(page.getByTestId("hold")).toContainText("over");
    const history = page.getByRole("table", { name: /Proof checks/ });
    await expect(history.getByRole("row")).toHaveCount(3); // header, the refused and the live submission
    await expect(history).toContainText("Marker missing");

    // The deliverable turns into a login page: approval's fresh check refuses, the money stays.
    site.set("login");
    await approve(page);
    await expect(page.getByRole("alert").filter({ hasText: "did not find the work live" })).toContainText("Login page");
    await expect(page.getByTestId("proof-status")).toContainText("Login page");
    await expect(page.getByTestId("proof-reason")).toContainText(/password|sign in|log in/i);

    // Then an error page served with HTTP 200.
    site.set("error");
    await approve(page);
    await expect(page.getByRole("alert").filter({ hasText: "did not find the work live" })).toContainText("Error page");
    await expect(page.getByTestId("proof-reason")).toContainText(/not found|error/i);
    await expect(history).toContainText("Approval");
    expect((await poster.client.getJob({ params: { id: job.id } })).data.status).toBe("REVIEW");

    // Back up: approval releases the escrow, 20 USDC less the 5% fee, to the agent's wallet.
    site.set("good");
    const before = await erc20BalanceOf({ config: chainConfig(), address: agentWallet });
    await approve(page);
    await expect(page.getByTestId("release")).toContainText("Released to the agent", { timeout: 30_000 });
    const after = await erc20BalanceOf({ config: chainConfig(), address: agentWallet });
    expect(after - before).toBe(parseUsdc("19"));
    const done = (await poster.client.getJob({ params: { id: job.id } })).data;
    expect(done.status).toBe("COMPLETED");
    expect(done.releaseTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    await expect(page.getByTestId("release")).toContainText(done.releaseTxHash!.slice(0, 6));

    // The job page's timeline: the whole life, oldest first, ending with the release; its
    // transaction is shown once, in the escrow line above the timeline, and the timeline points there.
    await page.goto(`/jobs/${job.id}`);
    const timeline = page.getByTestId("job-timeline").locator("li");
    await expect(timeline.first()).toHaveAttribute("data-event-type", "job.created");
    await expect(timeline.last()).toHaveAttribute("data-event-type", "job.paid");
    await expect(timeline.last()).toContainText("Its transaction is shown above");
    await expect(page.getByText(/released in/)).toContainText(done.releaseTxHash!.slice(0, 6));
    await secrets.assertNoLeaks();
  } finally {
    await site.close();
  }
});

test("a failing machine check blocks approval until the poster overrides it; each criterion's result is shown", async ({
  page,
  wallet,
}) => {
  test.setTimeout(120_000);
  const marker = `AWM-CHECK-${Date.now()}`;
  const site = await serveDeliverable(marker);
  const poster = await signedInHuman(POSTER_KEY);
  expect(poster.address).toBe(wallet.address);
  const {
    job,
    apiKey,
    wallet: agentWallet,
  } = await assignedFundedJob(poster.client, {
    title: `Checked report ${Date.now()}`,
    marker,
    criteria: [
      {
        description: "The status endpoint answers 200",
        check: { type: "http_status", url: site.checkUrl, equals: 200 },
      },
      { description: "The report reads well", check: { type: "manual" } },
    ],
  });
  try {
    await apiClient(apiKey).submitDeliverable({ params: { id: job.id }, body: { outputData: { url: site.url } } });

    await signInWithWallet(page, `/jobs/${job.id}/review`);
    const failing = page.getByTestId("criterion-ac-1");
    await expect(failing).toContainText("Failed");
    await expect(failing).toContainText("got 404");
    await expect(page.getByTestId("criterion-ac-2")).toContainText("Pending");
    await expect(page.getByText("A check fails: approval is blocked")).toBeVisible();

    await approve(page);
    await expect(page.getByRole("alert").filter({ hasText: "acceptance criteria are not met" })).toBeVisible();
    expect((await poster.client.getJob({ params: { id: job.id } })).data.status).toBe("REVIEW");

    await failing.getByLabel(/Accept .* anyway/).fill("The endpoint moved; the report itself is fine.");
    await failing.getByRole("button", { name: "Override check" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Override" }).click();
    await expect(page.getByTestId("criterion-ac-1")).toContainText("Overridden");
    await expect(page.getByText("A check fails: approval is blocked")).toHaveCount(0);

    const before = await erc20BalanceOf({ config: chainConfig(), address: agentWallet });
    await approve(page);
    await expect(page.getByTestId("release")).toContainText("Released to the agent", { timeout: 30_000 });
    expect((await erc20BalanceOf({ config: chainConfig(), address: agentWallet })) - before).toBe(parseUsdc("19"));
  } finally {
    await site.close();
  }
});
