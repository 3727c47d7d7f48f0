import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { apiClient, outboxPath, readOutbox } from "./api-actors";
import { signInWithWallet } from "./sign-in-steps";
import { jobField, postJobForm } from "./job-form";

// Notifications as a poster meets them: a confirmed email in the settings, an agent's bid (through
// the API) that reaches the header's unread count, the inbox and a mail; the mail's unsubscribe
// link works signed out. And an open job page that shows a new bid without a reload.

test.use({ walletAccountIndex: 8 });

async function postJob(page: Page, title: string) {
  await page.goto("/jobs/new");
  await (await jobField(page, "Title")).fill(title);
  await (
    await jobField(page, "Description")
  ).fill("Read twelve public agent postmortems and summarise what went wrong in each, with links.");
  await (await jobField(page, "Acceptance criteria")).fill("Twelve summaries");
  await (await jobField(page, "Budget (USDC)")).fill("25");
  await postJobForm(page);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);
  return page.url().split("/").pop()!;
}

async function agentBids(jobId: string, name: string) {
  const signup = await apiClient().signUpAgent({
    body: { ownerEmail: `bidder-${Date.now()}@example.test`, name, vertical: "RESEARCH" },
  });
  const agent = apiClient(signup.data.apiKey);
  await agent.heartbeat({});
  await agent.placeBid({
    params: { id: jobId },
    body: { agentId: signup.data.agent.id, proposedUsdc: "25", coverLetter: `${name} has read many postmortems.` },
  });
}

test("a new bid reaches the poster's inbox, the header's count and a mail whose unsubscribe link works signed out", async ({
  page,
  browser,
  wallet,
}) => {
  void wallet;
  const run = Date.now().toString(36);
  const email = `poster-${run}@example.test`;
  await signInWithWallet(page, "/settings/notifications");

  // Set and confirm the notification email (the link is mailed; the outbox shows it).
  await page.getByLabel("New address (a confirmation link is mailed to it)").fill(email);
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `A confirmation link was mailed to ${email}` }),
  ).toBeVisible();
  await page.goto(outboxPath());
  const confirmation = (await page
    .getByRole("listitem")
    .filter({ hasText: `To ${email}` })
    .first()
    .locator("pre")
    .textContent())!;
  await page.goto(confirmation.match(/http\S+\/settings\/notifications\/verify\?token=\S+/)![0]);
  await page.getByRole("button", { name: "Confirm this address" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `Confirmed: notifications will be mailed to ${email}` }),
  ).toBeVisible();

  const title = `Summarise agent postmortems ${run}`;
  const jobId = await postJob(page, title);
  await agentBids(jobId, `Postmortem Reader ${run}`);

  // The fan-out worker runs every 2 s: the header's count appears on a later page load.
  await expect(async () => {
    await page.goto("/jobs");
    await expect(page.getByRole("link", { name: /Inbox, \d+ unread/ })).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await page.getByRole("link", { name: /Inbox, \d+ unread/ }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Inbox" })).toBeVisible();
  const note = page.getByRole("button", {
    name: new RegExp(`New bid of 25 USDC on “${title}” from Postmortem Reader ${run}`),
  });
  await expect(note).toBeVisible();
  await note.click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${jobId}$`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);

  // The mail, with the job's link and a one-click unsubscribe link.
  let text = "";
  await expect(async () => {
    const mail = (await readOutbox()).find((m) => m.to === email && m.subject.startsWith("New bid"));
    expect(mail?.text).toBeTruthy();
    text = mail!.text!;
  }).toPass({ timeout: 15_000 });
  expect(text).toContain(`/jobs/${jobId}`);
  const unsubscribe = text.match(/http\S+\/unsubscribe\?token=\S+/)![0];

  // Signed out, in a fresh browser context: the link says what it stops and the button stops it.
  const stranger = await browser.newContext();
  try {
    const signedOut = await stranger.newPage();
    await signedOut.goto(unsubscribe);
    await expect(signedOut.getByText("Stop mail about new bids on your jobs?")).toBeVisible();
    await signedOut.getByRole("button", { name: "Unsubscribe" }).click();
    await expect(
      signedOut.getByRole("status").filter({ hasText: "Unsubscribed: no more mail about new bids on your jobs." }),
    ).toBeVisible();
    // A forged link is refused.
    await signedOut.goto(unsubscribe.replace(/token=[^.]+/, "token=Zm9yZ2Vk"));
    await expect(signedOut.getByRole("alert").filter({ hasText: "not made by this service" })).toBeVisible();
  } finally {
    await stranger.close();
  }
  await page.goto("/settings/notifications");
  await expect(page.getByRole("checkbox", { name: "New bids on your jobs" })).not.toBeChecked();
});

test("a bid appears on an open job page without a reload", async ({ page, wallet }) => {
  void wallet;
  const run = Date.now().toString(36);
  await signInWithWallet(page, "/jobs/new");
  const title = `Live bids ${run}`;
  const jobId = await postJob(page, title);
  await expect(page.getByText("Updates appear here as they happen.")).toBeVisible();
  // Nothing reloads the page from here: a marker on the window survives only without a reload.
  await page.evaluate(() => ((window as unknown as { keptAlive: boolean }).keptAlive = true));
  await agentBids(jobId, `Live Bidder ${run}`);
  await expect(page.getByRole("row", { name: new RegExp(`Live Bidder ${run}`) })).toBeVisible({ timeout: 15_000 });
  expect(await page.evaluate(() => (window as unknown as { keptAlive?: boolean }).keptAlive)).toBe(true);
});
