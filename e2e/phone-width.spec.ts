import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { madeOnce } from "./api-actors";
import { ROUTE_SAMPLES, makeDemoData, type DemoData, type Sample } from "./route-samples";
import { signInWithKey, signInWithWallet } from "./sign-in-steps";

// Every page fits a phone: at 390 x 844 (a current iPhone) no page scrolls sideways, signed out and
// signed in as the poster (the injected wallet), the operator and an agent (its key). The pages are
// the accessibility spec's samples (route-samples.ts), one load each per state, no screenshots.

const PHONE = { width: 390, height: 844 };
test.use({ viewport: PHONE });

type Who = Sample["as"][number];

/** The page's scroll width, and when it is too wide the elements that reach past the screen's edge. */
async function overflow(page: Page): Promise<{ width: number; culprits: string[] }> {
  return page.evaluate((limit) => {
    const width = document.scrollingElement!.scrollWidth;
    if (width <= limit) return { width, culprits: [] };
    const culprits: string[] = [];
    for (const el of Array.from(document.body.querySelectorAll<HTMLElement>("*"))) {
      const box = el.getBoundingClientRect();
      if (box.right <= limit + 0.5 || box.width === 0) continue;
      // Report the outermost offenders: skip an element whose parent already reaches past the edge.
      const parent = el.parentElement?.getBoundingClientRect();
      if (parent && parent.right > limit + 0.5) continue;
      const name = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.classList.length ? `.${Array.from(el.classList).slice(0, 4).join(".")}` : ""}`;
      culprits.push(`${name} (right ${Math.round(box.right)})`);
      if (culprits.length >= 4) break;
    }
    return { width, culprits };
  }, PHONE.width);
}

async function checkEveryPage(page: Page, who: Who, data: DemoData): Promise<string[]> {
  const failures: string[] = [];
  for (const [route, sample] of Object.entries(ROUTE_SAMPLES)) {
    if (!sample.as.includes(who)) continue;
    const url = sample.url(data);
    await page.goto(url, { waitUntil: "load" });
    await page.locator("main").first().waitFor({ state: "attached" });
    const { width, culprits } = await overflow(page);
    if (width > PHONE.width) failures.push(`[${who}] ${route} (${url}): ${width} px wide; ${culprits.join(", ")}`);
  }
  return failures;
}

const demoData = () => madeOnce("accessibility", makeDemoData);

test.describe("every page at 390 px: no horizontal scroll", () => {
  test("signed out", async ({ page }) => {
    test.setTimeout(180_000);
    const failures = await checkEveryPage(page, "visitor", await demoData());
    expect(failures, failures.join("\n")).toEqual([]);
  });

  test("signed in as the poster (the injected wallet)", async ({ page, wallet }) => {
    test.setTimeout(180_000);
    const data = await demoData();
    expect(wallet.address).toBeTruthy();
    await signInWithWallet(page, "/me/jobs");
    const failures = await checkEveryPage(page, "person", data);
    expect(failures, failures.join("\n")).toEqual([]);

    // Bids are compared on a phone: every cell of a bid is on screen and nothing covers it.
    await page.goto(`/jobs/${data.jobId}`);
    const cells = page.getByRole("table", { name: "Bids on this job" }).locator("tbody tr").first().locator("td");
    await expect(cells).toHaveCount(5);
    for (const cell of await cells.all()) {
      const seen = await cell.evaluate((td, limit) => {
        const box = td.getBoundingClientRect();
        td.scrollIntoView({ block: "center" });
        const now = td.getBoundingClientRect();
        const hit = document.elementFromPoint(
          now.left + Math.min(now.width / 2, 40),
          now.top + Math.min(now.height / 2, 12),
        );
        return { inside: box.left >= 0 && box.right <= limit, uncovered: hit !== null && td.contains(hit) };
      }, PHONE.width);
      expect(seen, `bid cell "${(await cell.innerText()).slice(0, 40)}"`).toEqual({ inside: true, uncovered: true });
    }
  });

  test.describe("signed in as the operator", () => {
    test.use({ walletAccountIndex: 2 });
    test("the console's pages", async ({ page, wallet }) => {
      test.setTimeout(180_000);
      const data = await demoData();
      expect(wallet.address.toLowerCase()).toBe("0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc");
      await signInWithWallet(page, "/admin");
      const failures = await checkEveryPage(page, "operator", data);
      expect(failures, failures.join("\n")).toEqual([]);
    });
  });

  test("signed in as an agent (its key)", async ({ page }) => {
    test.setTimeout(180_000);
    const data = await demoData();
    await signInWithKey(page, data.agentKey, "/agents");
    const failures = await checkEveryPage(page, "agent", data);
    expect(failures, failures.join("\n")).toEqual([]);
  });
});
