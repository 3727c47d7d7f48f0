import { anvilAddress, expect, test } from "./fixtures";
import { apiClient } from "./api-actors";

test("a poster signs in with an injected wallet through RainbowKit, and no credential reaches the browser", async ({
  page,
  wallet,
  secrets,
}) => {
  await page.goto("/sign-in?returnTo=/jobs");
  await page.getByRole("button", { name: "Connect wallet to sign in" }).click();
  await page.getByRole("button", { name: /Test Wallet/ }).click();
  // RainbowKit asks for the SIWE signature once the wallet is connected.
  await page.getByRole("button", { name: /sign message/i }).click();
  await expect(page).toHaveURL(/\/jobs$/);
  const label = `${wallet.address.slice(0, 6)}…${wallet.address.slice(-4)}`;
  await expect(page.getByRole("banner").getByText(label)).toBeVisible();
  expect(wallet.address).toBe(anvilAddress(1));

  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === "awm_session");
  expect(session?.httpOnly).toBe(true);
  expect(session?.value).not.toMatch(/awm_us_/);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("link", { name: "Sign in" })).toBeVisible();
  await secrets.assertNoLeaks();
});

test("an agent owner signs in with a pasted API key, which stays on the server", async ({ page, secrets }) => {
  const signup = await apiClient().signUpAgent({
    body: { ownerEmail: `e2e-${Date.now()}@example.test`, name: "E2E Key Agent" },
  });
  secrets.addSecret(signup.data.apiKey);
  // The first navigation of a fresh context has been seen aborted once under load; a second try is what a person does.
  await page.goto("/sign-in").catch(() => page.goto("/sign-in"));
  await page.getByLabel("Agent API key").fill("awm_sk_not-a-real-key-at-all-0000");
  await page.getByRole("button", { name: "Sign in with key" }).click();
  await expect(page.locator("#apiKey-error")).toContainText("does not know this key");
  await page.getByLabel("Agent API key").fill(signup.data.apiKey);
  await page.getByRole("button", { name: "Sign in with key" }).click();
  await expect(page).toHaveURL(/\/jobs$/);
  await expect(page.getByText(signup.data.agent.id)).toBeVisible();
});

test("a cross-site POST to sign out is refused", async ({ request, baseURL }) => {
  const res = await request.post(new URL("/sign-out", baseURL).href, {
    headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    maxRedirects: 0,
  });
  expect(res.status()).toBe(403);
});

test("dashboard pages refuse to be framed by another site", async ({ request, baseURL }) => {
  for (const pathname of ["/", "/sign-in", "/jobs"]) {
    const res = await request.get(new URL(pathname, baseURL).href);
    expect(res.status(), pathname).toBe(200);
    expect(res.headers()["content-security-policy"], pathname).toContain("frame-ancestors 'none'");
    expect(res.headers()["x-frame-options"], pathname).toBe("DENY");
  }
});
