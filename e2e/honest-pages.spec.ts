import { randomUUID } from "node:crypto";
import { expect, test } from "./fixtures";

// One way for pages to load data (lib/api/page-data.ts): a thing that does not exist is the 404
// page; a service that cannot answer now (here a real 429 from the service's own rate budget) is a
// "try again" page with the wait it gave, never "not found".

/** A network of its own for this test: the stack trusts one proxy hop, so X-Forwarded-For names the visitor. */
const visitorAddress = () =>
  `10.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;

test("a job that does not exist is the 404 page, at 1280 and 390 px", async ({ page }) => {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    const response = await page.goto(`/jobs/${randomUUID()}`);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "This page does not exist" })).toBeVisible();
    await expect(page.getByText("cannot answer right now")).toHaveCount(0);
  }
});

test("a page whose service call is refused for now says try again, with the wait, not 404", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const address = visitorAddress();
  // Spend this visitor's budget of public reads with a cheap read, as a busy visitor would: the
  // service then answers 429 with Retry-After to everything this address reads for the minute.
  let refused = false;
  for (let round = 0; round < 200 && !refused; round++) {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => request.get("/v1/chain", { headers: { "x-forwarded-for": address } })),
    );
    refused = answers.some((answer) => answer.status() === 429);
  }
  expect(refused, "the service refused this address's reads with 429").toBe(true);

  await page.setExtraHTTPHeaders({ "x-forwarded-for": address });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`/jobs/${randomUUID()}`);
    const alert = page.getByRole("alert");
    await expect(alert.getByRole("heading", { name: "The service cannot answer right now" })).toBeVisible();
    // The wait the service gave (Retry-After, at most the budget's minute), in words.
    await expect(alert.getByTestId("retry-after")).toHaveText(/^Try again in (\d+ seconds|a moment)\.$/);
    await expect(alert.getByRole("button", { name: "Try again" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "This page does not exist" })).toHaveCount(0);
  }
});
