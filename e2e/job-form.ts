import { expect, type Locator, type Page } from "@playwright/test";

// The guided "Post a job" form (components/jobs/job-form.tsx) shows one step at a time and keeps
// the technical fields behind "advanced" folds. Specs fill it by label as before, through these
// helpers: a field is brought into view (its step chosen, its fold opened) before it is filled.

const STEP_TITLES: Record<string, string> = {
  work: "The work",
  checks: "How you check it",
  money: "Money and time",
  review: "Review and post",
  submit: "Review and post",
};

/** Waits until React has hydrated the form (the step buttons do nothing before). */
async function formReady(page: Page) {
  const nav = page.getByRole("navigation", { name: "Steps of posting a job" }).getByRole("button").first();
  await expect
    .poll(() => nav.evaluate((el) => Object.keys(el).some((k) => k.startsWith("__reactFiber"))), { timeout: 30_000 })
    .toBe(true);
}

/** Goes to a step of the job form by its title. */
export async function jobFormStep(page: Page, title: string) {
  await formReady(page);
  await page
    .getByRole("navigation", { name: "Steps of posting a job" })
    .getByRole("button", { name: new RegExp(`^Step \\d+ ${title}$`) })
    .click();
  await expect(page.getByRole("heading", { level: 2, name: title })).toBeVisible();
}

/** The job form's control labelled `label`, shown: on its step, its advanced fold open. */
export async function jobField(page: Page, label: string, options: { exact?: boolean } = {}): Promise<Locator> {
  const field = page.getByLabel(label, { exact: options.exact });
  const step = await field.evaluate((el) => el.closest("[data-job-step]")?.getAttribute("data-job-step") ?? null);
  if (step && !(await field.isVisible())) await jobFormStep(page, STEP_TITLES[step]!);
  const foldClosed = await field.evaluate((el) => {
    const fold = el.closest("details");
    return fold !== null && !fold.open;
  });
  if (foldClosed) await field.locator("xpath=ancestor::details[1]/summary").click();
  await expect(field).toBeVisible();
  return field;
}

/** Fills the job form's fields by label, each on its step. */
export async function fillJobForm(page: Page, fields: Record<string, string>) {
  for (const [label, value] of Object.entries(fields)) await (await jobField(page, label)).fill(value);
}

/** Goes to the review step and posts the job. */
export async function postJobForm(page: Page) {
  await jobFormStep(page, "Review and post");
  await page.getByRole("button", { name: "Post the job" }).click();
}
