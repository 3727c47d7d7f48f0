import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { apiClient } from "./api-actors";

async function signInWithWallet(page: Page, returnTo: string) {
  await page.goto(`/sign-in?returnTo=${encodeURIComponent(returnTo)}`);
  await page.getByRole("button", { name: "Connect wallet to sign in" }).click();
  await page.getByRole("button", { name: /Test Wallet/ }).click();
  await page.getByRole("button", { name: /sign message/i }).click();
  await expect(page).toHaveURL(new RegExp(`${returnTo.replace(/[/]/g, "\\/")}$`));
}

async function agentThatBids(jobId: string, ownerEmail: string, name: string) {
  const signup = await apiClient().signUpAgent({ body: { ownerEmail, name, vertical: "RESEARCH" } });
  const agent = apiClient(signup.data.apiKey);
  await agent.heartbeat({});
  await agent.placeBid({ params: { id: jobId }, body: { agentId: signup.data.agent.id, proposedUsdc: "25", coverLetter: `${name} can deliver this in two days.` } });
  return signup.data;
}

test("a poster posts a job and accepts an agent's bid; an owner claims an agent, pauses it, and its bid is refused with a clear message", async ({ page, wallet, secrets }) => {
  void wallet;
  page.on("dialog", (dialog) => dialog.accept());
  await signInWithWallet(page, "/jobs/new");

  // Post a job through the form; a validation error first.
  await page.getByLabel("Title").fill("Map 40 agent marketplaces");
  await page.getByLabel("Description").fill("List 40 marketplaces where AI agents can find paid work, with fees and payout methods.");
  await page.getByLabel("Acceptance criteria").fill("A table with 40 rows\nEach row has a link");
  await page.getByLabel("Budget (USDC)").fill("twenty");
  await page.getByRole("button", { name: "Post the job" }).click();
  await expect(page.locator("#budget-error")).toContainText("USDC amount");
  await page.getByLabel("Budget (USDC)").fill("25");
  await page.getByRole("button", { name: "Post the job" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Map 40 agent marketplaces");
  const jobId = page.url().split("/").pop()!;

  // An agent bids through the API; the poster sees it and accepts it.
  const first = await agentThatBids(jobId, `someone-${Date.now()}@example.test`, "Survey Bot");
  secrets.addSecret(first.apiKey);
  await page.reload();
  const row = page.getByRole("row", { name: /Survey Bot/ });
  await expect(row).toContainText("Survey Bot can deliver this in two days.");
  await expect(row).toContainText(/pending/i);
  await row.getByRole("button", { name: "Accept" }).click();
  await expect(page.getByText(/in progress/i).first()).toBeVisible();
  await expect(page.getByRole("row", { name: /Survey Bot/ })).toContainText(/accepted/i);

  // The owner claims another agent from the mailed link, pauses it, and its bid is then refused.
  await page.goto("/jobs/new");
  await page.getByLabel("Title").fill("Summarise 10 agent postmortems");
  await page.getByLabel("Description").fill("Read ten public postmortems of agent failures and summarise the lessons in a page.");
  await page.getByLabel("Acceptance criteria").fill("Ten summaries");
  await page.getByLabel("Budget (USDC)").fill("25");
  await page.getByRole("button", { name: "Post the job" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Summarise 10 agent postmortems");
  const job2 = page.url().split("/").pop()!;
  const ownerEmail = `owner-${Date.now()}@example.test`;
  const owned = await agentThatBids(job2, ownerEmail, "Owned Bot");
  secrets.addSecret(owned.apiKey);

  await page.goto("/dev/outbox");
  const mail = page.getByRole("listitem").filter({ hasText: `To ${ownerEmail}` });
  const link = (await mail.locator("pre").textContent())!.match(/http\S+\/claim\/\S+/)![0];
  await page.goto(link);
  await page.getByRole("button", { name: "Claim this agent" }).click();
  await expect(page).toHaveURL(/\/agents/);
  const card = page.getByRole("listitem", { name: "Agent Owned Bot" });
  await expect(card).toContainText("forum:write");
  await card.getByLabel("maxActiveJobs").fill("0");
  await card.getByRole("button", { name: "Save" }).click();
  await expect(card.getByRole("status")).toHaveText("Saved.");
  await page.reload();
  await expect(page.getByRole("listitem", { name: "Agent Owned Bot" })).toContainText("paused");

  await page.goto(`/jobs/${job2}`);
  await page.getByRole("row", { name: /Owned Bot/ }).getByRole("button", { name: "Accept" }).click();
  await expect(page.getByRole("row", { name: /Owned Bot/ }).getByRole("alert")).toContainText("Owned Bot is at its maxActiveJobs limit");
  await expect(page.getByRole("row", { name: /Owned Bot/ })).toContainText(/pending/i);

  await secrets.assertNoLeaks();
});
