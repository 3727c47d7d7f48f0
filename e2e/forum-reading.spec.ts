import { expect, test } from "./fixtures";
import { signedInHuman } from "./api-actors";
import { signInWithWallet } from "./sign-in-steps";

// Reading and replying in a long thread, as a reader sees it: page numbers, jumps to the first
// unread and the last reply, a reply written on page 1 shown where it landed (page 3, highlighted,
// editor empty), a Helpful vote that shows its state and can be undone, quoting a person (who is
// told: a mention), and code highlighted on the server.

// The injected wallet is anvil account 9: the thread's author here, and the reader.
const READER_KEY = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";

test.describe("a reader of a long thread", () => {
  test.use({ walletAccountIndex: 9 });

  test("lands on their reply, votes and takes it back, quotes and mentions, and reads highlighted code", async ({
    page,
    wallet,
  }) => {
    test.setTimeout(180_000);
    const stamp = Date.now();
    const reader = await signedInHuman(READER_KEY);
    expect(wallet.address.toLowerCase()).toBe(reader.address.toLowerCase());
    const thread = (
      await reader.client.createThread({
        body: {
          title: `Long thread to read ${stamp}`,
          body: `What do you all use for retries? A long thread to page through (${stamp}).`,
          category: "tools-models",
          intent: "question",
        },
      })
    ).data;
    // 45 replies by three others (20 an hour each): three pages of 20.
    const others = [await signedInHuman(), await signedInHuman(), await signedInHuman()];
    const replyIds: string[] = [];
    for (let i = 0; i < 45; i++) {
      const body =
        i === 1
          ? "Here is ours, in TypeScript:\n\n```ts\nconst delay = (attempt: number) => Math.min(8000, 2 ** attempt * 100);\n```"
          : `Reply ${i + 1} of the long thread: exponential backoff, attempt ${i + 1}.`;
      replyIds.push(
        (await others[i % 3]!.client.createReply({ params: { slugOrId: thread.id }, body: { body } })).data.id,
      );
    }
    const quotedAuthor = others[1]!;
    const quotedAuthorId = ((await quotedAuthor.client.getMe({})).data as { user: { id: string } }).user.id;

    await signInWithWallet(page, `/forum/${thread.slug}`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(thread.title);
    // Categories read as words, not slugs.
    await expect(page.getByRole("navigation").filter({ hasText: "Forum /" })).toContainText("Tools and models");

    // Page numbers, not only next; the first unread (everything) and the last reply.
    const pages = page.getByRole("navigation", { name: "Pages of replies" });
    await expect(pages.getByRole("link", { name: "Page 1" })).toHaveAttribute("aria-current", "page");
    await expect(pages.getByRole("link", { name: "Page 3" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Jump to first unread" })).toHaveAttribute(
      "href",
      `/forum/${thread.slug}#reply-${replyIds[0]}`,
    );
    // Reading page 1 moved the read marker through its last reply: the first unread is now on page 2.
    await page.reload();
    await expect(page.getByRole("link", { name: "Jump to first unread" })).toHaveAttribute(
      "href",
      `/forum/${thread.slug}?page=2#reply-${replyIds[20]}`,
    );
    await page.getByRole("link", { name: "Jump to last reply" }).click();
    await expect(page).toHaveURL(new RegExp(`page=3#reply-${replyIds[44]}$`));
    await expect(page.locator(`#reply-${replyIds[44]}`)).toBeInViewport();
    await expect(pages.getByRole("link", { name: "Page 3" })).toHaveAttribute("aria-current", "page");

    // Code is highlighted in the server's HTML (no highlighter in the browser).
    await page.goto(`/forum/${thread.slug}`);
    const code = page.locator(`#reply-${replyIds[1]} pre code`);
    await expect(code).toHaveClass(/hljs language-ts/);
    await expect(code.locator(".hljs-keyword").first()).toHaveText("const");
    const keywordColour = await code
      .locator(".hljs-keyword")
      .first()
      .evaluate((el) => getComputedStyle(el).color);
    const plainColour = await code.evaluate((el) => getComputedStyle(el).color);
    expect(keywordColour).not.toBe(plainColour);

    // Helpful shows its state and can be undone.
    const post = page.locator(`#reply-${replyIds[2]}`);
    await post.getByRole("button", { name: "Helpful" }).click();
    await expect(post.getByRole("button", { name: "Helpful" })).toHaveAttribute("aria-pressed", "true");
    await expect(post).toContainText("1 helpful");
    await post.getByRole("button", { name: "Helpful" }).click();
    await expect(post.getByRole("button", { name: "Helpful" })).toHaveAttribute("aria-pressed", "false");
    await expect(post).toContainText("0 helpful");

    // Quote a reply on page 1 (its author is mentioned), write, post: the reply lands on page 3,
    // highlighted and in view, and the editor is empty again.
    await page.locator(`#reply-${replyIds[1]}`).getByRole("link", { name: "Quote" }).click();
    const editor = page.getByRole("textbox", { name: "Your reply" });
    await expect(editor).toHaveValue(
      new RegExp(`^\\[@[^\\]]+\\]\\(/people/${quotedAuthorId}\\) wrote:\\n\\n> Here is ours`),
    );
    await editor.press("Control+End");
    await editor.pressSequentially(`Capping at 8 s matters most (${stamp}).`);
    await page.getByRole("button", { name: "Post reply" }).click();
    const mine = page.getByRole("article", { name: "Your reply, just posted" });
    await expect(mine).toBeVisible();
    await expect(mine).toContainText(`Capping at 8 s matters most (${stamp}).`);
    await expect(mine).toBeInViewport();
    await expect(page.getByRole("status").filter({ hasText: "Your reply is posted" })).toContainText("on page 3 of 3");
    await expect(pages.getByRole("link", { name: "Page 3" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByRole("textbox", { name: "Your reply" })).toHaveValue("");
    // The mention is a link to the person, and the person is told.
    await expect(mine.locator("a.md-mention")).toHaveAttribute("href", `/people/${quotedAuthorId}`);
    await expect
      .poll(
        async () =>
          (await quotedAuthor.client.listNotifications({})).data.filter(
            (n) => n.type === "forum.mention" && n.link?.includes(thread.slug),
          ).length,
        { timeout: 30_000 },
      )
      .toBe(1);
    const told = (await quotedAuthor.client.listNotifications({})).data.find((n) => n.type === "forum.mention")!;
    expect(told.text).toContain(`mentioned you in “${thread.title}”`);

    // The notification's link opens the page that holds the reply, with the reply in view.
    await page.goto(told.link!);
    await expect(page).toHaveURL(/\?reply=/);
    await expect(page.locator(`article${told.link!.slice(told.link!.indexOf("#"))}`)).toBeInViewport();
  });
});
