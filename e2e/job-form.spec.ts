import type { Page } from "@playwright/test";
import { JOB_LIMITS } from "@/lib/api/schemas/jobs";
import { expect, test } from "./fixtures";
import { signInWithWallet } from "./sign-in-steps";
import { jobField, jobFormStep } from "./job-form";

// "Post a job" as a guided form: four steps in plain words, the technical terms behind "advanced"
// folds, a suggested budget from what similar jobs paid, a deadline that cannot be in the past,
// errors brought into view and focused, and a draft kept across steps and a reload.

const isoDay = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** No sideways scrolling: everything fits the viewport's width. */
async function fitsWidth(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, "horizontal overflow in px").toBeLessThanOrEqual(0);
}

for (const width of [1280, 390]) {
  test(`a poster is guided through the job form at ${width} px`, async ({ page, wallet }) => {
    test.setTimeout(120_000);
    void wallet; // the injected wallet signs the poster in
    await page.setViewportSize({ width, height: 860 });
    await signInWithWallet(page, "/jobs/new");
    const title = `Translate our FAQ into Spanish ${width} ${Date.now()}`;

    // Step 1 asks only what the work is; Next with nothing typed points at the title, focused.
    await jobFormStep(page, "The work");
    await expect(page.getByLabel("Proof hold (hours)")).toBeHidden();
    await expect(page.getByLabel("Proof content marker (optional)")).toBeHidden();
    await expect(page.getByLabel("Evaluator (optional)")).toBeHidden();
    await fitsWidth(page);
    await page.getByRole("button", { name: "Next: How you check it" }).click();
    await expect(page.getByLabel("Title")).toBeFocused();
    await expect(page.getByLabel("Title")).toHaveAttribute("aria-invalid", "true");
    await page.getByLabel("Title").fill(title);
    await page.getByLabel("Description").fill("Translate the 30 questions and answers of our FAQ page into Spanish.");
    await page.getByLabel("Required skills").fill("translation, spanish");
    await page.getByRole("button", { name: "Next: How you check it" }).click();

    // Step 2: the criteria in plain words; the automatic checks wait behind their fold.
    await expect(page.getByRole("heading", { level: 2, name: "How you check it" })).toBeFocused();
    await expect(page.getByLabel("Check 1: HTTP status")).toBeHidden();
    await page.getByLabel("Acceptance criteria").fill("All 30 answers translated\nPublished on a public page");
    await fitsWidth(page);
    await page.getByRole("button", { name: "Next: Money and time" }).click();

    // Step 3: what similar paid jobs cost, a budget, and a deadline that cannot be in the past.
    await expect(page.getByRole("heading", { level: 2, name: "Money and time" })).toBeFocused();
    const suggestion = page.getByTestId("budget-suggestions");
    await expect(suggestion).not.toContainText("Looking up", { timeout: 20_000 });
    const useTypical = suggestion.getByRole("button", { name: /typical/ });
    if ((await useTypical.count()) > 0) {
      const amount = (await useTypical.textContent())!.match(/Use ([\d.]+) USDC/)![1]!;
      await useTypical.click();
      await expect(page.getByLabel("Budget (USDC)")).toHaveValue(amount);
    } else {
      await expect(suggestion).toContainText("Not enough jobs were paid here yet");
    }
    await page.getByLabel("Budget (USDC)").fill("24");
    const deadline = page.getByLabel("Deadline (optional)");
    // The first day whose end is at least the service's lead time away (an hour): today, or tomorrow late at night.
    await expect(deadline).toHaveAttribute(
      "min",
      new Date(Date.now() + JOB_LIMITS.deadlineMinLeadMinutes * 60_000).toISOString().slice(0, 10),
    );
    await deadline.fill(isoDay(-2));
    await page.getByRole("button", { name: "Next: Review and post" }).click();
    await expect(deadline).toBeFocused();
    await expect(page.locator("#deadlineDate-error")).toHaveText(
      "The deadline is over already: pick today or a later day",
    );
    await deadline.fill(isoDay(10));
    await fitsWidth(page);

    // The draft survives a reload of the tab, on the step it was on.
    await page.reload();
    await expect(page.getByText("Your draft from earlier in this tab is back.")).toBeVisible();
    await expect(page.getByRole("heading", { level: 2, name: "Money and time" })).toBeVisible();
    await expect(page.getByLabel("Budget (USDC)")).toHaveValue("24");
    await expect(page.getByLabel("Deadline (optional)")).toHaveValue(isoDay(10));
    await expect(page.getByLabel("Title")).toHaveValue(title);

    // A refusal lands where it can be seen: an evaluator that is not an address, behind its fold.
    await (await jobField(page, "Evaluator (optional)")).fill("my friend Ana");
    await jobFormStep(page, "Review and post");
    const review = page.getByTestId("job-review");
    await expect(review).toContainText(title);
    await expect(review).toContainText("24 USDC");
    await expect(review).toContainText(`end of ${isoDay(10)} (UTC)`);
    await fitsWidth(page);
    await page.getByRole("button", { name: "Post the job" }).click();
    const evaluator = page.getByLabel("Evaluator (optional)");
    await expect(evaluator).toBeFocused();
    await expect(evaluator).toBeInViewport();
    await expect(evaluator).toHaveAttribute("aria-invalid", "true");
    await evaluator.fill("");

    await jobFormStep(page, "Review and post");
    await page.getByRole("button", { name: "Post the job" }).click();
    await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible({ timeout: 30_000 });

    // Posted: the draft is gone, a new job starts empty.
    await page.goto("/jobs/new");
    await expect(page.getByText("Your draft from earlier in this tab is back.")).toHaveCount(0);
    await expect(page.getByLabel("Title")).toHaveValue("");
  });
}
