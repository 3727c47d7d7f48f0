import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { signedInHuman } from "./api-actors";
import { test as withWallet } from "./fixtures";
import { signInWithWallet } from "./sign-in-steps";

// The board's search, filters and tabs, without JavaScript: everything is links and a GET form.
test.describe("the jobs board: tabs, search and filters", () => {
  test.use({ javaScriptEnabled: false });

  test("the default board shows marketplace jobs only; reward slots have their own tab", async ({ page }) => {
    // A marketplace job, then more slots than a page holds, all newer: they would fill page one.
    const sponsor = await signedInHuman();
    const title = `Map the agent tooling landscape ${Date.now()}`;
    await sponsor.client.createJob({
      body: {
        templateId: "custom-v1",
        title,
        description: "A short report on agent tooling: frameworks, hosting and evaluation.",
        acceptanceCriteria: ["A report of two pages"],
        inputData: { budgetType: "bid" },
        budget: "12",
      },
    });
    await sponsor.client.createRewardCampaign({ body: { kind: "THREAD", slots: 21, funding: "SPONSOR" } });

    await page.goto("/jobs");
    await expect(page.getByRole("link", { name: "Marketplace" })).toHaveAttribute("aria-current", "page");
    const cards = page.locator("ul[aria-label=Jobs] > li");
    await expect(page.getByRole("link", { name: title })).toBeVisible();
    await expect(cards.filter({ hasText: "AUTOMATIC_FORUM_REWARD" })).toHaveCount(0);

    await page.getByRole("link", { name: "Forum rewards & referrals" }).click();
    await expect(page).toHaveURL(/board=rewards/);
    await expect(cards.first()).toBeVisible();
    expect(await cards.count()).toBe(await cards.filter({ hasText: "AUTOMATIC_FORUM_REWARD" }).count());
  });

  test("a word of a description finds the job; filters and sort stay in the URL", async ({ page }) => {
    const word = `zq${randomBytes(5).toString("hex")}`;
    const poster = await signedInHuman();
    const title = `Catalogue vector databases ${word.slice(2, 6)}`;
    const job = (
      await poster.client.createJob({
        body: {
          templateId: "custom-v1",
          title,
          description: `Compare five vector databases; note the ${word} benchmark for each of them.`,
          acceptanceCriteria: ["A table with five rows"],
          inputData: { budgetType: "bid" },
          budget: "33",
          requiredSkills: ["databases"],
          deadlineAt: new Date(Date.now() + 3 * 86_400_000).toISOString(),
        },
      })
    ).data;

    await page.goto("/jobs");
    await page.getByLabel("Search", { exact: true }).fill(word);
    await page.getByLabel("Budget from (USDC)").fill("30");
    await page.getByLabel("Skills (any of, comma-separated)").fill("Databases");
    await page.getByLabel("Funding").selectOption("false");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page).toHaveURL(new RegExp(`q=${word}`));
    await expect(page).toHaveURL(/minBudget=30/);
    await expect(page).toHaveURL(/skills=Databases/);
    await expect(page).toHaveURL(/funded=false/);
    const card = page.locator("ul[aria-label=Jobs] > li");
    await expect(card).toHaveCount(1);
    await expect(card.getByRole("link", { name: title })).toHaveAttribute("href", `/jobs/${job.id}`);
    await expect(card).toContainText("0 bids");
    await expect(card).toContainText("due ");

    // The form shows what the URL holds; a sort keeps the search.
    await expect(page.getByLabel("Search", { exact: true })).toHaveValue(word);
    await page.getByLabel("Sort").selectOption("budget_desc");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page).toHaveURL(/sort=budget_desc/);
    await expect(page).toHaveURL(new RegExp(`q=${word}`));
    await expect(page.getByLabel("Budget from (USDC)")).toHaveValue("30");
    await expect(card).toHaveCount(1);

    // A budget floor above the job leaves it out.
    await page.goto(`/jobs?q=${word}&minBudget=34`);
    await expect(page.getByText("No jobs match")).toBeVisible();
  });
});

// With JavaScript and a person signed in (the injected wallet): saving the board's search.
withWallet.describe("a saved search", () => {
  withWallet(
    "keeps the board's “Paid after delivery” filter: its link opens the board filtered the same way",
    async ({ page, wallet }) => {
      void wallet; // the injected wallet signs the person in
      await signInWithWallet(page, "/jobs");
      await page.getByLabel("Paid after delivery").selectOption({ label: "Within an hour" });
      await page.getByLabel("Funding").selectOption("true");
      await page.getByRole("form", { name: "Search and filter jobs" }).getByRole("button", { name: "Apply" }).click();
      await expect(page).toHaveURL(/maxProofHoldHours=1/);
      await page.getByRole("button", { name: "Save this search" }).click();
      await expect(page).toHaveURL(/\/settings\/notifications/);
      await expect(page.getByText("Search saved")).toBeVisible();
      const saved = page.getByRole("list", { name: "Saved searches" }).getByRole("link").first();
      await expect(saved).toHaveAttribute("href", /maxProofHoldHours=1/);
      await saved.click();
      await expect(page.getByLabel("Paid after delivery")).toHaveValue("1");
      await expect(page.getByLabel("Funding")).toHaveValue("true");
    },
  );
});
