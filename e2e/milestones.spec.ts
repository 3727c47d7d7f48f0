import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { parseUsdc } from "@/lib/chain/units";
import { apiClient, chainConfig, signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { signInWithWallet } from "./sign-in-steps";
import { jobField, jobFormStep, postJobForm } from "./job-form";
import { hydrated } from "./hydrated";

// A job paid in parts, as its people live it: the poster splits a 30 USDC job into three parts of
// 10 in the dashboard form, funds it from the wallet and accepts an agent's bid; part 1 is
// delivered, approved and paid on chain; part 2 is disputed and the operator splits it; the poster
// cancels the rest and part 3 comes back to the wallet. Balances are read from the chain.

// anvil's account 1: the injected test wallet signs as it, and it holds test USDC.
const POSTER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;
// anvil's account 2: the stack's operator (OPERATOR_ADDRESSES), the arbiter of a job with no evaluator.
const OPERATOR_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a" as const;

test("a 3-part job: part 1 paid on chain, part 2 disputed and split by the operator, part 3 refunded when the poster cancels the rest", async ({
  page,
  wallet,
  secrets,
}) => {
  test.setTimeout(180_000);
  const stamp = Date.now();
  const marker = `AWM-PARTS-${stamp}`;
  const site: Server = createServer((req, res) =>
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(`<!doctype html><title>Guide</title><h1>Guide ${req.url}</h1><p>The chapter as asked. ${marker}</p>`),
  );
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const config = chainConfig();
  const usdcOf = (address: string) => erc20BalanceOf({ config, address: address as `0x${string}` });

  try {
    // ── The poster writes the job in the dashboard form, in three parts of 10 USDC.
    await signInWithWallet(page, "/jobs/new");
    const title = `Guide in three chapters ${stamp}`;
    await (await jobField(page, "Title")).fill(title);
    await (await jobField(page, "Description")).fill("A user guide written in three chapters, each a public web page.");
    await (await jobField(page, "Acceptance criteria")).fill("Three readable chapters");
    await (await jobField(page, "Budget (USDC)")).fill("30");
    await (await jobField(page, "Proof hold (hours)")).fill("0");
    await (await jobField(page, "Proof content marker (optional)")).fill(marker);
    await jobFormStep(page, "Money and time");
    const builder = page.getByTestId("milestone-builder");
    for (const n of [1, 2, 3]) {
      await (await hydrated(builder.getByRole("button", { name: "Add a milestone" }))).click();
      await builder.getByLabel(`Part ${n} title`).fill(`Chapter ${n}`);
      await builder.getByLabel(`Part ${n} amount`).fill("10");
      await builder.getByLabel(`Part ${n} acceptance criteria`).fill(`Chapter ${n} is online and readable`);
    }
    await expect(builder.getByTestId("milestone-total")).toHaveText("Parts add up to 30 USDC");
    await postJobForm(page);
    await expect(page.getByRole("heading", { name: title })).toBeVisible({ timeout: 30_000 });
    const jobId = page.url().split("/jobs/")[1]!.split(/[?#]/)[0]!;
    const panel = page.getByTestId("milestones");
    for (const n of [1, 2, 3]) {
      await expect(panel.getByTestId(`milestone-${n}`)).toContainText(`${n}. Chapter ${n}`);
      await expect(panel.getByTestId(`milestone-${n}`)).toContainText("10 USDC");
      await expect(panel.getByTestId(`milestone-${n}-state`)).toHaveText("Open");
    }

    // ── Funded from the wallet.
    await page.getByRole("link", { name: "Fund this job" }).click();
    await page.getByRole("button", { name: "Fund 30 USDC into escrow" }).click();
    await expect(page.getByText("This job is funded")).toBeVisible({ timeout: 30_000 });
    await page.getByRole("link", { name: "Back to the job" }).first().click();
    await expect(page.getByText("Escrow funded by")).toBeVisible();

    // ── An agent with a key and a payout wallet bids; the poster accepts in the bids table.
    const agentName = `Chapter Writer ${stamp}`;
    const signup = (
      await apiClient().signUpAgent({ body: { ownerEmail: `parts-${stamp}@example.test`, name: agentName } })
    ).data;
    secrets.addSecret(signup.apiKey);
    const agent = apiClient(signup.apiKey);
    const agentWallet = privateKeyToAccount(generatePrivateKey()).address;
    await agent.heartbeat({});
    await agent.updateAgent({ params: { id: signup.agent.id }, body: { walletAddress: agentWallet } });
    await agent.placeBid({
      params: { id: jobId },
      body: { agentId: signup.agent.id, proposedUsdc: "30", coverLetter: "Three chapters, one at a time." },
    });
    await page.reload();
    const bids = page.getByRole("table").filter({ hasText: agentName });
    await (await hydrated(bids.getByRole("button", { name: "Accept" }))).click();
    await page.getByRole("dialog").getByRole("button", { name: "Accept bid" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    // Funded in EscrowV2 (new deposits go there by default): the wallet signs the Assign, no gas.
    await page.getByRole("button", { name: "Sign and accept" }).click();
    await expect
      .poll(async () => (await agent.getJob({ params: { id: jobId } })).data.status, { timeout: 15_000 })
      .toBe("IN_PROGRESS");

    // ── Part 1: the agent delivers it; the poster approves on the page; the escrow pays 10 less the 5 % fee.
    const delivered = await agent.submitMilestone({
      params: { id: jobId, position: 1 },
      body: { outputData: { url: `${base}/chapter-1` } },
    });
    expect(delivered.data.status).toBe("SUBMITTED");
    await page.reload();
    const part1 = panel.getByTestId("milestone-1");
    await expect(panel.getByTestId("milestone-1-state")).toHaveText("Delivered");
    await expect(part1.getByRole("link", { name: `${base}/chapter-1` })).toBeVisible();
    const agentBefore = await usdcOf(agentWallet);
    await (await hydrated(part1.getByRole("button", { name: "Approve part 1" }))).click();
    await page.getByRole("dialog").getByRole("button", { name: "Approve part" }).click();
    await expect(panel.getByTestId("milestone-1-state")).toHaveText("Paid", { timeout: 30_000 });
    const paid = (await agent.listMilestones({ params: { id: jobId } })).data[0]!;
    expect(paid.settlement?.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    await expect(panel.getByTestId("milestone-1-receipt")).toContainText("Paid 9.5 USDC to the agent (fee 0.5)");
    await expect(panel.getByTestId("milestone-1-receipt")).toContainText(paid.settlement!.txHash!);
    expect((await usdcOf(agentWallet)) - agentBefore).toBe(parseUsdc("9.5"));
    await expect(panel.getByTestId("milestone-2-state")).toHaveText("Open");

    // ── Part 2: delivered, then disputed by the poster on the page; only part 2 freezes.
    await agent.submitMilestone({
      params: { id: jobId, position: 2 },
      body: { outputData: { url: `${base}/chapter-2` } },
    });
    await page.reload();
    const part2 = panel.getByTestId("milestone-2");
    await expect(panel.getByTestId("milestone-2-state")).toHaveText("Delivered");
    await part2.getByLabel("What is wrong with part 2?").fill("Chapter 2 covers half of the topics agreed.");
    await (await hydrated(part2.getByRole("button", { name: "Dispute part 2" }))).click();
    await page.getByRole("dialog").getByRole("button", { name: "Dispute part" }).click();
    await expect(panel.getByTestId("milestone-2-state")).toHaveText("Disputed");
    await expect(panel.getByTestId("milestone-3-state")).toHaveText("Open");

    // The operator (no evaluator is named) splits part 2 half and half.
    const posterBeforeSplit = await usdcOf(wallet.address);
    const operator = await signedInHuman(OPERATOR_KEY);
    const ruled = await operator.client.ruleMilestone({
      params: { id: jobId, position: 2 },
      body: { outcome: "SPLIT", agentShare: 50, reason: "Half of the chapter was delivered as agreed." },
    });
    expect(ruled.data.status).toBe("SPLIT");
    await page.reload();
    await expect(panel.getByTestId("milestone-2-state")).toHaveText("Split");
    await expect(part2).toContainText("Ruling: SPLIT (50 % to the agent)");
    await expect(panel.getByTestId("milestone-2-receipt")).toContainText(
      "Paid 4.75 USDC to the agent (fee 0.25), 5 USDC back to the poster",
    );
    expect((await usdcOf(wallet.address)) - posterBeforeSplit).toBe(parseUsdc("5"));
    expect((await usdcOf(agentWallet)) - agentBefore).toBe(parseUsdc("14.25"));

    // ── Part 3: nothing is in flight, so the poster may cancel the rest; part 3 goes back to the wallet.
    await expect(page.getByText("No part is in flight")).toBeVisible();
    const posterBefore = await usdcOf(wallet.address);
    await (await hydrated(page.getByRole("button", { name: "Cancel job" }))).click();
    const dialog = page.getByRole("dialog");
    await expect(dialog).toContainText("parts already paid stay paid");
    await dialog.getByRole("button", { name: "Cancel job" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Refunded" })).toBeVisible({ timeout: 30_000 });
    await expect(panel.getByTestId("milestone-3-state")).toHaveText("Refunded");
    await expect(panel.getByTestId("milestone-3-receipt")).toContainText("Refunded 10 USDC to the poster");
    expect((await usdcOf(wallet.address)) - posterBefore).toBe(parseUsdc("10"));

    // The job is settled: every part paid, split or refunded, nothing left in escrow.
    const poster = await signedInHuman(POSTER_KEY);
    const done = (await poster.client.getJob({ params: { id: jobId } })).data;
    expect(done.status).toBe("CANCELLED");
    expect(done.refundTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    const parts = (await poster.client.listMilestones({ params: { id: jobId } })).data;
    expect(parts.map((p) => p.status)).toEqual(["RELEASED", "SPLIT", "REFUNDED"]);
    await expect(panel.getByTestId("milestone-1-state")).toHaveText("Paid");
    await expect(panel.getByTestId("milestone-2-state")).toHaveText("Split");
    await secrets.assertNoLeaks();
  } finally {
    await new Promise((resolve) => site.close(resolve));
  }
});
