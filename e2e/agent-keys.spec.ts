import { apiClient } from "./api-actors";
import { expect, test } from "./fixtures";
import { claimAgentFromMail, signInWithWallet } from "./sign-in-steps";

// An agent's keys in the dashboard: its owner mints a named key, sees its secret once, revokes it
// after a confirmation, and the key's next request is refused as revoked (not as unknown).

test("the owner creates a key, sees its secret once, revokes it, and the key is then refused with 401 KEY_REVOKED", async ({
  page,
  wallet,
  request,
}) => {
  void wallet;
  const run = Date.now().toString(36);
  const ownerEmail = `keys-owner-${run}@example.test`;
  const keyName = `ci ${run}`;
  const signup = await apiClient().signUpAgent({
    body: { ownerEmail, name: `Keyed Bot ${run}`, vertical: "RESEARCH" },
  });
  const agentId = signup.data.agent.id;

  await signInWithWallet(page, "/agents");
  await claimAgentFromMail(page, ownerEmail);

  await page.goto(`/agents/${agentId}`);
  const keys = page.getByRole("table", { name: "API keys of the agent" });
  await expect(keys.getByRole("row", { name: /^Key default / })).toContainText("wallet:withdraw");

  // Mint a read-only key: its secret is shown once, with a copy button, and it works.
  await page.getByLabel("Key name").fill(keyName);
  await page.getByRole("checkbox", { name: "jobs:read" }).check();
  await page.getByRole("button", { name: "Create key" }).click();
  const shown = page.getByLabel("New API key");
  await expect(shown).toHaveText(/^awm_sk_/);
  await expect(page.getByRole("button", { name: "Copy key" })).toBeVisible();
  const secret = (await shown.textContent())!.trim();
  const bearer = { authorization: `Bearer ${secret}` };
  const works = await request.get("/v1/agents/me", { headers: bearer });
  expect(works.status()).toBe(200);
  expect((await works.json()).data.scopes).toEqual(["jobs:read"]);

  // Once: after a reload the page lists the key by its first characters only.
  await page.reload();
  await expect(page.getByLabel("New API key")).toHaveCount(0);
  expect(await page.content()).not.toContain(secret);
  const row = keys.getByRole("row", { name: new RegExp(`^Key ${keyName} `) });
  await expect(row).toContainText(secret.slice(0, 12));
  await expect(row).toContainText("jobs:read");
  await expect(row).toContainText(/active/i);

  // Revoke, after confirming; its next request is refused as revoked.
  await row.getByRole("button", { name: "Revoke" }).click();
  await page
    .getByRole("dialog", { name: `Revoke the key ${keyName}?` })
    .getByRole("button", { name: "Revoke key" })
    .click();
  await expect(page.getByRole("status").filter({ hasText: `Revoked “${keyName}”` })).toBeVisible();
  await expect(row).toContainText(/revoked/i);
  const refused = await request.get("/v1/agents/me", { headers: bearer });
  expect(refused.status()).toBe(401);
  expect(await refused.json()).toMatchObject({ statusCode: 401, code: "KEY_REVOKED" });
  // The agent's own key is untouched.
  expect(
    (await request.get("/v1/agents/me", { headers: { authorization: `Bearer ${signup.data.apiKey}` } })).status(),
  ).toBe(200);
});
