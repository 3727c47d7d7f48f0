import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { parseUsdc } from "@/lib/chain/units";
import { apiClient, chainConfig, signedInHuman } from "./api-actors";
import { anvilAddress, expect, installTestWallet, test } from "./fixtures";
import { signInWithKey, signInWithWallet } from "./sign-in-steps";

// A dispute end to end on the local chain: the poster disputes a delivered job on its page, both
// sides add statements with evidence (probed and fingerprinted by the service), and the operator
// (anvil's account 2, the demo owner, listed in OPERATOR_ADDRESSES by the e2e stack) rules a 70/30
// split in /admin/disputes. The agent's wallet gains exactly 70 % of the budget less the 5 % fee,
// the poster exactly 30 %; a second ruling attempt changes nothing.

// anvil's account 1: the injected test wallet signs as it, and it holds test USDC.
const POSTER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;
const BUDGET = "20";
// anvil's account 2: the demo owner (scripts/seed.ts), listed in OPERATOR_ADDRESSES by scripts/e2e-stack.ts.
const OPERATOR_INDEX = 2;
const OPERATOR_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a" as const;

async function serveSite() {
  const server: Server = createServer((req, res) => {
    const body =
      req.url === "/chat-log"
        ? "<!doctype html><title>Chat log</title><h1>Chat log</h1><p>The poster agreed to ten rows.</p>"
        : "<!doctype html><title>Report</title><h1>Report</h1><p>Ten rows of leads.</p>";
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, close: () => new Promise((r) => server.close(r)) };
}

test("a poster disputes a delivered job, both sides add evidence, the operator rules 70/30 in the console and the balances move exactly once", async ({
  page,
  browser,
  baseURL,
  wallet,
  secrets,
}) => {
  test.setTimeout(150_000);
  const site = await serveSite();
  const poster = await signedInHuman(POSTER_KEY);
  expect(poster.address).toBe(wallet.address);
  try {
    // ── Set up through the API: a funded job, an agent with a fresh wallet, delivered.
    const job = (
      await poster.client.createJob({
        body: {
          templateId: "custom-v1",
          title: `Disputed leads ${Date.now()}`,
          description: "Twenty rows of leads delivered as a public web page.",
          acceptanceCriteria: ["Twenty rows"],
          inputData: { budgetType: "bid", proofHoldHours: 0 },
          budget: BUDGET,
        },
      })
    ).data;
    const { txHash } = await depositToEscrow({
      config: chainConfig(),
      privateKey: POSTER_KEY,
      escrowJobId: escrowJobIdFromWire(job.escrowJobId),
      amount: parseUsdc(BUDGET),
    });
    await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
    const signup = (
      await apiClient().signUpAgent({
        body: { ownerEmail: `dispute-${Date.now()}@example.test`, name: "Disputed Bot" },
      })
    ).data;
    secrets.addSecret(signup.apiKey);
    const agent = apiClient(signup.apiKey);
    const agentWallet = privateKeyToAccount(generatePrivateKey()).address;
    await agent.heartbeat({});
    await agent.updateAgent({ params: { id: signup.agent.id }, body: { walletAddress: agentWallet } });
    const bid = await agent.placeBid({
      params: { id: job.id },
      body: { agentId: signup.agent.id, proposedUsdc: BUDGET },
    });
    await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.data.id } });
    await agent.postJobMessage({
      params: { id: job.id },
      body: { body: "As we agreed, **ten rows** will do for this first batch." },
    });
    await agent.submitDeliverable({ params: { id: job.id }, body: { outputData: { url: `${site.base}/report` } } });

    // ── The poster disputes on the review page, then argues on the job page.
    await signInWithWallet(page, `/jobs/${job.id}/review`);
    await page.getByLabel("What is wrong?").fill("Only ten of the twenty rows were delivered.");
    await page.getByRole("button", { name: "Dispute", exact: true }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Open dispute" }).click();
    await expect
      .poll(async () => (await poster.client.getJob({ params: { id: job.id } })).data.status)
      .toBe("DISPUTED");
    await page.goto(`/jobs/${job.id}`);
    const panel = page.getByTestId("dispute-case");
    await expect(panel).toHaveAttribute("data-status", "OPEN");
    await expect(panel).toContainText("the marketplace operator");
    await panel.getByLabel("Your statement").fill("The page has ten rows, not twenty.");
    await panel.getByLabel("Evidence URLs (one per line)").fill(`${site.base}/report`);
    await panel.getByRole("button", { name: "Add statement" }).click();
    await expect(panel.getByTestId("dispute-statement").filter({ hasText: "ten rows, not twenty" })).toBeVisible();
    await expect(panel.getByTestId("dispute-evidence").first()).toHaveAttribute("data-status", "LIVE");
    await expect(panel.getByTestId("evidence-hash").first()).toContainText("content fingerprint");

    // ── The agent, in its own session, answers with its evidence.
    const agentContext = await browser.newContext({ baseURL });
    const agentPage = await agentContext.newPage();
    await signInWithKey(agentPage, signup.apiKey, `/jobs/${job.id}`);
    const agentPanel = agentPage.getByTestId("dispute-case");
    await agentPanel.getByLabel("Your statement").fill("The poster agreed to ten rows in our chat.");
    await agentPanel.getByLabel("Evidence URLs (one per line)").fill(`${site.base}/chat-log`);
    await agentPanel.getByRole("button", { name: "Add statement" }).click();
    await expect(agentPanel.getByTestId("dispute-statement")).toHaveCount(2);
    await expect(
      agentPanel
        .getByTestId("dispute-statement")
        .filter({ hasText: "agreed to ten rows" })
        .getByTestId("dispute-evidence"),
    ).toHaveAttribute("data-status", "LIVE");
    await agentContext.close();

    // ── The operator, signed in with its own wallet, rules a 70/30 split in the console.
    const operatorContext = await browser.newContext({ baseURL });
    const operatorWallet = await installTestWallet(operatorContext, {
      walletAccountIndex: OPERATOR_INDEX,
      walletRpcUrl: process.env.E2E_RPC_URL ?? "",
    });
    expect(operatorWallet.address).toBe(anvilAddress(OPERATOR_INDEX));
    const operatorPage = await operatorContext.newPage();
    await signInWithWallet(operatorPage, "/admin/disputes");
    await operatorPage
      .getByTestId("dispute-row")
      .filter({ hasText: job.title })
      .getByRole("link", { name: job.title })
      .click();
    await expect(operatorPage).toHaveURL(new RegExp(`/admin/disputes/${job.id}$`));
    const opPanel = operatorPage.getByTestId("dispute-case");
    await expect(opPanel.getByTestId("dispute-statement")).toHaveCount(2);
    // Each statement names its author, by name and side: the arbiter reads who said what.
    const posterName = (await poster.client.getJob({ params: { id: job.id } })).data.poster.displayName;
    await expect(
      opPanel
        .getByTestId("dispute-statement")
        .filter({ hasText: "ten rows, not twenty" })
        .getByTestId("dispute-statement-author"),
    ).toContainText(`${posterName} (poster)`);
    await expect(
      opPanel
        .getByTestId("dispute-statement")
        .filter({ hasText: "agreed to ten rows" })
        .getByTestId("dispute-statement-author"),
    ).toContainText("Disputed Bot (agent)");
    // The case file holds what the two sides wrote to each other, read-only.
    const talk = operatorPage.getByRole("list", { name: "Conversation with Disputed Bot" });
    await expect(talk.getByRole("listitem").filter({ hasText: "As we agreed, ten rows will do" })).toContainText(
      "Disputed Bot (agent)",
    );
    await expect(talk.locator("strong", { hasText: "ten rows" })).toBeVisible();
    await expect(operatorPage.getByText("Read-only: only the job's parties write here.")).toBeVisible();

    const before = await Promise.all([
      erc20BalanceOf({ config: chainConfig(), address: agentWallet }),
      erc20BalanceOf({ config: chainConfig(), address: wallet.address }),
    ]);
    // No outcome is chosen in advance; the confirmation repeats where the money goes.
    for (const outcome of [/^Pay the agent/, /^Refund the poster/, /^Split/])
      await expect(opPanel.getByRole("radio", { name: outcome })).not.toBeChecked();
    await opPanel.getByRole("radio", { name: /^Split/ }).check();
    await opPanel.getByLabel("Agent's share for a split (%)").fill("70");
    await opPanel.getByLabel("Why").fill("Ten rows were agreed in writing; most of the work stands.");
    await opPanel.getByRole("button", { name: "Rule", exact: true }).click();
    await expect(operatorPage.getByTestId("ruling-confirmation-amounts")).toContainText(
      "The agent gets 13.3 USDC (after the 0.7 USDC fee); the payer gets 6 USDC back.",
    );
    await operatorPage.getByRole("dialog").getByRole("button", { name: "Rule" }).click();
    // The page re-renders with the ruling and its receipt (the form is gone: nobody rules twice).
    await expect(operatorPage.getByTestId("dispute-settlement")).toHaveAttribute("data-status", "CONFIRMED", {
      timeout: 30_000,
    });
    await expect(operatorPage.getByTestId("dispute-ruling")).toContainText("70 % to the agent");

    // 70 % of 20 is 14, less the 5 % fee on that share (0.7): 13.3 to the agent; 6 back to the poster.
    const after = await Promise.all([
      erc20BalanceOf({ config: chainConfig(), address: agentWallet }),
      erc20BalanceOf({ config: chainConfig(), address: wallet.address }),
    ]);
    expect(after[0] - before[0]).toBe(parseUsdc("13.3"));
    expect(after[1] - before[1]).toBe(parseUsdc("6"));

    // No second ruling: the form is gone, and a direct attempt is refused and moves nothing.
    await expect(operatorPage.getByTestId("dispute-ruling-form")).toHaveCount(0);
    const operator = await signedInHuman(OPERATOR_KEY);
    const again = await operator.client
      .ruleDispute({
        params: { id: job.id },
        body: { outcome: "PAY_AGENT", reason: "Trying to pay out the rest as well." },
      })
      .catch((e) => e);
    expect(again.status).toBe(409);
    expect(again.code).toBe("DISPUTE_ALREADY_RULED");
    const final = await Promise.all([
      erc20BalanceOf({ config: chainConfig(), address: agentWallet }),
      erc20BalanceOf({ config: chainConfig(), address: wallet.address }),
    ]);
    expect(final).toEqual(after);
    expect((await poster.client.getJob({ params: { id: job.id } })).data.status).toBe("COMPLETED");
    await operatorContext.close();
    await secrets.assertNoLeaks();
  } finally {
    await site.close();
  }
});
