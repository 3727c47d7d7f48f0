import type { Locator, Page } from "@playwright/test";
import { getAddress } from "viem";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { parseUsdc } from "@/lib/chain/units";
import { apiClient, chainConfig } from "./api-actors";
import { expect, test } from "./fixtures";
import { signInWithKey } from "./sign-in-steps";

// Certification packs in the browser: an agent signed in with its key finds the free seeded pack
// ("Marketplace basics", 4 of 5 to pass), fails an attempt, passes the next, and its page lists
// the certification; a paid pack explains its on-chain price and shows the service's refusals; the
// browser wallet pays a paid pack and signs the payment message, and the attempt starts.

/** The seeded pack's questions (lib/service/db/migrations/0006-evals.ts), in order: the right choice and a wrong one. */
const QUESTIONS = [
  { right: /one bid per agent per job, forever/, wrong: /a withdrawn bid no longer counts/ },
  { right: /The job is unfunded/, wrong: /paid by card instead/ },
  { right: /proposedUsdc must equal the locked budget/, wrong: /proposerUsdc/ },
  { right: /POST \/v1\/agents\/heartbeat/, wrong: /must fund an escrow/ },
  { right: /public HTTPS page that stays live/, wrong: /behind a login/ },
] as const;
const QUESTION_GROUP = { name: /^Question \d of 5$/ };

async function newAgent(name: string) {
  const signup = (
    await apiClient().signUpAgent({
      body: { ownerEmail: `packs-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`, name },
    })
  ).data;
  await apiClient(signup.apiKey).heartbeat({});
  return { id: signup.agent.id, name, apiKey: signup.apiKey };
}

/** The radio of the question that holds `choice` (choices are unique across the pack). */
function choice(page: Page, text: RegExp): Locator {
  return page.getByRole("radio", { name: text });
}

/** Answers the open attempt with exactly `correct` right answers, and submits. */
async function answer(page: Page, correct: number) {
  for (const [i, q] of QUESTIONS.entries()) await choice(page, i < correct ? q.right : q.wrong).check();
  await page.getByRole("button", { name: "Submit answers" }).click();
}

test("an agent fails the free pack, passes on its next attempt, and its page shows the certification", async ({
  page,
  secrets,
}) => {
  test.setTimeout(120_000);
  const agent = await newAgent(`Pack Taker ${Date.now()}`);
  secrets.addSecret(agent.apiKey);
  await signInWithKey(page, agent.apiKey, "/packs");

  // The list: every pack with its price, question count and pass mark.
  await expect(page.getByRole("heading", { level: 1, name: "Certification packs" })).toBeVisible();
  const free = page.getByRole("listitem", { name: "Marketplace basics" });
  await expect(free.getByText("Free", { exact: true })).toBeVisible();
  await expect(free).toContainText("Questions5");
  await expect(free).toContainText("Pass mark4 of 5");
  const paid = page.getByRole("listitem", { name: "Lead generation verified" });
  await expect(paid).toContainText("5.00");
  await expect(paid).toContainText("Lead gen");

  await free.getByRole("link", { name: "Marketplace basics" }).click();
  await expect(page).toHaveURL(/\/packs\/marketplace-basics$/);
  await expect(page.getByRole("heading", { level: 1, name: "Marketplace basics" })).toBeVisible();
  await expect(page.getByText("4 of 5 correct")).toBeVisible();
  await expect(page.getByText("No attempts at this pack yet.")).toBeVisible();

  // First attempt: nothing answered is refused with a clear message; then 3 of 5 fails.
  await page.getByRole("button", { name: "Take this pack" }).click();
  await expect(page).toHaveURL(/\/packs\/attempts\/[0-9a-f-]{36}$/);
  const firstAttempt = page.url();
  await expect(page.getByRole("group", QUESTION_GROUP)).toHaveCount(5);
  await expect(page.getByText("In progress", { exact: true })).toBeVisible();
  await choice(page, QUESTIONS[0].right).check();
  await page.getByRole("button", { name: "Submit answers" }).click();
  const refusal = page.getByRole("alert").filter({ hasText: "Some questions have no answer" });
  await expect(refusal).toContainText("4 questions have no answer yet");
  await expect(page.getByText("Choose an answer to this question.")).toHaveCount(4);
  // The answer given is kept.
  await expect(choice(page, QUESTIONS[0].right)).toBeChecked();

  await answer(page, 3);
  await expect(page.getByRole("heading", { name: "Result" })).toBeVisible();
  await expect(page.getByText("Failed: not certified")).toBeVisible();
  // A failure's score is not told: results differing by one answer would give the key away.
  await expect(page.getByLabel(/^Score /)).toHaveCount(0);
  await expect(page.getByText("Failed", { exact: true })).toBeVisible();
  await expect(page.getByRole("group", QUESTION_GROUP)).toHaveCount(0);
  // When the next attempt may start (the e2e stack's cooldown is seconds; 10 minutes by default).
  await expect(page.getByTestId("retry-at")).toBeVisible();

  // The pack page lists the failed attempt and the cooldown, with no way to start before it ends.
  await page.getByRole("link", { name: "Try again" }).click();
  await expect(page).toHaveURL(/\/packs\/marketplace-basics$/);
  const attempts = page.getByRole("table", { name: "Attempts at Marketplace basics" });
  await expect(attempts.getByRole("row")).toHaveCount(2);
  await expect(attempts).toContainText("Failed");
  await expect(attempts).not.toContainText("3 of 5");
  await expect(page.getByTestId("pack-cooldown")).toContainText(
    "1 failed attempt in a row; the next attempt may start at",
  );
  await expect(page.getByRole("button", { name: "Take this pack" })).toHaveCount(0);
  // After the cooldown a new attempt passes with every answer right.
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole("button", { name: "Take this pack" })).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await page.getByRole("button", { name: "Take this pack" }).click();
  await expect(page).toHaveURL(/\/packs\/attempts\/[0-9a-f-]{36}$/);
  expect(page.url()).not.toBe(firstAttempt);
  await answer(page, 5);
  await expect(page.getByText("Passed: certification granted")).toBeVisible();
  await expect(page.getByLabel("Score 5 of 5")).toBeVisible();

  // The agent's page lists the certification, linking to the pack.
  await page.getByRole("link", { name: "See the agent's certifications" }).click();
  await expect(page).toHaveURL(new RegExp(`/agents/${encodeURIComponent(agent.id)}$`));
  await expect(page.getByRole("heading", { level: 1, name: agent.name })).toBeVisible();
  const certifications = page.getByRole("list", { name: "Certifications" });
  await expect(certifications.getByRole("link", { name: "Marketplace basics" })).toBeVisible();
  await expect(certifications).toContainText("5 of 5");

  // Certified: no retake is offered, and the list marks the pack.
  await certifications.getByRole("link", { name: "Marketplace basics" }).click();
  await expect(page.getByText(`Certified: ${agent.name} holds this pack`)).toBeVisible();
  await expect(page.getByRole("button", { name: "Take this pack" })).toHaveCount(0);
  await expect(page.getByRole("table", { name: "Attempts at Marketplace basics" }).getByRole("row")).toHaveCount(3);
  await page.goto("/packs");
  await expect(
    page.getByRole("listitem", { name: "Marketplace basics" }).getByText("Certified", { exact: true }),
  ).toBeVisible();

  // Someone else's attempt is not shown to this agent.
  const other = await newAgent(`Other Taker ${Date.now()}`);
  const otherAttempt = (
    await apiClient(other.apiKey).startEvalAttempt({ params: { id: "marketplace-basics" }, body: {} })
  ).data;
  await page.goto(`/packs/attempts/${otherAttempt.id}`);
  await expect(page.getByRole("alert").filter({ hasText: "This attempt belongs to another agent" })).toBeVisible();

  await secrets.assertNoLeaks();
});

test("a paid pack explains its on-chain price, and a start without a valid payment shows why", async ({ page }) => {
  const agent = await newAgent(`Paid Pack Reader ${Date.now()}`);
  await page.goto("/packs/lead-generation-verified");
  await expect(page.getByRole("heading", { level: 1, name: "Lead generation verified" })).toBeVisible();
  await expect(page.getByText(/Each attempt costs 5 USDC, paid on chain/)).toBeVisible();
  await expect(page.getByText("Pay to (pack treasury)")).toBeVisible();
  // Signed out: the way in is signing in.
  await expect(page.getByRole("link", { name: "Sign in to take this pack" })).toBeVisible();

  await signInWithKey(page, agent.apiKey, "/packs/lead-generation-verified");
  const hash = page.getByLabel("Payment transaction hash");
  await hash.fill("0x1234");
  await page.getByRole("button", { name: "Start the paid attempt" }).click();
  // The form is checked with the service's own request schema (StartEvalAttemptRequest), so it says what the service would.
  await expect(page.getByText("must be a transaction hash (0x followed by 64 hex digits)")).toBeVisible();

  // A hash without the payer's signature is not a payment.
  await page.getByLabel("Payment transaction hash").fill(`0x${"ab".repeat(32)}`);
  await expect(page.getByLabel("Message to sign")).toContainText(`Agent: ${agent.id}`);
  await page.getByRole("button", { name: "Start the paid attempt" }).click();
  await expect(page.getByText(/Paste the signature of the message below/)).toBeVisible();

  // A well-formed hash of no transaction: the service's refusal, as it worded it.
  await page.getByLabel("Payment signature").fill(`0x${"cd".repeat(65)}`);
  await page.getByRole("button", { name: "Start the paid attempt" }).click();
  const refusal = page.getByRole("alert").filter({ hasText: "The attempt could not be started" });
  await expect(refusal).toContainText("PAYMENT_TX_NOT_FOUND");
  await expect(page).toHaveURL(/\/packs\/lead-generation-verified$/);
  await expect(page.getByText("No attempts at this pack yet.")).toBeVisible();
});

test("the browser wallet pays a paid pack to the treasury and signs for the agent; the attempt starts, paid", async ({
  page,
  wallet,
}) => {
  test.setTimeout(120_000);
  const agent = await newAgent(`Paid Pack Taker ${Date.now()}`);
  const payment = (await apiClient().getEvalPack({ params: { id: "lead-generation-verified" } })).data.payment!;
  const treasury = getAddress(payment.payTo);
  expect(treasury).not.toBe(getAddress(chainConfig().escrowAddress));
  const before = await erc20BalanceOf({ config: chainConfig(), address: treasury });

  await signInWithKey(page, agent.apiKey, "/packs/lead-generation-verified");
  await page.getByRole("button", { name: "Pay 5 USDC and sign with your browser wallet" }).click();
  await expect(page).toHaveURL(/\/packs\/attempts\/[0-9a-f-]{36}$/, { timeout: 60_000 });
  await expect(page.getByRole("group", QUESTION_GROUP)).toHaveCount(5);

  expect((await erc20BalanceOf({ config: chainConfig(), address: treasury })) - before).toBe(parseUsdc("5"));
  const attempt = (await apiClient(agent.apiKey).listEvalAttempts({ query: {} })).data[0]!;
  expect(attempt).toMatchObject({ paid: true, amountUsdc: "5", payerAddress: wallet.address });
  // The wallet was asked to send one transfer and to sign one message.
  expect(wallet.calls.filter((c) => c.method === "eth_sendTransaction")).toHaveLength(1);
  expect(wallet.calls.filter((c) => c.method === "personal_sign")).toHaveLength(1);
});
