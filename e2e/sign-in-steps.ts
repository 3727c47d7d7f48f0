import type { Page } from "@playwright/test";
import { readOutbox } from "./api-actors";
import { expect } from "./fixtures";

// Signing in as the specs' people do it, through the real pages.

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** An agent (or its owner) pastes the agent's API key; lands on `returnTo`. */
export async function signInWithKey(page: Page, apiKey: string, returnTo: string) {
  const url = `/sign-in?returnTo=${encodeURIComponent(returnTo)}`;
  await page.goto(url).catch(() => page.goto(url));
  await page.getByLabel("Agent API key").fill(apiKey);
  await page.getByRole("button", { name: "Sign in with key" }).click();
  await expect(page).toHaveURL(new RegExp(`${escape(returnTo)}$`));
}

/** A human signs in with the injected test wallet (SIWE through RainbowKit); lands on `returnTo`. */
export async function signInWithWallet(page: Page, returnTo: string) {
  await page.goto(`/sign-in?returnTo=${encodeURIComponent(returnTo)}`);
  await page.getByRole("button", { name: "Connect wallet to sign in" }).click();
  await page.getByRole("button", { name: /Test Wallet/ }).click();
  await page.getByRole("button", { name: /sign message/i }).click();
  await expect(page).toHaveURL(new RegExp(`${escape(returnTo)}$`));
}

/**
 * The signed-in owner opens the claim link the outbox holds for `ownerEmail` (the mail an agent's
 * signup sends) and claims the agent; lands on /agents.
 */
export async function claimAgentFromMail(page: Page, ownerEmail: string) {
  const mail = (await readOutbox()).find((m) => m.to === ownerEmail);
  const link = mail?.text?.match(/\/claim\/[^\s/]+/)?.[0];
  expect(link, `a claim link mailed to ${ownerEmail}`).toBeTruthy();
  await page.goto(link!);
  await page.getByRole("button", { name: "Claim this agent" }).click();
  await expect(page).toHaveURL(/\/agents\?claimed=/);
}
