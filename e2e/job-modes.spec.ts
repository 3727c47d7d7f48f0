import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { parseUsdc } from "@/lib/chain/units";
import type { ApiClient } from "@/lib/api";
import type { Job } from "@/lib/api/schemas/jobs";
import { apiClient, chainConfig, claimAsOwner, signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { signInWithKey, signInWithWallet } from "./sign-in-steps";
import { jobField, postJobForm } from "./job-form";

// Job modes in the browser: a bounty whose claim lapses, a subcontracted child job done under its
// parent, hiring from a forum thread, and the share page's card.

// anvil's accounts 1 and 2: the injected wallet is account 1 (the poster); account 2 pays for the
// agent's child job, as any wallet may.
const POSTER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;
const SPONSOR_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a" as const;

async function fund(poster: ApiClient, job: Job, key: `0x${string}` = POSTER_KEY) {
  const { txHash } = await depositToEscrow({
    config: chainConfig(),
    privateKey: key,
    escrowJobId: escrowJobIdFromWire(job.escrowJobId),
    amount: parseUsdc(job.budgetUsdc),
  });
  await poster.registerEscrow({ params: { id: job.id }, body: { txHash } });
}

async function activeAgent(
  name: string,
  maxActiveJobs?: number,
  ownerEmail = `${name.toLowerCase().replace(/\W+/g, "-")}-${Date.now()}@example.test`,
) {
  const signup = (await apiClient().signUpAgent({ body: { ownerEmail, name } })).data;
  const client = apiClient(signup.apiKey);
  await client.heartbeat({});
  await client.updateAgent({
    params: { id: signup.agent.id },
    body: {
      walletAddress: privateKeyToAccount(generatePrivateKey()).address,
      ...(maxActiveJobs !== undefined ? { maxActiveJobs } : {}),
    },
  });
  return { id: signup.agent.id, apiKey: signup.apiKey, client };
}

const jobBody = (title: string, extra: Record<string, unknown> = {}) => ({
  templateId: "custom-v1" as const,
  title,
  description: "A piece of research delivered as a public page, checked by the prober.",
  acceptanceCriteria: ["The page is public"],
  inputData: { budgetType: "bid" as const, proofHoldHours: 0 },
  budget: "10",
  ...extra,
});

test("a bounty posted in the browser is claimed, the claim lapses, and the job reopens with the agent's place free", async ({
  page,
  wallet,
}) => {
  test.setTimeout(150_000);
  const poster = await signedInHuman(POSTER_KEY);
  expect(poster.address).toBe(wallet.address);
  await signInWithWallet(page, "/jobs/new");
  const title = `Bounty: label 200 images ${Date.now()}`;
  await (await jobField(page, "Title")).fill(title);
  await (
    await jobField(page, "Description")
  ).fill("Label 200 product images with their category and post the labels as a public CSV page.");
  await (await jobField(page, "Acceptance criteria")).fill("Every image has a label");
  await (await jobField(page, "Budget (USDC)")).fill("15");
  await (await jobField(page, "Mode")).selectOption("BOUNTY");
  await (await jobField(page, "Claim window (minutes, bounties)")).fill("1");
  // A machine check with a bad status is refused under its field; the form keeps what was typed.
  await (await jobField(page, "Check 1: what it proves")).fill("The labels page is online");
  await (await jobField(page, "Check 1: HTTP status")).fill("2OO");
  await postJobForm(page);
  await expect(page.getByLabel("Check 1: HTTP status")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("An HTTP status from 100 to 599, e.g. 200")).toBeVisible();
  await expect(page.getByLabel("Title")).toHaveValue(title);
  await expect(page.getByLabel("Mode")).toHaveValue("BOUNTY");
  await (await jobField(page, "Check 1: HTTP status")).fill("200");
  await postJobForm(page);
  await expect(page.getByRole("heading", { name: title })).toBeVisible();
  await expect(page.getByRole("listitem").filter({ hasText: "Every image has a label" })).toContainText(
    "ticked by the poster",
  );
  await expect(page.getByRole("listitem").filter({ hasText: "The labels page is online" })).toContainText("HTTP 200");
  await expect(page.getByText("Bounty", { exact: true })).toBeVisible();
  await expect(page.getByTestId("claim-state")).toContainText("Nobody holds it");
  const jobId = page.url().split("/jobs/")[1]!;

  // An agent with room for one job (owned by the poster here) claims it through the API; the page
  // shows the claim and its countdown, and the owner's agent page shows it as the agent's work.
  const ownerEmail = `claim-bot-${Date.now()}@example.test`;
  const agent = await activeAgent("Claim Bot", 1, ownerEmail);
  await claimAsOwner(poster.client, ownerEmail);
  const claimed = (await agent.client.claimJob({ params: { id: jobId }, body: { agentId: agent.id } })).data;
  expect(claimed).toMatchObject({ status: "IN_PROGRESS", agentId: agent.id });
  expect((await agent.client.getMyAgent({})).data.activeJobs).toBe(1);
  await page.reload();
  await expect(page.getByTestId("claim-state")).toContainText("Claimed by Claim Bot");
  await expect(page.getByTestId("claim-state")).toContainText(/ends in (\d+s|1m 00s)/);
  await page.goto(`/agents/${agent.id}`);
  await expect(page.getByText("Active jobs: 1 of 1")).toBeVisible();
  const work = page.getByRole("list", { name: "Assigned work" }).getByRole("listitem").filter({ hasText: title });
  await expect(work).toContainText("In progress");
  await expect(work).toContainText(/claim ends in \d+s/);
  // A second agent is refused while the claim holds.
  const rival = await activeAgent("Rival Bot");
  await expect(rival.client.claimJob({ params: { id: jobId }, body: { agentId: rival.id } })).rejects.toMatchObject({
    status: 409,
    code: "ALREADY_CLAIMED",
  });

  // The window runs out without a submission: the job is open again and the agent's place is free.
  const msLeft = new Date(claimed.claimExpiresAt!).getTime() - Date.now();
  // (A read of the job applies its lapse at once; the agent's own reads see it once the job has been
  // read or the lapse worker has run, within 30 s: so the job page comes first.)
  await page.waitForTimeout(Math.max(0, msLeft) + 1500);
  await page.goto(`/jobs/${jobId}`);
  await expect(page.getByTestId("claim-state")).toContainText("Nobody holds it");
  await expect(page.getByText("Assigned to", { exact: true }).locator("..")).toContainText("nobody yet");
  // "In progress" is left only as a step the stepper names, and not the current one.
  const stepper = page.getByTestId("job-stepper");
  await expect(stepper.locator('[aria-current="step"]')).not.toContainText("In progress");
  await expect(stepper.getByText("In progress")).toHaveCount(1);
  await expect(page.getByText("In progress")).toHaveCount(1);
  await page.goto(`/agents/${agent.id}`);
  await expect(page.getByText("Active jobs: 0 of 1")).toBeVisible();
  await expect(
    page.getByRole("list", { name: "Assigned work" }).getByRole("listitem").filter({ hasText: title }),
  ).toHaveCount(0);
  expect((await agent.client.getMyAgent({})).data.activeJobs).toBe(0);
  const other = (
    await poster.client.createJob({
      body: jobBody(`Second bounty ${Date.now()}`, { participationMode: "BOUNTY", claimWindowMinutes: 30 }),
    })
  ).data;
  expect((await agent.client.claimJob({ params: { id: other.id }, body: { agentId: agent.id } })).data.status).toBe(
    "IN_PROGRESS",
  );
});

test("an agent subcontracts part of its job from the browser; the child is funded and completed, and the poster sees it under the parent", async ({
  page,
  browser,
  baseURL,
  wallet,
}) => {
  test.setTimeout(120_000);
  const poster = await signedInHuman(POSTER_KEY);
  expect(poster.address).toBe(wallet.address);
  const parent = (
    await poster.client.createJob({
      body: jobBody(`Parent: market study ${Date.now()}`, { allowSubcontracting: true, budget: "30" }),
    })
  ).data;
  await fund(poster.client, parent);
  const lead = await activeAgent("Lead Bot");
  const bid = (
    await lead.client.placeBid({ params: { id: parent.id }, body: { agentId: lead.id, proposedUsdc: "30" } })
  ).data;
  await poster.client.acceptBid({ params: { jobId: parent.id, bidId: bid.id } });
  const closed = (await poster.client.createJob({ body: jobBody(`No subcontracting ${Date.now()}`) })).data;
  await fund(poster.client, closed);
  const closedBid = (
    await lead.client.placeBid({ params: { id: closed.id }, body: { agentId: lead.id, proposedUsdc: "10" } })
  ).data;
  await poster.client.acceptBid({ params: { jobId: closed.id, bidId: closedBid.id } });

  // The lead agent, signed in with its key, posts a child job from the parent's page.
  const leadContext = await browser.newContext({ baseURL });
  const leadPage = await leadContext.newPage();
  await signInWithKey(leadPage, lead.apiKey, `/jobs/${parent.id}`);
  await leadPage.getByRole("link", { name: "Post a child job" }).click();
  await expect(leadPage.getByRole("heading", { name: "Post a child job" })).toBeVisible();
  const childTitle = `Child: collect pricing pages ${Date.now()}`;
  await (await jobField(leadPage, "Title")).fill(childTitle);
  await (
    await jobField(leadPage, "Description")
  ).fill("Collect the pricing pages of 20 competitors and list them on a public page.");
  await (await jobField(leadPage, "Acceptance criteria")).fill("20 pricing pages listed");
  await (await jobField(leadPage, "Budget (USDC)")).fill("8");
  await (await jobField(leadPage, "Proof hold (hours)")).fill("0");
  await postJobForm(leadPage);
  await expect(leadPage.getByRole("heading", { name: childTitle })).toBeVisible();
  await expect(leadPage.getByRole("link", { name: "the parent job" })).toHaveAttribute("href", `/jobs/${parent.id}`);
  const childId = leadPage.url().split("/jobs/")[1]!;

  // A job that does not allow subcontracting refuses a child, said plainly.
  await leadPage.goto(`/jobs/new?parent=${closed.id}`);
  await (await jobField(leadPage, "Title")).fill(`Refused child ${Date.now()}`);
  await (
    await jobField(leadPage, "Description")
  ).fill("This child job must be refused because its parent does not allow it.");
  await (await jobField(leadPage, "Acceptance criteria")).fill("Refused");
  await (await jobField(leadPage, "Budget (USDC)")).fill("5");
  await postJobForm(leadPage);
  await expect(leadPage.getByRole("alert").filter({ hasText: "did not accept the job" })).toContainText(/subcontract/i);
  await leadContext.close();

  // The child is funded (by any wallet), done by another agent and approved by the lead agent.
  const child = (await lead.client.getJob({ params: { id: childId } })).data;
  expect(child.parentJobId).toBe(parent.id);
  await fund(lead.client, child, SPONSOR_KEY);
  const helper = await activeAgent("Helper Bot");
  const helperBid = (
    await helper.client.placeBid({ params: { id: child.id }, body: { agentId: helper.id, proposedUsdc: "8" } })
  ).data;
  await lead.client.acceptBid({ params: { jobId: child.id, bidId: helperBid.id } });
  const site = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end("<title>Pricing pages</title><h1>20 pricing pages</h1>"),
  );
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  try {
    await helper.client.submitDeliverable({
      params: { id: child.id },
      body: { outputData: { url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/pricing` } },
    });
    const approved = (await lead.client.approveJob({ params: { id: child.id } })).data;
    expect(approved.status).toBe("COMPLETED");
  } finally {
    site.close();
  }

  // The poster sees the tree under the parent: the child, funded and completed.
  await signInWithWallet(page, `/jobs/${parent.id}`);
  const tree = page.getByRole("list", { name: "Job tree" });
  await expect(tree).toContainText(parent.title);
  const childRow = tree.getByRole("listitem").filter({ hasText: childTitle });
  await expect(childRow).toContainText("Completed");
  await expect(childRow).toContainText("Funded");
});

// Its own anvil account (7): the thread author posts two threads here, and the forum allows three
// an hour per identity, so no other spec (or a retry) may share it.
const FORUM_AUTHOR_KEY = "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356" as const;

test.describe("hiring from the forum and sharing", () => {
  test.use({ walletAccountIndex: 7 });

  test("a job hired from a forum thread shows on the thread and the thread on the job; the share page carries the card, and a non-shareable job has none", async ({
    page,
    request,
    wallet,
  }) => {
    const poster = await signedInHuman(FORUM_AUTHOR_KEY);
    expect(poster.address).toBe(wallet.address);
    const thread = (
      await poster.client.createThread({
        body: {
          title: `Who can benchmark our retrieval agent ${Date.now()}`,
          body: "We need someone to benchmark our retrieval agent against three baselines and publish the numbers.",
          category: "benchmarks",
        },
      })
    ).data;

    await signInWithWallet(page, `/forum/${thread.slug}`);
    await page.getByRole("link", { name: "Post a hiring job from this thread" }).click();
    await expect(page.getByText("Hiring from the forum")).toBeVisible();
    const title = `Benchmark our retrieval agent ${Date.now()}`;
    await (await jobField(page, "Title")).fill(title);
    await (
      await jobField(page, "Description")
    ).fill("Benchmark our retrieval agent against three baselines and publish a public report.");
    await (await jobField(page, "Acceptance criteria")).fill("Three baselines compared");
    await (await jobField(page, "Budget (USDC)")).fill("45");
    await postJobForm(page);
    await expect(page.getByRole("heading", { name: title })).toBeVisible();
    const jobId = page.url().split("/jobs/")[1]!;
    await expect(page.getByTestId("source-discussion")).toBeVisible();

    await expect(page.getByTestId("source-discussion")).toContainText("hired from the forum");
    await page.getByTestId("source-discussion").getByRole("link", { name: thread.title }).click();
    await expect(page.getByRole("heading", { name: thread.title })).toBeVisible();
    await expect(page.getByTestId("thread-job")).toContainText("Hiring: this discussion has a job");
    await expect(page.getByTestId("thread-job")).toContainText(title);
    await expect(page.getByTestId("thread-job")).toContainText("Not funded");
    await page.getByRole("link", { name: "see the job" }).click();
    await expect(page).toHaveURL(new RegExp(`/jobs/${jobId}$`));

    // The author of another thread links a job they had already posted, from the thread page.
    const other = (
      await poster.client.createThread({
        body: {
          title: `Looking for a data labeller ${Date.now()}`,
          body: "We have 500 support tickets to label by topic; who can do it this week?",
          category: "jobs-opportunities",
        },
      })
    ).data;
    const existing = (await poster.client.createJob({ body: jobBody(`Label 500 support tickets ${Date.now()}`) })).data;
    await page.goto(`/forum/${other.slug}`);
    const linkForm = page.getByRole("form", { name: "Link a hiring job" });
    await linkForm.getByLabel("Or link a job you posted").selectOption(existing.id);
    await linkForm.getByRole("button", { name: "Link the job" }).click();
    await expect(page.getByTestId("thread-job")).toContainText(existing.title);
    await expect((await poster.client.getThread({ params: { slugOrId: other.id } })).data).toMatchObject({
      linkedJobId: existing.id,
      jobContextKind: "HIRING",
    });
    await page.getByTestId("thread-job").getByRole("link", { name: "see the job" }).click();
    await expect(page.getByTestId("source-discussion").getByRole("link", { name: other.title })).toBeVisible();
    expect((await poster.client.getJob({ params: { id: existing.id } })).data.funded).toBe(false);

    // Hiring the author of a reply: the job carries the reply and its thread, and links to the reply.
    const replier = await signedInHuman();
    const reply = (
      await replier.client.createReply({
        params: { slugOrId: other.id },
        body: { body: "I label tickets by topic every week; I can take all 500 by Friday." },
      })
    ).data;
    await page.goto(`/forum/${other.slug}`);
    await page.locator(`#reply-${reply.id}`).getByRole("link", { name: "Hire from this reply" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Hiring from the forum" })).toContainText(
      "reply in the thread",
    );
    const replyJobTitle = `Label the tickets, as offered ${Date.now()}`;
    await (await jobField(page, "Title")).fill(replyJobTitle);
    await (
      await jobField(page, "Description")
    ).fill("Label our 500 support tickets by topic, as offered in your reply, and publish the labels.");
    await (await jobField(page, "Acceptance criteria")).fill("All 500 tickets labelled");
    await (await jobField(page, "Budget (USDC)")).fill("20");
    await postJobForm(page);
    await expect(page.getByRole("heading", { name: replyJobTitle })).toBeVisible();
    await expect(page.getByTestId("source-discussion")).toContainText("hired from the forum reply in");
    await expect(page.getByTestId("source-discussion").getByRole("link", { name: other.title })).toHaveAttribute(
      "href",
      `/forum/${other.slug}#reply-${reply.id}`,
    );
    const replyJob = (await poster.client.getJob({ params: { id: page.url().split("/jobs/")[1]! } })).data;
    expect(replyJob).toMatchObject({ sourceForumThreadId: other.id, sourceForumReplyId: reply.id });
    await page.goto(`/jobs/${jobId}`);

    // Sharing: the share button counts the share and opens the public share page with its card.
    await page.getByRole("button", { name: "Share this job" }).click();
    await expect(page).toHaveURL(new RegExp(`/share/jobs/${jobId}\\?shared=1$`));
    await expect(page.getByRole("heading", { name: title })).toBeVisible();
    await expect(page.getByText("45.00 USDC · not funded yet")).toBeVisible();
    expect((await poster.client.getJob({ params: { id: jobId } })).data.shareCount).toBe(1);
    const meta = (name: string) => page.locator(`meta[property="${name}"], meta[name="${name}"]`).first();
    await expect(meta("og:title")).toHaveAttribute("content", title);
    await expect(meta("og:description")).toHaveAttribute("content", /45\.00 USDC · not funded yet/);
    await expect(meta("twitter:card")).toHaveAttribute("content", "summary");
    await expect(meta("twitter:title")).toHaveAttribute("content", title);
    // What a link-preview crawler fetches: the card is in the server's HTML head, no script needed.
    const crawled = await request.get(`/share/jobs/${jobId}`, { headers: { "user-agent": "Twitterbot/1.0" } });
    expect(crawled.status()).toBe(200);
    const head = (await crawled.text()).split("</head>")[0]!;
    expect(head).toContain(`<meta property="og:title" content="${title}"/>`);
    expect(head).toContain(`<meta name="twitter:card" content="summary"/>`);
    expect(head).toMatch(/<meta property="og:description" content="45\.00 USDC · not funded yet/);

    const hidden = (
      await poster.client.createJob({ body: jobBody(`Private job ${Date.now()}`, { isPubliclyShareable: false }) })
    ).data;
    const res = await request.get(`/share/jobs/${hidden.id}`);
    expect(res.status()).toBe(404);
    const html = await res.text();
    expect(html).not.toContain('property="og:title"');
    expect(html).not.toContain(hidden.title);
    await page.goto(`/jobs/${hidden.id}`);
    await expect(page.getByRole("button", { name: "Share this job" })).toHaveCount(0);
  });
});
