import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { generatePrivateKey } from "viem/accounts";
import { madeOnce, signedInHuman } from "./api-actors";
import { WIDTHS, noSideways } from "./job-setup";
import { ROUTE_SAMPLES, appRoutes, makeDemoData, type DemoData, type Sample } from "./route-samples";
import { signInWithKey, signInWithWallet } from "./sign-in-steps";

// Every page of the dashboard, checked by axe-core in Chromium, signed out, signed in as a person
// (the injected wallet), as the operator and with an agent key, in the light and the dark theme:
// no violation of any impact (WCAG 2.2 AA and axe's best practices).
// ROUTE_SAMPLES (route-samples.ts) maps each app route to a URL of the demo data made there; the first
// test fails when a page is added without a sample, so a new page cannot skip the check.

async function violations(page: Page) {
  const results = await new AxeBuilder({ page })
    // A control's name must contain its visible text (WCAG 2.5.3), a rule axe keeps among its experimental ones.
    .options({ rules: { "label-content-name-mismatch": { enabled: true } } })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
    .analyze();
  return results.violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes
        .slice(0, 3)
        .map((n) => `${n.target.join(" ")}${n.any[0]?.message ? ` (${n.any[0].message})` : ""}`)
        .join(" | ")}`,
  );
}

test("every page route has an accessibility sample", () => {
  const missing = appRoutes().filter((route) => !ROUTE_SAMPLES[route]);
  expect(missing, "pages without a sample in ROUTE_SAMPLES").toEqual([]);
});

// One test per signed-in state, so that one slow state cannot starve the others of time, and a
// failure names the state. The demo data is made once for the stack and shared by the three.
const demoData = () => madeOnce("accessibility", makeDemoData);

type Who = Sample["as"][number];

const THEMES = ["light", "dark"] as const;

/** Opens every sample page `who` can see, in both themes, and collects its violations. */
async function checkEveryPage(page: Page, who: Who, data: DemoData): Promise<string[]> {
  const failures: string[] = [];
  for (const theme of THEMES) {
    // The site follows the system's colour scheme (prefers-color-scheme), as the reader's browser would set it.
    await page.emulateMedia({ colorScheme: theme });
    for (const [route, sample] of Object.entries(ROUTE_SAMPLES)) {
      if (!sample.as.includes(who)) continue;
      const url = sample.url(data);
      // The server-rendered document is what axe reads; the page's own scripts (wallet discovery,
      // live updates) keep connections open, so waiting for an idle network would only cost time.
      await page.goto(url, { waitUntil: "load" });
      await page.locator("main").first().waitFor({ state: "attached" });
      for (const v of await violations(page)) failures.push(`[${who}, ${theme}] ${route} (${url}): ${v}`);
    }
  }
  return failures;
}

test.describe("every page, light and dark: no axe-core violation of any impact", () => {
  test("signed out", async ({ page }) => {
    test.setTimeout(600_000);
    const failures = await checkEveryPage(page, "visitor", await demoData());
    expect(failures, failures.join("\n")).toEqual([]);
  });

  test("signed in as a person (the injected wallet)", async ({ page, wallet }) => {
    test.setTimeout(600_000);
    const data = await demoData();
    // The injected wallet is anvil account 1, the poster of the demo job.
    expect(wallet.address).toBeTruthy();
    await signInWithWallet(page, "/me/jobs");
    const failures = await checkEveryPage(page, "person", data);
    expect(failures, failures.join("\n")).toEqual([]);
  });

  test.describe("signed in as the operator", () => {
    // anvil account 2 is the e2e stack's operator (OPERATOR_ADDRESSES in scripts/e2e-stack.ts).
    test.use({ walletAccountIndex: 2 });
    test("the console's pages", async ({ page, wallet }) => {
      test.setTimeout(600_000);
      const data = await demoData();
      expect(wallet.address.toLowerCase()).toBe("0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc");
      await signInWithWallet(page, "/admin");
      const failures = await checkEveryPage(page, "operator", data);
      expect(failures, failures.join("\n")).toEqual([]);
    });
  });

  test("signed in as an agent (its key)", async ({ page }) => {
    test.setTimeout(600_000);
    const data = await demoData();
    await signInWithKey(page, data.agentKey, "/agents");
    const failures = await checkEveryPage(page, "agent", data);
    expect(failures, failures.join("\n")).toEqual([]);
  });
});

// The same rules as a reader meets them on a wide screen and on a phone: a forum post's wide code
// block and table are regions the keyboard reaches and scrolls (WCAG 2.1.1), and the thread and
// the job board show no axe violation in either theme at that width.
for (const { name, viewport } of WIDTHS) {
  test(`at ${name}: a post's wide code and table scroll by keyboard; the thread and the board pass axe in both themes`, async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await page.setViewportSize(viewport);
    const thread = await madeOnce("accessibility-scroll-regions", async () => {
      const author = await signedInHuman(generatePrivateKey());
      const stamp = Date.now();
      const wideLine = `const rows = [${Array.from({ length: 40 }, (_, i) => `"column-${i}-${stamp}"`).join(", ")}];`;
      const wideTable = [
        `| ${Array.from({ length: 14 }, (_, i) => `Heading number ${i}`).join(" | ")} |`,
        `| ${Array.from({ length: 14 }, () => "---").join(" | ")} |`,
        `| ${Array.from({ length: 14 }, (_, i) => `value ${i} of ${stamp}`).join(" | ")} |`,
      ].join("\n");
      const created = await author.client.createThread({
        body: {
          title: `Wide code and tables by keyboard ${stamp}`,
          body: `A line of code wider than any screen:\n\n\`\`\`ts\n${wideLine}\n\`\`\`\n\nAnd a wide table:\n\n${wideTable}\n`,
          category: "tools-models",
        },
      });
      return { slug: created.data.slug };
    });
    await page.goto(`/forum/${thread.slug}`);
    const post = page.locator("article").first();
    for (const region of [post.getByRole("region", { name: "Code" }), post.getByRole("region", { name: "Table" })]) {
      await expect(region).toBeVisible();
      // Reached with Tab alone, as a keyboard user would: at most 60 stops from the top of the page.
      await page.locator("body").focus();
      let reached = false;
      for (let stop = 0; stop < 60 && !reached; stop++) {
        await page.keyboard.press("Tab");
        reached = await region.evaluate((el) => el === document.activeElement);
      }
      expect(reached, "the scroll region takes focus from the keyboard").toBe(true);
      const before = await region.evaluate((el) => el.scrollLeft);
      await page.keyboard.press("ArrowRight");
      await page.keyboard.press("ArrowRight");
      await expect.poll(() => region.evaluate((el) => el.scrollLeft)).toBeGreaterThan(before);
    }
    await noSideways(page);

    const failures: string[] = [];
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme });
      for (const url of [`/forum/${thread.slug}`, "/jobs"]) {
        await page.goto(url, { waitUntil: "load" });
        await page.locator("main").first().waitFor({ state: "attached" });
        for (const v of await violations(page)) failures.push(`[${theme}] ${url}: ${v}`);
      }
    }
    expect(failures, failures.join("\n")).toEqual([]);
  });
}
