import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { apiClient, madeOnce, outboxPath, signedInHuman } from "./api-actors";
import { signInWithKey, signInWithWallet } from "./sign-in-steps";

// Every page of the dashboard, checked by axe-core in Chromium, signed out, signed in as a person
// (the injected wallet) and signed in with an agent key: no serious or critical violation.
// ROUTE_SAMPLES maps each app route to a URL of the demo data this spec makes; the first test fails
// when a page is added without a sample here, so a new page cannot skip the check.

const APP_DIR = path.join(process.cwd(), "app");

/** Every page route of the app, as its file path pattern ("/jobs/[id]/review"); route groups dropped. */
function appRoutes(dir = APP_DIR, prefix = ""): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (!statSync(full).isDirectory()) {
      if (entry === "page.tsx") found.push(prefix || "/");
      continue;
    }
    const segment = /^\(.*\)$/.test(entry) ? "" : `/${entry}`;
    found.push(...appRoutes(full, prefix + segment));
  }
  return found.sort();
}

interface Sample {
  /** The URL to open, from the demo data made below. */
  url: (d: DemoData) => string;
  /** Who can see the page: signed-out visitors are redirected to sign in on the rest. */
  as: Array<"visitor" | "person" | "agent" | "operator">;
}

interface DemoData {
  jobId: string;
  agentId: string;
  threadSlug: string;
  replyId: string;
  packId: string;
  agentKey: string;
  /** The poster's user id (its public profile). */
  posterId: string;
}

// Pages that exist only for a development aid or are the sign-in flow itself are still checked.
const ROUTE_SAMPLES: Record<string, Sample> = {
  "/admin": { url: () => "/admin", as: ["operator", "person"] },
  "/admin/audit": { url: () => "/admin/audit", as: ["operator"] },
  "/admin/campaigns": { url: () => "/admin/campaigns", as: ["operator"] },
  "/admin/disputes": { url: () => "/admin/disputes", as: ["operator"] },
  "/admin/disputes/[id]": { url: (d) => `/admin/disputes/${d.jobId}`, as: ["operator"] },
  "/admin/fees": { url: () => "/admin/fees", as: ["operator"] },
  "/admin/moderation": { url: () => "/admin/moderation", as: ["operator"] },
  "/admin/packs": { url: () => "/admin/packs", as: ["operator"] },
  "/admin/people": { url: () => "/admin/people?q=Axe", as: ["operator"] },
  "/certificates/[code]": { url: () => "/certificates/NOSUCHCODE", as: ["visitor"] },
  "/packs/mine": { url: () => "/packs/mine", as: ["person"] },
  "/packs/new": { url: () => "/packs/new", as: ["person"] },
  "/": { url: () => "/", as: ["visitor", "person", "agent"] },
  "/agents": { url: () => "/agents", as: ["person", "agent"] },
  "/agents/[id]": { url: (d) => `/agents/${d.agentId}`, as: ["visitor", "person", "agent"] },
  "/claim/[token]": { url: () => "/claim/not-a-real-token", as: ["visitor"] },
  "/dev/outbox": { url: () => outboxPath(), as: ["visitor"] },
  "/empty": { url: () => "/empty", as: ["visitor"] },
  "/inbox": { url: () => "/inbox", as: ["person"] },
  "/forum": { url: () => "/forum", as: ["visitor", "person", "agent"] },
  "/forum/[slug]": { url: (d) => `/forum/${d.threadSlug}`, as: ["visitor", "person", "agent"] },
  "/forum/[slug]/edit": { url: (d) => `/forum/${d.threadSlug}/edit`, as: ["person"] },
  "/forum/new": { url: () => "/forum/new", as: ["person", "agent"] },
  "/forum/replies/[id]/edit": { url: (d) => `/forum/replies/${d.replyId}/edit`, as: ["person"] },
  "/jobs": { url: () => "/jobs", as: ["visitor", "person", "agent"] },
  "/jobs/[id]": { url: (d) => `/jobs/${d.jobId}`, as: ["visitor", "person", "agent"] },
  "/jobs/[id]/fund": { url: (d) => `/jobs/${d.jobId}/fund`, as: ["person"] },
  "/jobs/[id]/review": { url: (d) => `/jobs/${d.jobId}/review`, as: ["person"] },
  "/jobs/[id]/submit": { url: (d) => `/jobs/${d.jobId}/submit`, as: ["agent"] },
  "/jobs/new": { url: () => "/jobs/new", as: ["person", "agent"] },
  "/join": { url: () => "/join", as: ["visitor"] },
  "/me/jobs": { url: () => "/me/jobs", as: ["person", "agent"] },
  "/people/[id]": { url: (d) => `/people/${d.posterId}`, as: ["visitor", "person", "agent"] },
  "/packs": { url: () => "/packs", as: ["visitor", "person", "agent"] },
  "/packs/[id]": { url: (d) => `/packs/${d.packId}`, as: ["visitor", "agent"] },
  "/packs/attempts/[id]": { url: () => "/packs/attempts/00000000-0000-4000-8000-000000000000", as: ["agent"] },
  "/rewards": { url: () => "/rewards", as: ["visitor", "person"] },
  "/rewards/payout": { url: () => "/rewards/payout", as: ["person"] },
  "/rewards/referrals": { url: () => "/rewards/referrals", as: ["agent"] },
  "/settings/notifications": { url: () => "/settings/notifications", as: ["person"] },
  "/settings/webhooks": { url: () => "/settings/webhooks", as: ["person"] },
  "/settings/notifications/verify": { url: () => "/settings/notifications/verify?token=not-a-real-token", as: ["visitor"] },
  "/unsubscribe": { url: () => "/unsubscribe?token=not-a-real-token", as: ["visitor"] },
  "/share/jobs/[id]": { url: (d) => `/share/jobs/${d.jobId}`, as: ["visitor"] },
  "/sign-in": { url: () => "/sign-in", as: ["visitor"] },
};

async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
}

async function makeDemoData(): Promise<DemoData> {
  const stamp = Date.now();
  const signup = (await apiClient().signUpAgent({ body: { ownerEmail: `axe-${stamp}@example.test`, name: `Axe Agent ${stamp}` } })).data;
  const agent = apiClient(signup.apiKey);
  await agent.heartbeat({});
  const poster = await signedInHuman("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
  const job = (
    await poster.client.createJob({
      body: {
        templateId: "custom-v1",
        title: `Accessible job ${stamp}`,
        description: "A job whose pages are checked by axe-core in every signed-in state.",
        acceptanceCriteria: ["Checked"],
        inputData: { budgetType: "bid" },
        isPubliclyShareable: true,
        budget: "5",
      },
    })
  ).data;
  await agent.placeBid({ params: { id: job.id }, body: { agentId: signup.agent.id, proposedUsdc: "5", coverLetter: "I can do this." } });
  const thread = (
    await poster.client.createThread({
      body: { title: `Accessibility of the forum ${stamp}`, body: `A thread whose page is checked by axe-core, with a reply below it (${stamp}).`, category: "agent-lounge", intent: "question" },
    })
  ).data;
  const reply = (await poster.client.createReply({ params: { slugOrId: thread.id }, body: { body: `A reply of ${stamp}, checked for accessibility.` } })).data;
  const packs = (await apiClient().listEvalPacks({ query: {} })).data;
  return { jobId: job.id, agentId: signup.agent.id, threadSlug: thread.slug, replyId: reply.id, packId: packs[0]?.id ?? "none", agentKey: signup.apiKey, posterId: job.posterId };
}

test("every page route has an accessibility sample", () => {
  const missing = appRoutes().filter((route) => !ROUTE_SAMPLES[route]);
  expect(missing, "pages without a sample in ROUTE_SAMPLES").toEqual([]);
});

// One test per signed-in state, so that one slow state cannot starve the others of time, and a
// failure names the state. The demo data is made once for the stack and shared by the three.
const demoData = () => madeOnce("accessibility", makeDemoData);

type Who = Sample["as"][number];

/** Opens every sample page `who` can see and collects its serious and critical violations. */
async function checkEveryPage(page: Page, who: Who, data: DemoData): Promise<string[]> {
  const failures: string[] = [];
  for (const [route, sample] of Object.entries(ROUTE_SAMPLES)) {
    if (!sample.as.includes(who)) continue;
    const url = sample.url(data);
    // The server-rendered document is what axe reads; the page's own scripts (wallet discovery,
    // live updates) keep connections open, so waiting for an idle network would only cost time.
    await page.goto(url, { waitUntil: "load" });
    await page.locator("main").first().waitFor({ state: "attached" });
    for (const v of await seriousViolations(page)) failures.push(`[${who}] ${route} (${url}): ${v}`);
  }
  return failures;
}

test.describe("every page: no serious or critical axe-core violation", () => {
  test("signed out", async ({ page }) => {
    test.setTimeout(240_000);
    const failures = await checkEveryPage(page, "visitor", await demoData());
    expect(failures, failures.join("\n")).toEqual([]);
  });

  test("signed in as a person (the injected wallet)", async ({ page, wallet }) => {
    test.setTimeout(240_000);
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
      test.setTimeout(240_000);
      const data = await demoData();
      expect(wallet.address.toLowerCase()).toBe("0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc");
      await signInWithWallet(page, "/admin");
      const failures = await checkEveryPage(page, "operator", data);
      expect(failures, failures.join("\n")).toEqual([]);
    });
  });

  test("signed in as an agent (its key)", async ({ page }) => {
    test.setTimeout(240_000);
    const data = await demoData();
    await signInWithKey(page, data.agentKey, "/agents");
    const failures = await checkEveryPage(page, "agent", data);
    expect(failures, failures.join("\n")).toEqual([]);
  });
});
