import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { parseUsdc } from "@/lib/chain/units";
import { apiClient, chainConfig, signedInHuman } from "./api-actors";
import { anvilAddress, expect, test } from "./fixtures";
import { signInWithWallet } from "./sign-in-steps";

// A dispute decided by the evaluator the poster named: the case reaches the evaluator's inbox, the
// evaluator finds it in "Cases" (from the main navigation), reads the brief and the criteria beside
// the statements, and rules; the escrow pays once and the list says the case was ruled. The page
// shows the evaluator by picture and short address, never the full address as text.

// anvil's account 1 pays (it holds test USDC); account 9 is the evaluator in the browser.
const POSTER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;
const EVALUATOR_INDEX = 9;
const EVALUATOR_KEY = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6" as const;
const BUDGET = "12";

test.use({ walletAccountIndex: EVALUATOR_INDEX });

test("the named evaluator is told in the inbox, finds the case in Cases, reads the brief and rules; the agent is paid once", async ({
  page,
  wallet,
  secrets,
}) => {
  test.setTimeout(150_000);
  expect(wallet.address).toBe(anvilAddress(EVALUATOR_INDEX));
  const poster = await signedInHuman(POSTER_KEY);
  // The evaluator has an account (signed in once before): the service tells people it knows.
  expect((await signedInHuman(EVALUATOR_KEY)).address.toLowerCase()).toBe(wallet.address.toLowerCase());
  const stamp = Date.now();
  const title = `Evaluated translation ${stamp}`;
  const job = (
    await poster.client.createJob({
      body: {
        templateId: "custom-v1",
        title,
        description: `Translate the **lease agreement** into German (${stamp}).`,
        acceptanceCriteria: ["Every clause is translated", "Legal terms follow the glossary"],
        inputData: { budgetType: "bid", proofHoldHours: 0 },
        budget: BUDGET,
        evaluatorAddress: wallet.address,
      },
    })
  ).data;
  const { txHash } = await depositToEscrow({
    config: chainConfig(),
    privateKey: POSTER_KEY,
    escrowJobId: escrowJobIdFromWire(job.escrowJobId),
    amount: parseUsdc(BUDGET),
  });
  await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  const signup = (
    await apiClient().signUpAgent({
      body: { ownerEmail: `evaluated-${stamp}@example.test`, name: `Careful Translator ${stamp}` },
    })
  ).data;
  secrets.addSecret(signup.apiKey);
  const agent = apiClient(signup.apiKey);
  const agentWallet = privateKeyToAccount(generatePrivateKey()).address;
  await agent.heartbeat({});
  await agent.updateAgent({ params: { id: signup.agent.id }, body: { walletAddress: agentWallet } });
  const bid = await agent.placeBid({
    params: { id: job.id },
    body: { agentId: signup.agent.id, proposedUsdc: BUDGET },
  });
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.data.id } });
  await poster.client.disputeJob({
    params: { id: job.id },
    body: { reason: "Half of the clauses are missing from the translation." },
  });
  await agent.addDisputeStatement({
    params: { id: job.id },
    body: { body: "Every clause is there; the poster read an old draft.", evidenceUrls: [] },
  });

  // ── The evaluator signs in: the inbox tells them of the case.
  await signInWithWallet(page, "/inbox");
  const told = page
    .getByRole("list", { name: "Notifications" })
    .getByRole("button", { name: new RegExp(`dispute was opened on .${title}`) });
  // The inbox is filled by the notification fan-out (a round every 2 s) and drawn on the server:
  // read it again until that round has run.
  await expect(async () => {
    await page.goto("/inbox");
    await expect(told).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000 });

  // ── "Cases" in the main navigation lists it, waiting for their ruling.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Cases" }).click();
  await expect(page).toHaveURL(/\/cases$/);
  const row = page.getByTestId("case-row").filter({ hasText: title });
  await expect(row).toHaveAttribute("data-status", "OPEN");
  await expect(row).toContainText("Your ruling is needed");
  await expect(row).toContainText("Half of the clauses are missing");
  await row.getByRole("link", { name: title }).click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}#dispute$`));

  // ── The case page: the statements, and what the job asked for (the brief rendered, the criteria).
  const panel = page.getByTestId("dispute-case");
  await expect(panel).toHaveAttribute("data-status", "OPEN");
  await expect(panel.getByTestId("dispute-statement")).toContainText("the poster read an old draft");
  await expect(page.locator("strong", { hasText: "lease agreement" })).toBeVisible();
  await expect(page.getByTestId("acceptance-criteria")).toContainText("Legal terms follow the glossary");
  // The evaluator is shown by a picture and a short address, not the full address.
  await expect(panel.getByTestId("avatar").first()).toBeVisible();
  const text = await page.locator("main").innerText();
  expect(text.toLowerCase()).not.toContain(wallet.address.toLowerCase());

  // ── The evaluator rules for the agent; the escrow pays the agent once.
  const before = await erc20BalanceOf({ config: chainConfig(), address: agentWallet });
  await panel.getByRole("radio", { name: /^Pay the agent/ }).check();
  await panel.getByLabel("Why").fill("Every clause is in the delivered translation.");
  await panel.getByRole("button", { name: "Rule", exact: true }).click();
  await expect(page.getByTestId("ruling-confirmation-amounts")).toContainText(
    "The agent gets 11.4 USDC (after the 0.6 USDC fee); the payer gets 0 USDC back.",
  );
  await page.getByRole("dialog").getByRole("button", { name: "Rule" }).click();
  await expect(page.getByTestId("dispute-settlement")).toHaveAttribute("data-status", "CONFIRMED", { timeout: 30_000 });
  await expect(page.getByTestId("dispute-ruling")).toContainText("by the evaluator");
  // 12 less the 5 % fee.
  expect((await erc20BalanceOf({ config: chainConfig(), address: agentWallet })) - before).toBe(parseUsdc("11.4"));

  // ── Back in Cases, the case reads as ruled and no longer asks for them.
  await page.goto("/cases");
  const ruled = page.getByTestId("case-row").filter({ hasText: title });
  await expect(ruled).toHaveAttribute("data-status", "RULED");
  await expect(ruled).not.toContainText("Your ruling is needed");
  await secrets.assertNoLeaks();
});
