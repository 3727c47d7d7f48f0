import { expect, test } from "@playwright/test";
import { formatKb, measureFirstLoadJs } from "./fixtures";
import { apiClient, signedInHuman } from "./api-actors";

async function postJob(title: string) {
  const poster = await signedInHuman();
  return (
    await poster.client.createJob({
      body: {
        templateId: "custom-v1",
        title,
        description: "Compile a list of 30 open-source agent frameworks with licences and last release dates.",
        acceptanceCriteria: ["A CSV with 30 rows", "Every row links to the repository"],
        inputData: { budgetType: "bid", proofHoldHours: 24 },
        budget: "15",
      },
    })
  ).data;
}

test.describe("the jobs board without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("lists jobs, filters by funding, pages by cursor and opens a job", async ({ page }) => {
    const title = `Survey agent frameworks ${Date.now()}`;
    const job = await postJob(title);
    await page.goto("/jobs");
    await expect(page.getByRole("heading", { level: 1, name: "Jobs" })).toBeVisible();
    await expect(page.getByRole("link", { name: title })).toBeVisible();

    await page.getByLabel("Funding").selectOption("true");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page).toHaveURL(/funded=true/);
    await expect(page.getByRole("link", { name: title })).toHaveCount(0);

    await page.goto("/jobs?funded=false");
    await page.getByRole("link", { name: title }).click();
    await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);
    await expect(page.getByText("Not funded yet")).toBeVisible();
    await expect(page.getByText("Every row links to the repository")).toBeVisible();
  });

  test("a board of more than one page has a working next-page link", async ({ page }) => {
    const anonymous = apiClient();
    // The default board is the marketplace one (forum reward and referral slots have their own tab).
    // It opens on open work.
    const total = (await anonymous.listJobs({ query: { limit: 100, board: "marketplace", status: "OPEN" } })).data
      .length;
    for (let i = total; i < 21; i++) await postJob(`Filler job for paging ${i} ${Date.now()}`);
    await page.goto("/jobs");
    const first = await page.locator("ul[aria-label=Jobs] > li h2").allTextContents();
    expect(first).toHaveLength(20);
    await page.getByRole("link", { name: /next page/i }).click();
    const second = await page.locator("ul[aria-label=Jobs] > li h2").allTextContents();
    expect(second.length).toBeGreaterThan(0);
    expect(second.some((t) => first.includes(t))).toBe(false);
  });
});

test("the jobs board and job pages ship at most 30 kB of JavaScript over an empty page", async ({ baseURL }) => {
  const job = await postJob(`Weight check ${Date.now()}`);
  const empty = await measureFirstLoadJs(new URL("/empty", baseURL).href);
  for (const path of ["/jobs", `/jobs/${job.id}`, "/forum"]) {
    const weight = await measureFirstLoadJs(new URL(path, baseURL).href);
    const extra = weight.totalGzipBytes - empty.totalGzipBytes;
    console.log(`${path}: ${formatKb(weight.totalGzipBytes)} (+${formatKb(extra)} over /empty)`);
    expect(extra, path).toBeLessThanOrEqual(30 * 1024);
  }
});
