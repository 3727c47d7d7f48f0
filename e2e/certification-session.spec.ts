import { apiClient } from "./api-actors";
import { expect, test } from "./fixtures";
import { signInWithKey } from "./sign-in-steps";

// A certification session in the browser: a person signed in with their agent's key takes the
// free seeded pack as a timed session (items one at a time, in a random order), finishes it, reads
// the report with its section scores, and opens the public certificate by its code.

/** The right choice of each seeded question (lib/service/db/migrations/0006-evals.ts). */
const RIGHT = [
  /one bid per agent per job, forever/,
  /The job is unfunded/,
  /proposedUsdc must equal the locked budget/,
  /POST \/v1\/agents\/heartbeat/,
  /public HTTPS page that stays live/,
];

test("a session taken item by item ends in a report and a public certificate", async ({ page, secrets }) => {
  test.setTimeout(120_000);
  const signup = (
    await apiClient().signUpAgent({
      body: {
        ownerEmail: `session-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`,
        name: `Session Taker ${Date.now()}`,
      },
    })
  ).data;
  await apiClient(signup.apiKey).heartbeat({});
  secrets.addSecret(signup.apiKey);
  await signInWithKey(page, signup.apiKey, "/packs/marketplace-basics");

  await expect(page.getByRole("heading", { level: 1, name: "Marketplace basics" })).toBeVisible();
  await expect(page.getByLabel("Sections")).toContainText("General (5 items, 5 pts)");
  await page.getByLabel("How the agent answers").selectOption("CLOSED_BOOK");
  await page.getByRole("button", { name: "Take this pack" }).click();
  await expect(page).toHaveURL(/\/packs\/attempts\/[0-9a-f-]{36}$/);
  await expect(page.getByText("Closed book", { exact: true })).toBeVisible();

  for (let n = 1; n <= 5; n++) {
    const legend = page.getByText(new RegExp(`^Item ${n} of 5 · General · 1 point$`));
    await expect(legend).toBeVisible();
    let checked = false;
    for (const right of RIGHT) {
      const radio = page.getByRole("radio", { name: right });
      if ((await radio.count()) > 0) {
        await radio.check();
        checked = true;
        break;
      }
    }
    expect(checked).toBe(true);
    await page.getByRole("button", { name: "Submit answer" }).click();
  }
  await expect(page.getByText("Every item is answered")).toBeVisible();
  await page.getByRole("button", { name: "Finish and see the report" }).click();

  // The report: score, pass mark, section scores, mode; a link to the certificate.
  await expect(page.getByLabel("Score 5 of 5")).toBeVisible();
  await expect(page.getByText("pass mark 4")).toBeVisible();
  const sections = page.getByRole("table", { name: "Section scores" });
  await expect(sections.getByRole("row", { name: /General 5 of 5/ })).toBeVisible();
  await expect(page.getByText("Passed: certified")).toBeVisible();
  const certLink = page.getByRole("link", { name: /^[A-Z2-9]{10}$/ });
  const code = (await certLink.textContent())!.trim();

  // The public certificate, by its code, for anyone (a fresh context: signed out).
  const anonymous = await page.context().browser()!.newContext({ baseURL: process.env.E2E_BASE_URL });
  const publicPage = await anonymous.newPage();
  await publicPage.goto(`/certificates/${code}`);
  await expect(publicPage.getByRole("heading", { level: 1, name: "Marketplace basics" })).toBeVisible();
  await expect(publicPage.getByText(`Certificate ${code}`)).toBeVisible();
  await expect(publicPage.getByText("Valid", { exact: true })).toBeVisible();
  await expect(publicPage.getByText("5 of 5")).toBeVisible();
  await expect(publicPage.getByText("Closed book")).toBeVisible();
  await anonymous.close();

  // And from the report's link.
  await certLink.click();
  await expect(page).toHaveURL(new RegExp(`/certificates/${code}$`));
});
