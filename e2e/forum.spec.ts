import { expect, test } from "@playwright/test";
import { signedInHuman } from "./api-actors";

// Forum content is untrusted. Each payload tries to run script (an alert, or setting
// window.__xss) through Markdown; none may succeed in a real browser.
const XSS_PAYLOADS = [
  "[click](javascript:window.__xss=1)",
  "[click](JaVaScRiPt:window.__xss=1)",
  "[click](javascript&#58;window.__xss=1)",
  "[click](jav&#x09;ascript:window.__xss=1)",
  "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "[click](vbscript:msgbox(1))",
  "[ref][x]\n\n[x]: javascript:window.__xss=1",
  "<javascript:window.__xss=1>",
  "![img](javascript:window.__xss=1)",
  "![img](x onerror=window.__xss=1)",
  "<script>window.__xss=1</script>",
  '<img src=x onerror="window.__xss=1">',
  '<svg onload="window.__xss=1"></svg>',
  '<iframe src="javascript:window.__xss=1"></iframe>',
  '<a href="javascript:window.__xss=1">a</a>',
  '<details open ontoggle="window.__xss=1"><summary>x</summary></details>',
  '<div style="background:url(javascript:window.__xss=1)">x</div>',
  "&lt;script&gt;window.__xss=1&lt;/script&gt;",
  "<!-- <script>window.__xss=1</script> -->",
  "<![CDATA[<script>window.__xss=1</script>]]>",
  "[a](<javascript:window.__xss=1>)",
  "<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=1>",
];

test("XSS payloads in threads and replies run no script and leave no unsafe markup", async ({ page }) => {
  const authors = await Promise.all([signedInHuman(), signedInHuman(), signedInHuman()]);
  const thread = (
    await authors[0]!.client.createThread({
      body: {
        title: `Markdown safety check ${Date.now()}`,
        body: `Payloads follow, one per paragraph.\n\n${XSS_PAYLOADS.slice(0, 11).join("\n\n")}`,
        category: "security-trust",
        intent: "experiment",
      },
    })
  ).data;
  for (const [i, payload] of XSS_PAYLOADS.entries()) {
    const replier = authors[1 + (i % 2)]!;
    await replier.client.createReply({
      params: { slugOrId: thread.id },
      body: { body: `Payload ${i}: ${payload}\n\nend of payload ${i}` },
    });
  }

  const dialogs: string[] = [];
  const consoleErrors: string[] = [];
  page.on("dialog", async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  page.on("console", (msg) => {
    if (msg.type() === "error") consoleErrors.push(msg.text());
  });
  await page.goto(`/forum/${thread.slug}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(thread.title);

  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  expect(dialogs).toEqual([]);
  expect(consoleErrors.filter((e) => !/favicon|Failed to load resource/.test(e))).toEqual([]);
  const unsafe = await page.evaluate(() => {
    const found: string[] = [];
    for (const el of document.querySelectorAll("article *")) {
      const tag = el.tagName.toLowerCase();
      if (["script", "img", "iframe", "svg", "math", "style", "object", "embed", "details"].includes(tag))
        found.push(`<${tag}>`);
      for (const attr of el.getAttributeNames()) {
        const value = el.getAttribute(attr) ?? "";
        if (attr.startsWith("on")) found.push(`${tag}[${attr}]`);
        if (["href", "src", "action", "formaction"].includes(attr) && /^\s*(javascript|data|vbscript):/i.test(value))
          found.push(`${tag}[${attr}=${value}]`);
        if (attr === "style") found.push(`${tag}[style]`);
      }
    }
    return found;
  });
  expect(unsafe).toEqual([]);
  // The payloads are shown as text, not dropped silently.
  await expect(page.getByText("end of payload 0")).toBeVisible();
});

test.describe("a reader without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("browses, searches and reads threads with GFM and an accepted answer", async ({ page }) => {
    const author = await signedInHuman();
    const replier = await signedInHuman();
    const word = `quokka${Date.now()}`;
    const thread = (
      await author.client.createThread({
        body: {
          title: `Which vector database for ${word}?`,
          body: `We compared three stores for ${word} workloads.\n\n| store | p99 ms |\n| --- | --- |\n| alpha | 12 |\n| beta | 30 |\n\n- [x] ingest\n- [ ] recall\n\n~~old numbers~~ and a footnote[^1].\n\n[^1]: measured on 2 cores.`,
          category: "benchmarks",
          intent: "question",
        },
      })
    ).data;
    const reply = (
      await replier.client.createReply({
        params: { slugOrId: thread.id },
        body: { body: "Use **alpha**: its p99 held under load in our runs too." },
      })
    ).data;
    await author.client.acceptAnswer({ params: { id: thread.id }, body: { replyId: reply.id } });

    await page.goto("/forum");
    await page.getByRole("searchbox", { name: "Search" }).fill(word);
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page.getByRole("link", { name: thread.title })).toBeVisible();
    await page.getByRole("link", { name: thread.title }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(thread.title);
    await expect(page.locator("article table")).toHaveCount(1);
    await expect(page.locator("article input[type=checkbox]")).toHaveCount(2);
    await expect(page.locator("article del")).toHaveText("old numbers");
    await expect(page.getByText("Accepted answer")).toBeVisible();
    await expect(page.getByText("its p99 held under load").first()).toBeVisible();
  });
});
