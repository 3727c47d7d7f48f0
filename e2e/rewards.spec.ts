import type { Page } from "@playwright/test";
import { getAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { parseUsdc } from "@/lib/chain/units";
import { uniqueText } from "@/lib/testing/unique-text";
import { apiClient, chainConfig, claimAsOwner, signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { claimAgentFromMail, signInWithKey, signInWithWallet } from "./sign-in-steps";

// Forum rewards in the browser, tried as a new owner would, against the local stack: the payout
// address set on the payout page, threads written on the forum's page, each review and receipt read
// on the rewards page, and the money measured on chain.

/** anvil's account 9: the stack's reward admin (REWARDS_ADMIN_ADDRESSES in scripts/e2e-stack.ts). */
const REWARDS_ADMIN_KEY = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6" as const;

const balanceOf = (address: `0x${string}`) => erc20BalanceOf({ config: chainConfig(), address });

/**
 * The operator adds budget of a kind: enough for every reward already waiting (they are paid
 * oldest first) and `spare` more, so the ones this spec earns are paid at once.
 */
async function addBudget(kind: "THREAD" | "REFERRAL", spare = 2) {
  const admin = await signedInHuman(REWARDS_ADMIN_KEY);
  const waiting = (await admin.client.getForumRewards({})).data.kinds.find((k) => k.kind === kind)!.waitingRewards;
  await admin.client.createRewardCampaign({ body: { kind, slots: waiting + spare } });
}

async function writeThread(page: Page, title: string, body: string) {
  await page.goto("/forum/new");
  await page.getByLabel("Title").fill(title);
  await page.getByLabel("Post").fill(body);
  await page.getByRole("button", { name: "Publish thread" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);
  return page.url().split("/").pop()!;
}

/**
 * The signed-in person claims a new agent from the link mailed to them, in the browser: a verified
 * email, which a first reward needs (or an account 72 hours old).
 */
async function claimAnAgent(page: Page) {
  const ownerEmail = `rewarded-owner-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
  await apiClient().signUpAgent({ body: { ownerEmail, name: "Agent of a rewarded owner" } });
  await claimAgentFromMail(page, ownerEmail);
}

/** The rewards page's row for a thread (found by its title), reloaded until its status reads `status`. */
async function rewardRow(page: Page, title: string, status: RegExp) {
  const row = page.getByTestId("reward-row").filter({ hasText: title });
  await expect(async () => {
    await page.goto("/rewards");
    await expect(row.first()).toContainText(status, { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  return row.first();
}

test.describe("a new owner's forum rewards", () => {
  // An account no other spec signs in with: a new owner, no thread yet. Its browser is its own
  // network (rewards allow one per kind per network a day; the stack believes X-Forwarded-For).
  test.use({ walletAccountIndex: 8, extraHTTPHeaders: { "x-forwarded-for": "127.61.0.1" } });

  test("sets a checksummed payout address, is paid 0.095 USDC for a first 400-character thread, nothing for a second, and sees a 399-character thread declined with the reason", async ({
    page,
    wallet,
  }) => {
    await addBudget("THREAD");
    await signInWithWallet(page, "/rewards/payout");

    // The payout page: what it applies to, the connected wallet as a one-click choice, checksum validation.
    await expect(page.getByTestId("payout-current")).toContainText("managed wallet");
    await expect(page.getByTestId("payout-applies-to")).toContainText("future unreserved rewards only");
    await page.getByRole("button", { name: "Use my connected wallet" }).click();
    await expect(page.getByLabel(/Payout address on/)).toHaveValue(wallet.address);
    const payout = privateKeyToAccount(generatePrivateKey()).address;
    const field = page.getByLabel(/Payout address on/);
    // A mixed-case address with one letter's case flipped fails its EIP-55 checksum.
    const flipped =
      payout.replace(/[a-f]/, (c) => c.toUpperCase()) === payout
        ? payout.replace(/[A-F]/, (c) => c.toLowerCase())
        : payout.replace(/[a-f]/, (c) => c.toUpperCase());
    await field.fill(flipped);
    await expect(page.getByText("does not match the address's EIP-55 checksum")).toBeVisible();
    await expect(page.getByRole("button", { name: "Save payout address" })).toBeDisabled();
    await field.fill(payout.toLowerCase());
    await expect(page.getByTestId("checksummed")).toContainText(getAddress(payout));
    await page.getByRole("button", { name: "Save payout address" }).click();
    await expect(page.getByText("Payout setting saved")).toBeVisible();
    await expect(page.getByTestId("payout-current")).toContainText(getAddress(payout));

    const before = await balanceOf(payout);
    await claimAnAgent(page);

    // 399 characters: declined, and the rewards page says why.
    const short = `Short of the mark ${Date.now()}`;
    await writeThread(page, short, uniqueText(399));
    const declined = await rewardRow(page, short, /declined/);
    await expect(declined.getByTestId("declined-reason")).toContainText("at least 400 characters");
    await expect(declined.getByTestId("declined-reason")).toContainText("399");

    // 400 characters: paid the THREAD net amount to the payout address, with the transaction as receipt.
    const first = `My first useful thread ${Date.now()}`;
    await writeThread(page, first, uniqueText(400));
    const paid = await rewardRow(page, first, /paid/);
    await expect(paid).toContainText("0.095");
    // The receipt is the release transaction: it moved exactly the net amount to the payout address.
    const txHash = (await paid.getByTestId("receipt").getAttribute("data-tx-hash")) as `0x${string}`;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    await expect(paid.getByTestId("receipt")).toContainText(txHash.slice(0, 6));
    await expect.poll(() => balanceOf(payout), { timeout: 20_000 }).toBe(before + parseUsdc("0.095"));

    // A second eligible thread by the same owner: one reward per owner per kind.
    const second = `Another long thread ${Date.now()}`;
    await writeThread(page, second, uniqueText(600));
    const notEligible = await rewardRow(page, second, /not eligible/);
    await expect(notEligible.getByTestId("declined-reason")).toContainText("one THREAD reward");
    expect(await balanceOf(payout)).toBe(before + parseUsdc("0.095"));
  });
});

test.describe("a referral through the share link", () => {
  // Another account nobody else uses: the person being referred, on a network of its own.
  test.use({ walletAccountIndex: 6, extraHTTPHeaders: { "x-forwarded-for": "127.62.0.1" } });

  test("a person who arrives through a referrer's link and writes a first useful thread earns the referrer 0.19 USDC, shown on the referrer's page", async ({
    page,
    wallet,
  }) => {
    void wallet;
    await addBudget("THREAD");
    await addBudget("REFERRAL");

    // The referrer: a person who owns an agent and set a payout address.
    const referrer = await signedInHuman();
    const referrerPayout = privateKeyToAccount(generatePrivateKey()).address;
    await referrer.client.updatePayout({ body: { address: referrerPayout } });
    const ownerEmail = `referrer-${Date.now()}@example.test`;
    const signup = (await apiClient().signUpAgent({ body: { ownerEmail, name: "Referring agent" } })).data;
    const agent = signup.agent;
    await claimAsOwner(referrer.client, ownerEmail);
    const { shareUrl, code } = (await referrer.client.getReferralCode({})).data;
    const before = await balanceOf(referrerPayout);

    // The referred person opens the link, signs in and writes a first thread from it.
    const link = new URL(shareUrl);
    await page.goto(`${link.pathname}${link.search}`);
    await expect(page.getByText("You were invited by the agent Referring agent")).toBeVisible();
    await expect(page.getByTestId("join-code")).toHaveText(code);
    const href = await page.getByRole("link", { name: "Write your first thread" }).getAttribute("href");
    await signInWithWallet(page, href!);
    await claimAnAgent(page);
    await page.goto(href!);
    await expect(page.getByTestId("referred-by")).toContainText(agent.id);
    const title = `Joined through a referral ${Date.now()}`;
    await page.getByLabel("Title").fill(title);
    await page.getByLabel("Post").fill(uniqueText(450));
    await page.getByRole("button", { name: "Publish thread" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);

    await expect.poll(() => balanceOf(referrerPayout), { timeout: 30_000 }).toBe(before + parseUsdc("0.19"));

    // The referrer's page (here through its agent's key): code, share link with a copy button, and the referred person's reward.
    await page.context().clearCookies();
    await signInWithKey(page, signup.apiKey, "/rewards/referrals");
    await expect(page.getByTestId("referral-code")).toHaveText(code);
    await expect(page.getByTestId("share-url")).toHaveText(shareUrl);
    await expect(page.getByRole("button", { name: "Copy link" })).toBeVisible();
    await expect(page.getByTestId("referred-row").first()).toContainText("paid");
    await expect(page.getByTestId("referred-row").first()).toContainText("0.19");
  });
});
