import type { Page } from "@playwright/test";
import { generatePrivateKey } from "viem/accounts";
import { uniqueText } from "@/lib/testing/unique-text";
import { signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { WIDTHS, noSideways } from "./job-setup";
import { signInWithWallet } from "./sign-in-steps";

// Replying follows the thread, on a wide screen and on a phone: a person replies on the thread's
// page and the thread's button now reads Unfollow; the next reply by someone else reaches their
// inbox. They turn "Follow the threads I reply to" off in their notification settings, and a reply
// to another thread no longer follows it (its button still reads Follow).

// anvil's account 4 (forum-writing's author, who never changes this setting); its key signs the
// API calls that set the setting back on before and after the test.
const PERSON_INDEX = 4;
const PERSON_KEY = "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a" as const;

async function replyOnPage(page: Page, text: string) {
  await page.getByRole("textbox", { name: "Your reply" }).fill(text);
  await page.getByRole("button", { name: "Post reply" }).click();
  await expect(page.getByText("Your reply is posted")).toBeVisible();
}

/** The thread's follow button: "Follow" or "Unfollow", matched whole. */
const followButton = (page: Page, label: "Follow" | "Unfollow") =>
  page.locator("article").first().getByRole("button", { name: label, exact: true });

test.describe("following on reply", () => {
  test.use({ walletAccountIndex: PERSON_INDEX });

  for (const { name, viewport } of WIDTHS) {
    test(`at ${name}: replying follows the thread and its next reply reaches the inbox; the setting turned off, a reply follows nothing`, async ({
      page,
      wallet,
    }) => {
      test.setTimeout(120_000);
      await page.setViewportSize(viewport);
      const person = await signedInHuman(PERSON_KEY);
      expect(person.address).toBe(wallet.address);
      // The setting's default (on), whatever a run before left.
      await person.client.updateNotificationSettings({ body: { followOnReply: true } });
      try {
        const author = await signedInHuman(generatePrivateKey());
        const stamp = Date.now();
        const first = (
          await author.client.createThread({
            body: { title: `Replies that follow ${name} ${stamp}`, body: uniqueText(300), category: "agent-lounge" },
          })
        ).data;
        const second = (
          await author.client.createThread({
            body: {
              title: `Replies that do not follow ${name} ${stamp}`,
              body: uniqueText(300),
              category: "agent-lounge",
            },
          })
        ).data;

        // Replying on the page follows the thread.
        await signInWithWallet(page, `/forum/${first.slug}`);
        await expect(followButton(page, "Follow")).toBeVisible();
        await replyOnPage(page, uniqueText(200));
        await expect(followButton(page, "Unfollow")).toBeVisible();
        await noSideways(page);

        // Someone else answers: the person's inbox says so, linking to the reply.
        const other = await signedInHuman(generatePrivateKey());
        await other.client.createReply({ params: { slugOrId: first.slug }, body: { body: uniqueText(200) } });
        // The inbox is filled by the notification fan-out (a round every 2 s): read it again until it is there.
        const inbox = page.getByRole("list", { name: "Notifications" });
        await expect(async () => {
          await page.goto("/inbox");
          await expect(inbox.getByText(`New reply in “${first.title}”`)).toBeVisible({ timeout: 1_000 });
        }).toPass({ timeout: 30_000 });
        await noSideways(page);

        // The setting turned off: replying to another thread follows nothing.
        await page.goto("/settings/notifications");
        const setting = page.getByRole("checkbox", { name: /Follow the threads I reply to/ });
        await expect(setting).toBeChecked();
        await setting.uncheck();
        await page.getByRole("button", { name: "Save settings" }).click();
        await expect(page.getByText("Saved.")).toBeVisible();
        await expect(page.getByRole("checkbox", { name: /Follow the threads I reply to/ })).not.toBeChecked();
        await noSideways(page);

        await page.goto(`/forum/${second.slug}`);
        await replyOnPage(page, uniqueText(200));
        await expect(followButton(page, "Follow")).toBeVisible();
        await expect(followButton(page, "Unfollow")).toHaveCount(0);
        // The first thread stays followed.
        await page.goto(`/forum/${first.slug}`);
        await expect(followButton(page, "Unfollow")).toBeVisible();
      } finally {
        await person.client.updateNotificationSettings({ body: { followOnReply: true } });
      }
    });
  }
});
