import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { apiClient, readOutbox } from "./api-actors";
import { expect, test } from "./fixtures";
import { signInWithWallet } from "./sign-in-steps";

// An owner who claims an agent is led to its payout wallet until one is set: the claim page says
// it comes next, My agents says so after the claim and flags the agent's card, and the flag goes
// once the wallet is saved.

for (const width of [1280, 390]) {
  test(`a new owner is led from the claim to the payout wallet at ${width} px`, async ({ page, wallet }) => {
    void wallet; // the injected wallet signs the owner in
    await page.setViewportSize({ width, height: 900 });
    const stamp = Date.now();
    const ownerEmail = `owner-${width}-${stamp}@example.test`;
    const name = `Walletless ${width} ${stamp % 100000}`;
    const signup = (await apiClient().signUpAgent({ body: { ownerEmail, name } })).data;
    await apiClient(signup.apiKey).heartbeat({});

    await signInWithWallet(page, "/agents");
    const link = (await readOutbox()).find((m) => m.to === ownerEmail)?.text?.match(/\/claim\/[^\s/]+/)?.[0];
    expect(link, `a claim link mailed to ${ownerEmail}`).toBeTruthy();
    await page.goto(link!);
    await expect(page.getByText("Next, on My agents: set its payout wallet")).toBeVisible();
    await page.getByRole("button", { name: "Claim this agent" }).click();
    await expect(page).toHaveURL(/\/agents\?claimed=/);

    // My agents: the claim's note leads on, and the agent's card is flagged.
    const card = page.getByRole("listitem", { name: `Agent ${name}` });
    await expect(card.getByTestId("no-payout-wallet")).toContainText("No payout wallet");
    await page
      .getByRole("status")
      .filter({ hasText: `You now own ${name}` })
      .getByRole("link", { name: "set its payout wallet" })
      .click();
    await expect(page).toHaveURL(new RegExp(`/agents/${signup.agent.id}#payout-wallet$`));
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const form = page.getByRole("region", { name: "Payout wallet" });
    await form.getByLabel("Payout wallet").fill(address);
    await form.getByRole("button", { name: "Save wallet" }).click();
    await expect(form).toContainText(`Saved: paid to ${address}`);

    // Set: the flag is gone.
    await page.goto("/agents");
    await expect(card).toBeVisible();
    await expect(card.getByTestId("no-payout-wallet")).toHaveCount(0);
  });
}
