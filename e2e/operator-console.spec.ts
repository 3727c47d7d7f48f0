import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { uniqueText } from "@/lib/testing/unique-text";
import { expect, test } from "./fixtures";
import { apiClient, chainConfig, signedInHuman } from "./api-actors";
import { signInWithWallet } from "./sign-in-steps";

// The operator's console in a real browser, as the demo owner (anvil account 2, the local stack's
// operator). playwright.config.ts runs this file in its own project after every other spec, so the
// reconciliation it reads covers the whole suite's funding, approvals, releases and rewards.

// anvil's account 1: a poster with test USDC.
const POSTER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;

test.use({ walletAccountIndex: 2 });

test("after the suite's money flows the reconciliation shows 0 differences; someone who is not the operator is refused", async ({
  page,
  wallet,
}) => {
  expect(wallet.address).toBeTruthy();
  // One more flow of its own, so the check means something when this file runs alone too.
  const poster = await signedInHuman(POSTER_KEY);
  const job = (
    await poster.client.createJob({
      body: {
        templateId: "custom-v1",
        title: `Reconcile me ${Date.now()}`,
        description: "A funded job the reconciliation must find held on chain.",
        acceptanceCriteria: ["Held"],
        inputData: { budgetType: "bid" },
        budget: "3",
      },
    })
  ).data;
  const { txHash } = await depositToEscrow({
    config: chainConfig(),
    privateKey: POSTER_KEY,
    escrowJobId: escrowJobIdFromWire(job.escrowJobId),
    amount: 3_000_000n,
  });
  await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });

  await signInWithWallet(page, "/admin");
  await expect(page.getByRole("navigation", { name: "Operator console" })).toBeVisible();
  for (const label of [
    "Overview",
    "Disputes",
    "People & agents",
    "Moderation",
    "Campaigns",
    "Packs",
    "Fees",
    "Audit log",
  ]) {
    await expect(
      page.getByRole("navigation", { name: "Operator console" }).getByRole("link", { name: label, exact: true }),
    ).toBeVisible();
  }
  await expect(page.getByTestId("reconciliation-differences")).toHaveText(/^0 differences/);
  await expect(page.getByTestId("health")).toContainText("Database");

  // The API says the same, and refuses anyone else.
  const stranger = await signedInHuman();
  const refused = await fetch(`${process.env.E2E_BASE_URL}/v1/admin/reconciliation`, {
    headers: { authorization: `Bearer ${stranger.token}`, "x-forwarded-for": "127.71.0.1" },
  });
  expect(refused.status).toBe(403);
  expect((await refused.json()).code).toBe("NOT_OPERATOR");
});

test("the operator suspends an agent and hides a post from the console; both show, and the audit log lists them", async ({
  page,
  wallet,
}) => {
  expect(wallet.address).toBeTruthy();
  const signup = (
    await apiClient().signUpAgent({
      body: { ownerEmail: `suspend-${Date.now()}@example.test`, name: `Spammy ${Date.now()}`, vertical: "RESEARCH" },
    })
  ).data;
  const agent = apiClient(signup.apiKey);
  await agent.heartbeat({});
  const author = await signedInHuman();
  const thread = (
    await author.client.createThread({
      body: { title: `Abusive thread ${Date.now()}`, body: uniqueText(300), category: "agent-economics" },
    })
  ).data;

  await signInWithWallet(page, "/admin/people");
  await page.getByTestId("people-q").fill(signup.agent.id);
  await page.getByRole("button", { name: "Search" }).click();
  const row = page.getByTestId(`person-${signup.agent.id}`);
  await expect(row).toBeVisible();
  await row.getByPlaceholder("Reason (required)").fill("posts spam links everywhere");
  await row.getByRole("button", { name: "Suspend" }).click();
  // Suspending asks first, naming who and what it does.
  const confirm = page.getByRole("dialog");
  await expect(confirm).toContainText(`Suspend ${signup.agent.name}?`);
  await expect(confirm).toContainText("pending bids are withdrawn");
  await confirm.getByRole("button", { name: "Suspend" }).click();
  await expect(row.getByRole("status")).toContainText("Suspended");

  // Its bid is refused with the clear code.
  const job = (
    await author.client.createJob({
      body: {
        templateId: "custom-v1",
        title: `Bid target ${Date.now()}`,
        description: "A job the suspended agent may not bid on.",
        acceptanceCriteria: ["Done"],
        inputData: { budgetType: "bid" },
        budget: "2",
      },
    })
  ).data;
  const bid = await fetch(`${process.env.E2E_BASE_URL}/v1/jobs/${job.id}/bids`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${signup.apiKey}`,
      "content-type": "application/json",
      "x-forwarded-for": "127.72.0.1",
    },
    body: JSON.stringify({ agentId: signup.agent.id, proposedUsdc: "2" }),
  });
  expect(bid.status).toBe(403);
  expect((await bid.json()).code).toBe("AGENT_SUSPENDED");
  await page.goto(`/agents/${signup.agent.id}`);
  await expect(page.getByTestId("agent-suspension")).toContainText("posts spam links everywhere");

  // Hide the thread through the moderation form.
  await page.goto(`/forum/${thread.slug}`);
  await expect(page.getByRole("heading", { name: thread.title })).toBeVisible();
  await page.goto("/admin/moderation");
  const form = page.getByTestId("moderation-form");
  await form.getByLabel("Its id").fill(thread.id);
  await form.getByLabel("Action").selectOption("HIDE");
  await form.getByLabel("Reason").fill("abusive language");
  await form.getByRole("button", { name: "Apply" }).click();
  await expect(form.getByRole("status")).toContainText("hidden");
  const gone = await page.goto(`/forum/${thread.slug}`);
  expect(gone?.status()).toBe(404);

  await page.goto("/admin/audit");
  const log = page.getByTestId("audit-log");
  // In words, each linked to what it was done to.
  const hid = log
    .getByRole("row")
    .filter({ hasText: "Hid a forum post" })
    .filter({ has: page.locator(`a[href="/forum/${thread.id}"]`) });
  await expect(hid).toContainText("abusive language");
  const suspended = log
    .getByRole("row")
    .filter({ hasText: "Suspended an agent" })
    .filter({ has: page.locator(`a[href="/agents/${signup.agent.id}"]`) });
  await expect(suspended).toContainText("posts spam links everywhere");
});
