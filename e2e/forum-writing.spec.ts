import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { signedInHuman } from "./api-actors";

async function signIn(page: Page, returnTo: string) {
  await page.goto(`/sign-in?returnTo=${encodeURIComponent(returnTo)}`);
  await page.getByRole("button", { name: "Connect wallet to sign in" }).click();
  await page.getByRole("button", { name: /Test Wallet/ }).click();
  await page.getByRole("button", { name: /sign message/i }).click();
  await expect(page).toHaveURL(new RegExp(`${returnTo.replace(/[/]/g, "\\/")}$`));
}

test.describe("an author", () => {
  test.use({ walletAccountIndex: 4 });

  test("posts a thread with GFM, sees the preview, and accepts an answer; the hourly limit is explained", async ({
    page,
    wallet,
    secrets,
  }) => {
    void wallet;
    await signIn(page, "/forum/new");
    const title = `Tool-call retries that actually work ${Date.now()}`;
    await page.getByLabel("Title").fill(title);
    await page.getByLabel("Category").selectOption("tools-models");
    await page.getByLabel("Intent (optional)").selectOption("question");
    await page
      .getByLabel("Post")
      .fill(
        "How do you retry **tool calls**?\n\n| strategy | success |\n| --- | --- |\n| none | 71% |\n| backoff | 93% |\n\n- [x] tried jitter\n- [ ] tried hedging",
      );
    await expect(page.getByLabel("Preview").locator("table")).toHaveCount(1);
    await expect(page.getByLabel("Preview").locator("strong")).toHaveText("tool calls");
    await page.getByRole("button", { name: "Publish thread" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);
    await expect(page.locator("article table")).toHaveCount(1);
    const slug = page.url().split("/").pop()!;

    const replier = await signedInHuman();
    await replier.client.createReply({
      params: { slugOrId: slug },
      body: { body: "Exponential backoff with full jitter, capped at 8 s, fixed it for us." },
    });
    await page.reload();
    const reply = page.locator("article").filter({ hasText: "full jitter" });
    await reply.getByRole("button", { name: "Accept as answer" }).click();
    await expect(page.getByText("Accepted answer")).toBeVisible();

    // Three threads an hour: the fourth attempt is refused with a readable wait.
    for (let i = 2; i <= 4; i++) {
      await page.goto("/forum/new");
      await page.getByLabel("Title").fill(`Another question number ${i} ${Date.now()}`);
      await page.getByLabel("Post").fill(`A different body for question ${i}, long enough to pass the minimum.`);
      await page.getByRole("button", { name: "Publish thread" }).click();
      if (i < 4) await expect(page.getByRole("heading", { level: 1 })).toContainText("Another question");
    }
    await expect(page.getByRole("alert").filter({ hasText: "posting limit" })).toBeVisible();
    await secrets.assertNoLeaks();
  });
});

test.describe("a replier", () => {
  test.use({ walletAccountIndex: 5 });

  test("replies, votes and follows", async ({ page, wallet }) => {
    void wallet;
    const author = await signedInHuman();
    const thread = (
      await author.client.createThread({
        body: {
          title: `Which eval harness do you use ${Date.now()}`,
          body: "Looking for an eval harness that handles multi-step agents well.",
          category: "benchmarks",
        },
      })
    ).data;
    await signIn(page, `/forum/${thread.slug}`);
    await page
      .getByRole("textbox", { name: "Your reply" })
      .fill("We use a small in-house harness with recorded tool responses; happy to share.");
    await page.getByRole("button", { name: "Post reply" }).click();
    await expect(page.locator("article").filter({ hasText: "in-house harness" })).toBeVisible();

    // The replier edits their own reply.
    await page.locator("article").filter({ hasText: "in-house harness" }).getByRole("link", { name: "Edit" }).click();
    await expect(page.getByRole("heading", { name: "Edit reply" })).toBeVisible();
    await page
      .getByRole("textbox", { name: "Reply", exact: true })
      .fill("We use a small in-house harness with recorded tool responses and seeded randomness.");
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.locator("article").filter({ hasText: "seeded randomness" })).toContainText("(edited)");

    await page.locator("article").first().getByRole("button", { name: "Helpful" }).click();
    // The vote shows its state (pressed) and stays a button that takes it back.
    await expect(page.locator("article").first().getByRole("button", { name: "Helpful" })).toHaveAttribute(
      "aria-pressed",
      "true",
    );
    // Replying followed the thread already; Unfollow and Follow each take effect (names matched whole:
    // "Follow" alone would also match "Unfollow").
    await page.getByRole("button", { name: "Unfollow", exact: true }).click();
    await expect(page.getByRole("button", { name: "Follow", exact: true })).toBeVisible();
    await page.getByRole("button", { name: "Follow", exact: true }).click();
    await expect(page.getByRole("button", { name: "Unfollow", exact: true })).toBeVisible();
    await page.reload();
    await expect(page.getByRole("button", { name: "Unfollow", exact: true })).toBeVisible();
    const viewer = await author.client.getThread({ params: { slugOrId: thread.id } });
    expect(viewer.data.helpfulCount).toBe(1);
    expect(viewer.data.replyCount).toBe(1);
  });
});
