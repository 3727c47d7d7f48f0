import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { expect, test, type SecretRecorder } from "./fixtures";
import { apiClient, outboxPath } from "./api-actors";
import { jobField, postJobForm } from "./job-form";

// The dashboard as a new user meets it, in a real browser: a poster signs in with a wallet
// (RainbowKit + SIWE), posts a job, sees an agent's API bid and accepts it; an owner claims an
// agent from the mailed link, pauses it (maxActiveJobs 0) and accepting its bid is then refused
// plainly. Every response the browser receives is scanned for credentials.

/** The iron-session password of the stack under test (generated into its DATA_DIR). */
function addSessionSecret(secrets: SecretRecorder) {
  const file = process.env.E2E_DATA_DIR ? path.join(process.env.E2E_DATA_DIR, "session-secret") : null;
  if (file && existsSync(file)) secrets.addSecret(readFileSync(file, "utf8").trim());
}

async function signInWithWallet(page: Page, returnTo: string) {
  await page.goto(`/sign-in?returnTo=${encodeURIComponent(returnTo)}`);
  await page.getByRole("button", { name: "Connect wallet to sign in" }).click();
  await page.getByRole("button", { name: /Test Wallet/ }).click();
  // Connected: RainbowKit asks for the SIWE signature.
  await page.getByRole("button", { name: /sign message/i }).click();
  await expect(page).toHaveURL(new RegExp(`${returnTo.replace(/[/]/g, "\\/")}$`));
}

async function postJob(page: Page, title: string, description: string, criteria: string) {
  await page.goto("/jobs/new");
  await (await jobField(page, "Title")).fill(title);
  await (await jobField(page, "Description")).fill(description);
  await (await jobField(page, "Acceptance criteria")).fill(criteria);
  await (await jobField(page, "Budget (USDC)")).fill("25");
  await postJobForm(page);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);
  return page.url().split("/").pop()!;
}

/** An agent signs up and bids through the API, as agents do. */
async function agentThatBids(jobId: string, ownerEmail: string, name: string) {
  const signup = await apiClient().signUpAgent({ body: { ownerEmail, name, vertical: "RESEARCH" } });
  const agent = apiClient(signup.data.apiKey);
  await agent.heartbeat({});
  await agent.placeBid({
    params: { id: jobId },
    body: { agentId: signup.data.agent.id, proposedUsdc: "25", coverLetter: `${name} can deliver this in two days.` },
  });
  return signup.data;
}

async function acceptBidOf(page: Page, agentName: string) {
  await page
    .getByRole("row", { name: new RegExp(agentName) })
    .getByRole("button", { name: "Accept" })
    .click();
  const dialog = page.getByRole("dialog", { name: `Accept the bid of ${agentName}?` });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Accept bid" }).click();
}

test("a poster posts a job and accepts an agent's bid; an owner claims an agent, pauses it, and its bid is refused with a clear message", async ({
  page,
  wallet,
  secrets,
}) => {
  void wallet;
  // The wallet is the same anvil account in every run: names unique to this run keep a reused
  // stack (E2E_BASE_URL) from showing a previous run's agents under the same owner.
  const run = Date.now().toString(36);
  const survey = `Survey Bot ${run}`;
  const ownedName = `Owned Bot ${run}`;
  const title = `Map 40 agent marketplaces ${run}`;
  await signInWithWallet(page, "/jobs/new");
  // The session cookie is sealed, httpOnly, and expires with the service's session token.
  const cookie = (await page.context().cookies()).find((c) => c.name === "awm_session");
  expect(cookie?.httpOnly).toBe(true);
  expect(cookie?.value).not.toMatch(/awm_(us|sk)_/);
  // The built-in service's human sessions last 7 days; the cookie ends a minute before the token.
  expect(Math.abs(cookie!.expires - (Date.now() / 1000 + 7 * 24 * 3600 - 60))).toBeLessThan(300);

  // Post a job through the form; a validation error first, tied to its field.
  await (await jobField(page, "Title")).fill(title);
  await (
    await jobField(page, "Description")
  ).fill("List 40 marketplaces where AI agents can find paid work, with fees and payout methods.");
  await (await jobField(page, "Acceptance criteria")).fill("A table with 40 rows\nEach row has a link");
  await (await jobField(page, "Budget (USDC)")).fill("twenty");
  await postJobForm(page);
  await expect(page.locator("#budget-error")).toContainText("USDC amount");
  await expect(page.getByLabel("Budget (USDC)")).toHaveAttribute("aria-describedby", /budget-error/);
  await expect(page.getByLabel("Title")).toHaveValue(title);
  await (await jobField(page, "Budget (USDC)")).fill("25");
  await postJobForm(page);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);
  const jobId = page.url().split("/").pop()!;
  await expect(page.getByRole("link", { name: "Fund this job" })).toHaveAttribute("href", `/jobs/${jobId}/fund`);

  // An agent bids through the API; the poster sees it and accepts it, after confirming.
  const first = await agentThatBids(jobId, `someone-${Date.now()}@example.test`, survey);
  secrets.addSecret(first.apiKey);
  await page.reload();
  const row = page.getByRole("row", { name: new RegExp(survey) });
  await expect(row).toContainText(`${survey} can deliver this in two days.`);
  await expect(row).toContainText("25.00");
  await expect(row).toContainText(/pending/i);
  // Cancelling the dialog changes nothing.
  await row.getByRole("button", { name: "Accept" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
  await expect(row).toContainText(/pending/i);
  await acceptBidOf(page, survey);
  await expect(page.getByRole("row", { name: new RegExp(survey) })).toContainText(/accepted/i);
  await expect(page.getByText("In progress").first()).toBeVisible();

  // My jobs lists it.
  await page.goto("/me/jobs");
  await expect(page.getByRole("row", { name: new RegExp(title) })).toContainText("In progress");

  // The owner claims another agent from the mailed link, pauses it, and its bid is then refused.
  const job2 = await postJob(
    page,
    `Summarise 10 agent postmortems ${run}`,
    "Read ten public postmortems of agent failures and summarise the lessons in a page.",
    "Ten summaries",
  );
  const ownerEmail = `owner-${Date.now()}@example.test`;
  const owned = await agentThatBids(job2, ownerEmail, ownedName);
  secrets.addSecret(owned.apiKey);

  await page.goto(outboxPath());
  const mail = page.getByRole("listitem").filter({ hasText: `To ${ownerEmail}` });
  const link = (await mail.locator("pre").textContent())!.match(/http\S+\/claim\/\S+/)![0];
  await page.goto(link);
  // Before anything is confirmed, the page names the agent the link claims and who will own it.
  await expect(page.getByTestId("claim-agent-name")).toHaveText(ownedName);
  // Named, not identified: the raw agent id is not part of what the owner-to-be reads.
  await expect(page.locator("main")).not.toContainText(owned.agent.id);
  await expect(page.getByTestId("claim-owner-to-be")).toContainText(ownedName);
  await expect(page.getByTestId("claim-owner-to-be")).toContainText(/0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}/);
  await page.getByRole("button", { name: "Claim this agent" }).click();
  await expect(page).toHaveURL(/\/agents\?claimed=/);
  await expect(page.getByRole("status").filter({ hasText: `You now own ${ownedName}` })).toBeVisible();
  const card = page.getByRole("listitem", { name: `Agent ${ownedName}` });
  await expect(card).toContainText("forum:write");
  await expect(card).toContainText("wallet:withdraw");
  await card.getByLabel("Jobs at once").fill("0");
  await card.getByRole("button", { name: "Save" }).click();
  await expect(card.getByRole("status")).toHaveText("Saved: paused.");
  await page.reload();
  await expect(page.getByRole("listitem", { name: `Agent ${ownedName}` })).toContainText("paused");

  // The same link again: already used, said plainly, naming no agent and offering no claim.
  await page.goto(link);
  await expect(page.getByRole("alert").filter({ hasText: "already used" })).toBeVisible();
  await expect(page.getByTestId("claim-agent-name")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Claim this agent" })).toHaveCount(0);

  // The agent's bid list shows the bid with its job's status and funding.
  await page.goto("/agents");
  await page
    .getByRole("listitem", { name: `Agent ${ownedName}` })
    .getByRole("link", { name: ownedName })
    .click();
  const bidRow = page.getByRole("row", { name: new RegExp(`Summarise 10 agent postmortems ${run}`) });
  await expect(bidRow).toContainText("Pending");
  await expect(bidRow).toContainText("Open");
  await expect(bidRow).toContainText("Not funded");

  await page.goto(`/jobs/${job2}`);
  await acceptBidOf(page, ownedName);
  const refused = page.getByRole("row", { name: new RegExp(ownedName) }).getByRole("alert");
  await expect(refused).toContainText(`${ownedName} is at its limit of jobs at once`);
  await expect(refused).toContainText("paused");
  await expect(page.getByRole("row", { name: new RegExp(ownedName) })).toContainText(/pending/i);

  addSessionSecret(secrets);
  await secrets.assertNoLeaks();
});

test("signing in with an agent API key works; cross-site posts to the sign-in action and to sign-out are refused", async ({
  page,
  request,
  baseURL,
  secrets,
}) => {
  const signup = await apiClient().signUpAgent({
    body: { ownerEmail: `csrf-${Date.now()}@example.test`, name: "Key Owner Bot" },
  });
  secrets.addSecret(signup.data.apiKey);

  // Sign in with the key through the page, and keep the server action request it made.
  await page.goto("/sign-in?returnTo=/agents").catch(() => page.goto("/sign-in?returnTo=/agents"));
  await page.getByLabel("Agent API key").fill(signup.data.apiKey);
  const [action] = await Promise.all([
    page.waitForRequest((r) => r.method() === "POST" && Boolean(r.headers()["next-action"])),
    page.getByRole("button", { name: "Sign in with key" }).click(),
  ]);
  await expect(page).toHaveURL(/\/agents$/);
  await expect(page.getByRole("listitem", { name: "Agent Key Owner Bot" })).toBeVisible();
  const cookie = (await page.context().cookies()).find((c) => c.name === "awm_session");
  expect(cookie?.httpOnly).toBe(true);
  expect(cookie?.sameSite).toBe("Lax");
  // An agent key's session lasts a week (iron-session ends the cookie a minute before its seal).
  const weekFromNow = Date.now() / 1000 + 7 * 24 * 3600;
  expect(Math.abs(cookie!.expires - (weekFromNow - 60))).toBeLessThan(300);

  // The same action request, replayed: from another origin it is refused and no session comes
  // back; from this origin it signs in (so the refusal is the Origin check, not a broken replay).
  const headers = await action.allHeaders();
  const replay = (origin: string) =>
    request.post(action.url(), {
      headers: {
        "content-type": headers["content-type"],
        "next-action": headers["next-action"],
        "next-router-state-tree": headers["next-router-state-tree"] ?? "",
        accept: "text/x-component",
        origin,
      },
      data: action.postDataBuffer()!,
      maxRedirects: 0,
    });
  const crossSite = await replay("https://evil.example");
  expect(crossSite.status()).toBeGreaterThanOrEqual(400);
  expect(
    crossSite.headersArray().filter((h) => h.name.toLowerCase() === "set-cookie" && h.value.startsWith("awm_session=")),
  ).toHaveLength(0);
  const sameSite = await replay(new URL(baseURL!).origin);
  expect(sameSite.status()).toBeLessThan(400);
  expect(
    sameSite.headersArray().some((h) => h.name.toLowerCase() === "set-cookie" && h.value.startsWith("awm_session=")),
  ).toBe(true);

  // Sign-out (a route handler): a cross-site POST carrying the visitor's cookie is refused and the
  // visitor stays signed in; the header's own form signs out.
  const forged = await page.request.post("/sign-out", {
    headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    maxRedirects: 0,
  });
  expect(forged.status()).toBe(403);
  expect((await forged.json()).message).toBe("cross-site request refused");
  await page.reload();
  await expect(page.getByRole("listitem", { name: "Agent Key Owner Bot" })).toBeVisible();
  await page.getByRole("banner").getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("banner").getByRole("link", { name: "Sign in" })).toBeVisible();
  await page.goto("/agents");
  await expect(page).toHaveURL(/\/sign-in\?returnTo=%2Fagents$/);

  addSessionSecret(secrets);
  await secrets.assertNoLeaks();
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the jobs board and a job page render and filter", async ({ page, secrets }) => {
    const poster = await apiClient().signUpAgent({
      body: { ownerEmail: `nojs-${Date.now()}@example.test`, name: "No JS Poster" },
    });
    secrets.addSecret(poster.data.apiKey);
    const title = `Read without JavaScript ${Date.now()}`;
    const job = (
      await apiClient(poster.data.apiKey).createJob({
        body: {
          templateId: "custom-v1",
          title,
          description: "A job that must be readable in a browser with JavaScript turned off.",
          acceptanceCriteria: ["Readable"],
          inputData: { budgetType: "bid", proofHoldHours: 24 },
          budget: "5",
        },
      })
    ).data;
    await page.goto("/jobs?funded=false&status=OPEN");
    await expect(page.getByLabel("Status")).toHaveValue("OPEN");
    await page.getByRole("link", { name: title }).click();
    await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);
    await expect(page.getByText("Not funded yet")).toBeVisible();
    addSessionSecret(secrets);
  });
});

test("the outbox through the real server: only with its secret, never through a proxy", async ({
  request,
  baseURL,
}) => {
  const token = encodeURIComponent(process.env.E2E_OUTBOX_TOKEN!);
  const api = (query: string) => new URL(`/v1/dev/outbox${query}`, baseURL).href;
  const refused = async (res: Awaited<ReturnType<typeof request.get>>, code: string) => {
    expect(res.status()).toBe(403);
    const body = await res.text();
    expect(JSON.parse(body).code).toBe(code);
    expect(body).not.toContain("/claim/");
  };
  await refused(await request.get(api("")), "OUTBOX_TOKEN_INVALID");
  await refused(await request.get(api("?token=guess")), "OUTBOX_TOKEN_INVALID");
  await refused(
    await request.get(api(`?token=${token}`), { headers: { "x-forwarded-for": "127.0.0.1, 198.51.100.7" } }),
    "OUTBOX_PROXIED",
  );
  await refused(
    await request.get(api(`?token=${token}`), { headers: { forwarded: "for=198.51.100.7" } }),
    "OUTBOX_PROXIED",
  );
  // Nor can it write the server's own verdict: its x-awm-forwarded and x-awm-client-ip are replaced
  // (twice, so that the second request takes the /v1 fast path, lib/net/service-handler.mjs).
  for (let i = 0; i < 2; i++) {
    await refused(
      await request.get(api(`?token=${token}`), {
        headers: { "x-forwarded-for": "198.51.100.7", "x-awm-forwarded": "0", "x-awm-client-ip": "127.0.0.1" },
      }),
      "OUTBOX_PROXIED",
    );
  }
  // A client cannot speak for the dashboard: a forged signed header changes nothing.
  await refused(
    await request.get(api(`?token=${token}`), {
      headers: { "x-forwarded-for": "127.0.0.1", "x-awm-dashboard-client": `127.0.0.1 0 ${Date.now()} forged` },
    }),
    "OUTBOX_PROXIED",
  );
  expect((await request.get(api(`?token=${token}`))).status()).toBe(200);

  // The page, opened directly with the secret, shows the claim link of a new signup.
  const ownerEmail = `outbox-${Date.now()}@example.test`;
  await apiClient().signUpAgent({ body: { ownerEmail, name: "Outbox Page Agent", vertical: "RESEARCH" } });
  const direct = await request.get(new URL(outboxPath(), baseURL).href);
  expect(direct.status()).toBe(200);
  const shown = await direct.text();
  expect(shown).toContain(ownerEmail);
  expect(shown).toMatch(/\/claim\/awm_cl_/);

  // The page asks the service on the browser's behalf and passes on that the browser came through a proxy.
  const page = await request.get(new URL(outboxPath(), baseURL).href, {
    headers: { "x-forwarded-for": "198.51.100.7" },
  });
  const html = await page.text();
  expect(html).toContain("never answers through a proxy");
  expect(html).not.toContain("/claim/");
});
