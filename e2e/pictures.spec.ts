import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "@playwright/test";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { ApiClient } from "@/lib/api";
import type { Job } from "@/lib/api/schemas/jobs";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { parseUsdc } from "@/lib/chain/units";
import { apiClient, chainConfig, signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { claimAgentFromMail, signInWithWallet } from "./sign-in-steps";

// Pictures of progress, rendered on the server and read out by screen readers with their numbers
// in the page as text: a job's stepper, the proof hold as a bar with its end, a job's parts as a
// bar, an owner's earnings by month across two agents, and a poster's spending and refunds by month. Money moves for real (anvil).

// anvil's account 1: the injected test wallet signs as it, and it holds test USDC.
const POSTER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;

async function postJob(poster: ApiClient, title: string, budget: string, extra: Record<string, unknown> = {}) {
  return (
    await poster.createJob({
      body: {
        templateId: "custom-v1",
        title,
        description: "A job made by the pictures spec, to draw its progress.",
        acceptanceCriteria: ["The report page is online"],
        inputData: { budgetType: "bid", proofHoldHours: 0 },
        budget,
        ...extra,
      },
    })
  ).data;
}

async function fund(poster: ApiClient, job: Job, budget: string) {
  const { txHash } = await depositToEscrow({
    config: chainConfig(),
    privateKey: POSTER_KEY,
    escrowJobId: escrowJobIdFromWire(job.escrowJobId),
    amount: parseUsdc(budget),
  });
  await poster.registerEscrow({ params: { id: job.id }, body: { txHash } });
}

/** The steps of the job's stepper as screen readers hear them, and the current one. */
async function stepper(page: Page) {
  const nav = page.getByRole("navigation", { name: "Where this job is" });
  const names = (
    await nav
      .getByRole("listitem")
      .evaluateAll((items) => items.map((li) => li.querySelector("[data-step-label]")?.textContent ?? ""))
  ).map((n) => n.trim());
  return {
    /** Each step's label and its state in words ("Funded (done)"), as a screen reader reads it. */
    names,
    texts: names.map((n) => n.replace(/ \((done|now|not yet|skipped)\)$/, "")),
    current: nav.locator('li[aria-current="step"]'),
  };
}

async function fitsWidth(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
}

const amountIn = (text: string) => Number(text.replace(/[^\d.]/g, ""));

test("a job's stepper, its proof hold and its parts as bars; an owner's earnings and a poster's spending by month", async ({
  page,
  browser,
  baseURL,
  wallet,
}, testInfo) => {
  test.setTimeout(300_000);
  const poster = await signedInHuman(POSTER_KEY);
  expect(poster.address).toBe(wallet.address);
  const stamp = Date.now();
  const server: Server = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>Report</title><p>The report.</p>"),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const deliverable = `http://127.0.0.1:${(server.address() as AddressInfo).port}/report`;
  try {
    // The person owns an agent that works for them (the poster's own agent: the money moves all the same).
    const ownerEmail = `pictures-${stamp}@example.test`;
    const signup = (await apiClient().signUpAgent({ body: { ownerEmail, name: `Picture Bot ${stamp % 100000}` } }))
      .data;
    const agent = apiClient(signup.apiKey);
    await agent.heartbeat({});
    await agent.updateAgent({
      params: { id: signup.agent.id },
      body: { walletAddress: privateKeyToAccount(generatePrivateKey()).address },
    });
    // A second agent of the same person, paid for a smaller job: the earnings are the owner's, across agents.
    const secondEmail = `pictures-second-${stamp}@example.test`;
    const second = (
      await apiClient().signUpAgent({ body: { ownerEmail: secondEmail, name: `Picture Aide ${stamp % 100000}` } })
    ).data;
    const secondAgent = apiClient(second.apiKey);
    await secondAgent.heartbeat({});
    await secondAgent.updateAgent({
      params: { id: second.agent.id },
      body: { walletAddress: privateKeyToAccount(generatePrivateKey()).address },
    });
    await signInWithWallet(page, "/agents");
    await claimAgentFromMail(page, ownerEmail);
    await claimAgentFromMail(page, secondEmail);
    const work = async (job: { id: string }, by = { client: agent, id: signup.agent.id }, amount = "20") => {
      const bid = await by.client.placeBid({
        params: { id: job.id },
        body: { agentId: by.id, proposedUsdc: amount },
      });
      await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.data.id } });
      await by.client.submitDeliverable({ params: { id: job.id }, body: { outputData: { url: deliverable } } });
    };

    // A job paid at once, a job delivered and waiting out a two-day hold, a funded job cancelled (refunded).
    const paid = await postJob(poster.client, `Paid report ${stamp}`, "20");
    await fund(poster.client, paid, "20");
    await work(paid);
    await poster.client.approveJob({ params: { id: paid.id } });
    const paidToSecond = await postJob(poster.client, `Aide's report ${stamp}`, "10");
    await fund(poster.client, paidToSecond, "10");
    await work(paidToSecond, { client: secondAgent, id: second.agent.id }, "10");
    await poster.client.approveJob({ params: { id: paidToSecond.id } });
    const held = await postJob(poster.client, `Held report ${stamp}`, "20", {
      inputData: { budgetType: "bid", proofHoldHours: 48 },
    });
    await fund(poster.client, held, "20");
    await work(held);
    const refunded = await postJob(poster.client, `Cancelled report ${stamp}`, "6");
    await fund(poster.client, refunded, "6");
    await poster.client.cancelJob({ params: { id: refunded.id } });
    const inParts = await postJob(poster.client, `Guide in parts ${stamp}`, "30", {
      milestones: [1, 2, 3].map((n) => ({
        title: `Chapter ${n}`,
        amountUsdc: "10",
        acceptanceCriteria: `Chapter ${n} online`,
      })),
    });
    await expect
      .poll(async () => (await poster.client.getJob({ params: { id: paid.id } })).data.releaseTxHash, {
        timeout: 90_000,
      })
      .toMatch(/^0x[0-9a-f]{64}$/);
    await expect
      .poll(async () => (await poster.client.getJob({ params: { id: paidToSecond.id } })).data.releaseTxHash, {
        timeout: 90_000,
      })
      .toMatch(/^0x[0-9a-f]{64}$/);
    await expect
      .poll(async () => (await poster.client.getJob({ params: { id: refunded.id } })).data.refundTxHash, {
        timeout: 90_000,
      })
      .toMatch(/^0x[0-9a-f]{64}$/);

    // Rendered on the server: without JavaScript a visitor's page has the stepper and the hold's bar, with their words.
    const noScript = await browser.newContext({ baseURL, javaScriptEnabled: false });
    try {
      const plain = await noScript.newPage();
      await plain.goto(`/jobs/${held.id}`);
      await expect(plain.getByRole("navigation", { name: "Where this job is" })).toContainText("In review (now)");
      await expect(plain.getByTestId("proof-hold").getByRole("img", { name: /^Proof hold/ })).toBeVisible();
      await expect(plain.getByTestId("proof-hold")).toContainText(/the hold ends \d{1,2} \w{3} \d{4}/);
    } finally {
      await noScript.close();
    }

    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });

      // Delivered and in its hold: in review now, the hold as a bar with its end date.
      await page.goto(`/jobs/${held.id}`);
      let s = await stepper(page);
      expect(s.texts).toEqual(["Posted", "Funded", "In progress", "In review", "Paid"]);
      await expect(s.current).toContainText("In review (now)");
      const hold = page.getByTestId("proof-hold");
      await expect(hold.getByRole("img", { name: /^Proof hold/ })).toBeVisible();
      await expect(hold).toContainText(/left: the hold ends \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC\./);
      await fitsWidth(page);
      await page.screenshot({ path: testInfo.outputPath(`held-job-${width}.png`), fullPage: true });

      // Paid: every step done, no hold left.
      await page.goto(`/jobs/${paid.id}`);
      s = await stepper(page);
      expect(s.names).toEqual([
        "Posted (done)",
        "Funded (done)",
        "In progress (done)",
        "In review (done)",
        "Paid (done)",
      ]);
      await expect(page.getByTestId("proof-hold")).toHaveCount(0);

      // Cancelled after funding: refunded, the steps it never reached skipped.
      await page.goto(`/jobs/${refunded.id}`);
      s = await stepper(page);
      expect(s.names).toEqual([
        "Posted (done)",
        "Funded (done)",
        "In progress (skipped)",
        "In review (skipped)",
        "Refunded (done)",
      ]);

      // Parts: paid of total, as a bar and in words.
      await page.goto(`/jobs/${inParts.id}`);
      const parts = page.getByTestId("parts-progress");
      await expect(parts).toContainText("0 of 3 parts paid: 0.00 of 30.00 USDC");
      await expect(parts.getByRole("img", { name: /^Parts paid/ })).toBeVisible();
      await fitsWidth(page);

      // The owner's earnings by month, across their agents: this month holds both paid jobs, 19 and
      // 9.5 USDC (each less the fee), and each agent's share is named.
      await page.goto("/agents");
      const earnings = page.getByTestId("owner-earnings");
      await expect(earnings.getByRole("img", { name: "Your agents' earnings by month" })).toBeVisible();
      const thisMonth = new Date().toLocaleString("en-GB", { timeZone: "UTC", month: "long", year: "numeric" });
      const earnedRow = earnings.getByRole("row", { name: new RegExp(thisMonth) });
      expect(amountIn(await earnedRow.getByRole("cell").first().innerText())).toBeGreaterThanOrEqual(28.5);
      const byAgent = page.getByRole("list", { name: "Earnings by agent" });
      await expect(byAgent.getByRole("listitem").filter({ hasText: signup.agent.name })).toContainText(
        /: 19(\.0+)? USDC/,
      );
      await expect(byAgent.getByRole("listitem").filter({ hasText: second.agent.name })).toContainText(/: 9\.50* USDC/);
      await fitsWidth(page);
      await page.screenshot({ path: testInfo.outputPath(`earnings-${width}.png`), fullPage: true });

      // The poster's spending and refunds by month: this month paid 30 and got 6 back (at least).
      await page.goto("/me/jobs");
      const spending = page.getByTestId("poster-spending");
      await expect(spending.getByRole("img", { name: "Your spending and refunds by month" })).toBeVisible();
      const spentRow = spending.getByRole("row", { name: new RegExp(thisMonth) });
      const [paidCell, refundedCell] = await spentRow.getByRole("cell").allInnerTexts();
      expect(amountIn(paidCell!)).toBeGreaterThanOrEqual(30);
      expect(amountIn(refundedCell!)).toBeGreaterThanOrEqual(6);
      await fitsWidth(page);
      await page.screenshot({ path: testInfo.outputPath(`spending-${width}.png`), fullPage: true });
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
