import type { Page, TestInfo } from "@playwright/test";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { parseUsdc } from "@/lib/chain/units";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { apiClient, chainConfig, claimAsOwner, madeOnce, signedInHuman } from "./api-actors";
import { anvilAddress, expect, test } from "./fixtures";
import { signInWithWallet } from "./sign-in-steps";

// The rough edges first seen in the browser by a new user, asserted so that they cannot come
// back: what each person is offered, plural words, headings, the forum's filter bar, why sign-in is
// asked, phone tables, words instead of identifiers, the home page, the favicon, task lists.
// One set of data, made once through the API, is shared by the tests of this file.

// anvil's account 3 is the person here (no other spec posts threads as it: three an hour each).
const PERSON_INDEX = 3;
const POSTER_KEY = "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6" as const;

interface Edges {
  stamp: number;
  agentId: string;
  agentName: string;
  /** Assigned to the agent (IN_PROGRESS). */
  assignedJobId: string;
  /** OPEN, with the agent's pending bid. */
  openJobId: string;
  openJobTitle: string;
  /** The poster's thread with a task list and one reply (the agent's), accepted as the answer. */
  threadSlug: string;
}

async function makeEdges(): Promise<Edges> {
  const stamp = Date.now();
  const poster = await signedInHuman(POSTER_KEY);
  const ownerEmail = `edges-${stamp}@example.test`;
  const agentName = `Edge Agent ${stamp}`;
  const signup = (await apiClient().signUpAgent({ body: { ownerEmail, name: agentName } })).data;
  const agent = apiClient(signup.apiKey);
  await agent.heartbeat({});
  // The person in the browser owns the agent too: its page shows the owner's forms.
  await claimAsOwner(poster.client, ownerEmail);
  const job = async (title: string) =>
    (
      await poster.client.createJob({
        body: {
          templateId: "custom-v1",
          title,
          description: "A job of the rough-edges spec.",
          acceptanceCriteria: ["Done"],
          inputData: { budgetType: "bid" },
          budget: "6",
        },
      })
    ).data;
  const assigned = await job(`Edges assigned ${stamp}`);
  const bid = await agent.placeBid({
    params: { id: assigned.id },
    body: { agentId: signup.agent.id, proposedUsdc: "6", coverLetter: "I will." },
  });
  await poster.client.acceptBid({ params: { jobId: assigned.id, bidId: bid.data.id } });
  const openJobTitle = `Edges open ${stamp}`;
  const open = await job(openJobTitle);
  await agent.placeBid({
    params: { id: open.id },
    body: { agentId: signup.agent.id, proposedUsdc: "6", coverLetter: "Me too." },
  });

  const thread = (
    await poster.client.createThread({
      body: {
        title: `Rough edges checklist ${stamp}`,
        body: `Where the work stands (${stamp}):\n\n- [x] Wrote the tests\n- [ ] Shipped the fix\n\nAnything else to check?`,
        category: "agent-lounge",
        intent: "question",
      },
    })
  ).data;
  const reply = (
    await agent.createReply({
      params: { slugOrId: thread.id },
      body: { body: `Check the phone layout too, at 390 pixels (${stamp}).` },
    })
  ).data;
  await poster.client.acceptAnswer({ params: { id: thread.id }, body: { replyId: reply.id } });
  return {
    stamp,
    agentId: signup.agent.id,
    agentName,
    assignedJobId: assigned.id,
    openJobId: open.id,
    openJobTitle,
    threadSlug: thread.slug,
  };
}

const edgesData = () => madeOnce("rough-edges", makeEdges);

/** A job the poster funded, then cancelled: the deposit went back (its refund confirmed on chain). */
async function makeRefunded(): Promise<{ jobId: string; depositTx: string; refundTx: string }> {
  const poster = await signedInHuman(POSTER_KEY);
  const job = (
    await poster.client.createJob({
      body: {
        templateId: "custom-v1",
        title: `Edges refunded ${Date.now()}`,
        description: "Funded, then cancelled.",
        acceptanceCriteria: ["Done"],
        inputData: { budgetType: "bid" },
        budget: "3",
      },
    })
  ).data;
  const { txHash } = await depositToEscrow({
    config: chainConfig(),
    privateKey: POSTER_KEY,
    escrowJobId: escrowJobIdFromWire(job.escrowJobId),
    amount: parseUsdc("3"),
  });
  await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  await poster.client.cancelJob({ params: { id: job.id } });
  let refundTx: string | null | undefined = null;
  for (let i = 0; i < 60 && !refundTx; i += 1) {
    refundTx = (await poster.client.getJob({ params: { id: job.id } })).data.refundTxHash;
    if (!refundTx) await new Promise((r) => setTimeout(r, 500));
  }
  if (!refundTx) throw new Error("the refund was not confirmed");
  return { jobId: job.id, depositTx: txHash, refundTx };
}

/** A job of the poster's in dispute, decided by a named evaluator, with a statement from each side. */
async function makeDisputed(): Promise<{ jobId: string; agentName: string }> {
  const stamp = Date.now();
  const poster = await signedInHuman(POSTER_KEY);
  const agentName = `Edge Disputant ${stamp}`;
  const signup = (
    await apiClient().signUpAgent({ body: { ownerEmail: `edges-dispute-${stamp}@example.test`, name: agentName } })
  ).data;
  const agent = apiClient(signup.apiKey);
  await agent.heartbeat({});
  const job = (
    await poster.client.createJob({
      body: {
        templateId: "custom-v1",
        title: `Edges disputed ${stamp}`,
        description: "Disputed, for the rough-edges spec.",
        acceptanceCriteria: ["Done"],
        inputData: { budgetType: "bid" },
        budget: "4",
        evaluatorAddress: privateKeyToAccount(generatePrivateKey()).address,
      },
    })
  ).data;
  const bid = await agent.placeBid({ params: { id: job.id }, body: { agentId: signup.agent.id, proposedUsdc: "4" } });
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.data.id } });
  await poster.client.disputeJob({ params: { id: job.id }, body: { reason: "Nothing arrived on time." } });
  await poster.client.addDisputeStatement({
    params: { id: job.id },
    body: { body: "The deadline passed without a word.", evidenceUrls: [] },
  });
  await agent.addDisputeStatement({
    params: { id: job.id },
    body: { body: "I asked for the data twice.", evidenceUrls: [] },
  });
  return { jobId: job.id, agentName };
}

/** Enum values people must never read, beyond IDENTIFIERS' SNAKE_CASE; the test node's name; hash jargon. */
const RAW_WORDS = /\b(?:PAYING|PAID|ESCALATED|RULED|DISPUTED|CANCELLED|COMPLETED|Anvil|sha256)\b/;
/** A scope as the API names it, outside code: a person reads what it allows. */
const RAW_SCOPE = /\b(?:jobs|forum|wallet|agents|bids|webhooks):(?:read|write|withdraw|payout)\b/;
/** A whole address in the text, where a name (or a short form with its picture) would do. */
const FULL_ADDRESS = /0x[0-9a-fA-F]{40}(?![0-9a-fA-F])/;

/** The text of main without code (code samples are code on purpose) and without what only screen readers get. */
async function readableText(page: Page): Promise<string> {
  return page.locator("main").evaluate((main) => {
    const copy = main.cloneNode(true) as HTMLElement;
    copy.querySelectorAll("pre, code, .sr-only").forEach((c) => c.remove());
    return copy.textContent ?? "";
  });
}

/** Each transaction hash the page shows, with how many times (the explorer links name them for screen readers). */
async function transactionsShown(page: Page): Promise<Record<string, number>> {
  const text = await page.locator("main").evaluate((main) => main.textContent ?? "");
  const counts: Record<string, number> = {};
  for (const m of text.matchAll(/transaction (0x[0-9a-fA-F]{64})/g))
    counts[m[1]!.toLowerCase()] = (counts[m[1]!.toLowerCase()] ?? 0) + 1;
  return counts;
}

/** With E2E_SCREENSHOTS=1, keeps a full-page screenshot of what was checked (for people to look at). */
async function keep(page: Page, info: TestInfo, name: string) {
  if (!process.env.E2E_SCREENSHOTS) return;
  await page.screenshot({ path: info.outputPath(`${name}.png`), fullPage: true });
}

/** Text a person reads must use words: no field names, enum values, chain ids, API paths or ids. */
const IDENTIFIERS =
  /maxActiveJobs|WAITING_FOR_BUDGET|[A-Z]+_[A-Z_]+|Chain 31337|\/v1\/|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
// A page whose text must keep an identifier on purpose would be listed here, with exactly that text
// (none now: the key help, the rewards guide and the packs' verticals are in words).
const STILL_OPEN: Record<string, RegExp> = {};

test.describe("rough edges", () => {
  test.use({ walletAccountIndex: PERSON_INDEX });

  test("signed out: the home page shows real jobs on the real chain, Post a job says why it asks to sign in, the favicon is served", async ({
    page,
    request,
  }, info) => {
    const d = await edgesData();
    await page.goto("/");
    await keep(page, info, "home-1280");
    // The newest open job is a real one (this spec's), and the chain is named, not numbered.
    await expect(page.getByRole("link", { name: d.openJobTitle })).toBeVisible();
    await expect(page.locator("main")).toContainText("the local chain");
    await expect(page.locator("main")).not.toContainText(/Chain 31337|chain 31337/);
    // A favicon, linked from every page and served.
    const icon = page.locator('head link[rel="icon"]').first();
    const href = await icon.getAttribute("href");
    expect(href).toBeTruthy();
    const served = await request.get(href!);
    expect(served.status()).toBe(200);
    expect(served.headers()["content-type"]).toMatch(/image\//);

    await page.goto("/jobs");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Post a job" }).click();
    await expect(page).toHaveURL(/\/sign-in\?returnTo=%2Fjobs%2Fnew/);
    await expect(page.locator("main")).toContainText("Posting a job needs an account");
    await keep(page, info, "sign-in-post-a-job");

    // The forum's filter bar fits in one row at 1280 px, and an empty result says so in words.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`/forum?q=${encodeURIComponent(`nothing-like-this-${d.stamp}`)}`);
    const bar = page.getByRole("search", { name: "Search the forum" });
    const fits = await bar.evaluate((form) => {
      const tops = [...form.children].map((c) => Math.round(c.getBoundingClientRect().bottom));
      return { oneRow: Math.max(...tops) - Math.min(...tops) <= 8, overflow: form.scrollWidth > form.clientWidth };
    });
    expect(fits).toEqual({ oneRow: true, overflow: false });
    await expect(page.getByText("No threads match")).toBeVisible();
    await keep(page, info, "forum-empty-1280");
  });

  test("signed in as the poster: the right actions on jobs and posts, plural words, headings, labelled task lists, words not identifiers", async ({
    page,
    wallet,
  }, info) => {
    test.setTimeout(120_000);
    const d = await edgesData();
    expect(wallet.address).toBe(anvilAddress(PERSON_INDEX));
    await signInWithWallet(page, `/jobs/${d.assignedJobId}`);

    // The poster of an assigned job is not offered the agent's "Submit the deliverable".
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.getByRole("link", { name: "Submit the deliverable" })).toHaveCount(0);
    await keep(page, info, "job-assigned-poster-1280");

    // The poster's own thread: no vote button on it; the agent's reply can be voted.
    await page.goto(`/forum/${d.threadSlug}`);
    const thread = page.locator("article").first();
    await expect(thread.getByRole("button", { name: /Helpful/ })).toHaveCount(0);
    await expect(
      page.locator("article").filter({ hasText: "Check the phone layout" }).getByRole("button", { name: "Helpful" }),
    ).toBeVisible();
    // "1 reply", never "1 replies".
    await expect(page.locator("main")).toContainText("1 reply ·");
    await expect(page.locator("main")).not.toContainText(/\b1 replies\b/);
    // The only reply is the accepted answer, shown above: no empty "Replies" heading under it.
    await expect(page.getByRole("heading", { name: /^(Other )?[Rr]eplies$/ })).toHaveCount(0);
    // Task-list checkboxes are named by their state.
    await expect(page.getByRole("checkbox", { name: "Done", exact: true })).toHaveCount(1);
    await expect(page.getByRole("checkbox", { name: "Not done" })).toHaveCount(1);
    await keep(page, info, "thread-1280");

    await page.goto("/forum");
    await expect(page.locator("li").filter({ hasText: `Rough edges checklist ${d.stamp}` })).toContainText("1 reply ·");

    // Words, not identifiers, on the pages a poster and owner read.
    const pages: Array<[string, string]> = [
      ["/", "/"],
      ["/jobs", "/jobs"],
      ["/jobs/[id]", `/jobs/${d.openJobId}`],
      ["/jobs/[id]", `/jobs/${d.assignedJobId}`],
      ["/agents/[id]", `/agents/${d.agentId}`],
      ["/agents", "/agents"],
      ["/me/jobs", "/me/jobs"],
      ["/rewards", "/rewards"],
      ["/forum", "/forum"],
      ["/forum/[slug]", `/forum/${d.threadSlug}`],
      ["/packs", "/packs"],
    ];
    for (const [route, url] of pages) {
      await page.goto(url);
      // Code samples (curl for agent builders) are code on purpose; the prose around them is not.
      const text = await page.locator("main").evaluate((main) => {
        const copy = main.cloneNode(true) as HTMLElement;
        copy.querySelectorAll("pre, code").forEach((c) => c.remove());
        return copy.textContent ?? "";
      });
      const tolerated = STILL_OPEN[route];
      expect
        .soft(
          (tolerated ? text.replace(tolerated, "") : text).match(IDENTIFIERS)?.[0],
          `an identifier in the text of ${url}`,
        )
        .toBeUndefined();
    }
  });

  test("signed in as the poster: states, scopes and networks in words, no whole address, each transaction once, a refunded job reads Refunded", async ({
    page,
    wallet,
  }, info) => {
    test.setTimeout(150_000);
    const d = await edgesData();
    const refunded = await madeOnce("rough-edges-refunded", makeRefunded);
    expect(wallet.address).toBe(anvilAddress(PERSON_INDEX));
    await signInWithWallet(page, `/jobs/${refunded.jobId}`);

    // A refunded job says so, and never "Funded" beside "Cancelled".
    const badges = page.locator("main").locator("span", { hasText: /^(Funded|Refunded|Cancelled)$/ });
    await expect(badges.filter({ hasText: /^Refunded$/ }).first()).toBeVisible();
    await expect(badges.filter({ hasText: /^Funded$/ })).toHaveCount(0);
    // The deposit and the refund are each shown once (the timeline points to them).
    const shown = await transactionsShown(page);
    expect(shown[refunded.depositTx.toLowerCase()]).toBe(1);
    expect(shown[refunded.refundTx.toLowerCase()]).toBe(1);
    expect(
      Object.entries(shown).filter(([, n]) => n > 1),
      "a transaction shown twice",
    ).toEqual([]);
    await keep(page, info, "job-refunded-1280");

    // A dispute's statements name their authors, by picture and name, not by an address.
    const disputed = await madeOnce("rough-edges-disputed", makeDisputed);
    await page.goto(`/jobs/${disputed.jobId}`);
    const authors = page.getByTestId("dispute-case").getByTestId("dispute-statement-author");
    await expect(authors).toHaveCount(2);
    await expect(authors.filter({ hasText: `${disputed.agentName} (agent)` })).toHaveCount(1);
    await expect(authors.filter({ hasText: "(poster)" }).getByTestId("avatar")).toBeVisible();

    const pages = [
      `/jobs/${refunded.jobId}`,
      `/jobs/${d.assignedJobId}`,
      `/jobs/${d.openJobId}`,
      `/jobs/${disputed.jobId}`,
      "/jobs",
      "/me/jobs",
      "/cases",
      "/inbox",
      "/settings/notifications",
      "/agents",
      `/agents/${d.agentId}`,
      "/rewards",
      "/rewards/payout",
    ];
    for (const url of pages) {
      await page.goto(url);
      await expect(page.locator("main")).toBeVisible();
      const text = await readableText(page);
      expect.soft(text.match(IDENTIFIERS)?.[0], `an identifier in the text of ${url}`).toBeUndefined();
      expect.soft(text.match(RAW_WORDS)?.[0], `a raw state or jargon in the text of ${url}`).toBeUndefined();
      expect.soft(text.match(RAW_SCOPE)?.[0], `a scope without words in the text of ${url}`).toBeUndefined();
      expect.soft(text.match(FULL_ADDRESS)?.[0], `a whole address in the text of ${url}`).toBeUndefined();
      const twice = Object.entries(await transactionsShown(page)).filter(([, n]) => n > 1);
      expect.soft(twice, `a transaction shown twice on ${url}`).toEqual([]);
    }
  });

  test("on a phone (390 px) the actions of a table stay on screen", async ({ page, wallet }, info) => {
    const d = await edgesData();
    expect(wallet.address).toBe(anvilAddress(PERSON_INDEX));
    await page.setViewportSize({ width: 390, height: 844 });
    await signInWithWallet(page, `/jobs/${d.openJobId}`);
    const accept = page.getByRole("table").filter({ hasText: d.agentName }).getByRole("button", { name: "Accept" });
    // Scroll the page down to the row only: scrolling the table sideways would hide what pinning does.
    await accept.evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 200));
    const box = await accept.boundingBox();
    expect(box, "the Accept button is laid out").toBeTruthy();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await keep(page, info, "job-bids-390");

    await page.goto(`/agents/${d.agentId}`);
    await keep(page, info, "agent-390");
    await page.goto(`/forum/${d.threadSlug}`);
    await keep(page, info, "thread-390");
    await page.goto("/forum");
    await keep(page, info, "forum-390");
  });
});
