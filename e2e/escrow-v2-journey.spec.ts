import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { getPublicClient } from "@/lib/chain/clients";
import { erc20BalanceOf, getEscrowV2 } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { anvilAccounts } from "@/lib/chain/local-stack";
import { parseUsdc } from "@/lib/chain/units";
import { apiClient, chainConfig, signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { serveWork } from "./job-setup";
import { hydrated } from "./hydrated";

// The whole journey of a job in EscrowV2, in Chromium, on the suite's own app (new deposits go to
// EscrowV2 by default): a poster whose wallet holds USDC and no ETH funds with one signature, accepts a bid with
// one signature (Assign), approves, and EscrowV2 pays the agent it assigned; the wallet still holds
// no ETH and never sent a transaction. Then a bounty, whose claim assigns nobody: the approve form
// asks the wallet for the Assign as the accept dialog does, and the claimant is paid.

/** The suite's app (e2e/global-setup.ts), which runs the default: new deposits into EscrowV2. */
const app = { url: process.env.E2E_BASE_URL! };

/** A fresh agent on the v2 app, paid at a fresh address, and its API client. */
async function agentPaidAt(name: string) {
  const payTo = privateKeyToAccount(generatePrivateKey()).address;
  const signup = (
    await apiClient(undefined, app.url).signUpAgent({
      body: { ownerEmail: `${name.replace(/\W+/g, "-").toLowerCase()}@example.test`, name, walletAddress: payTo },
    })
  ).data;
  const client = apiClient(signup.apiKey, app.url);
  await client.heartbeat({});
  return { payTo, id: signup.agent.id, client };
}

async function signIn(page: import("@playwright/test").Page, returnTo: string) {
  await page.goto(`${app.url}/sign-in?returnTo=${encodeURIComponent(returnTo)}`);
  await page.getByRole("button", { name: "Connect wallet to sign in" }).click();
  await page.getByRole("button", { name: /Test Wallet/ }).click();
  await page.getByRole("button", { name: /sign message/i }).click();
  await expect(page).toHaveURL(new RegExp(`${returnTo.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
}

test.describe("a poster without ETH", () => {
  // anvil's account 6: its ETH is taken away for the test and given back after it.
  const ACCOUNT = 6;
  test.use({ walletAccountIndex: ACCOUNT });

  test("funds with one signature, accepts a bid with one signature, approves, and EscrowV2 pays the agent; the wallet never held ETH", async ({
    page,
    wallet,
  }) => {
    test.setTimeout(180_000);
    const config = chainConfig();
    const stamp = Date.now();
    const marker = `AWM-JOURNEY-${stamp}`;
    const site = await serveWork(marker);
    const eth = await wallet.rpc<string>("eth_getBalance", [wallet.address, "latest"]);
    await wallet.rpc("anvil_setBalance", [wallet.address, "0x0"]);
    try {
      const poster = await signedInHuman(anvilAccounts()[ACCOUNT]!.privateKey, app.url);
      expect(poster.address).toBe(wallet.address);
      // The deployment's default: new deposits go to EscrowV2.
      const chain = (await apiClient(undefined, app.url).getChain({})).data;
      expect(chain).toMatchObject({ escrowVersion: 2, escrowAddress: config.escrowV2Address });
      const job = (
        await poster.client.createJob({
          body: {
            templateId: "custom-v1",
            title: `The whole journey ${stamp}`,
            description: "A report funded without ETH and paid by the escrow to the agent its poster assigned.",
            acceptanceCriteria: ["The report is readable"],
            inputData: { budgetType: "bid", proofHoldHours: 0, proofContentMarker: marker },
            budget: "5",
          },
        })
      ).data;
      const escrowJobId = escrowJobIdFromWire(job.escrowJobId);

      // ── Fund: one signature (EIP-3009), relayed by the marketplace, which pays the gas.
      await signIn(page, `/jobs/${job.id}/fund`);
      // Rendered on the server for a connected wallet: clicked only once React handles it.
      await (await hydrated(page.getByRole("button", { name: "Fund with one signature (no ETH needed)" }))).click();
      await expect(page.getByText("This job is funded")).toBeVisible({ timeout: 60_000 });
      expect((await poster.client.getJob({ params: { id: job.id } })).data).toMatchObject({
        funded: true,
        escrowVersion: 2,
        escrowAddress: config.escrowV2Address,
      });

      // ── An agent bids; the poster accepts with one signature (Assign); the slot pays only its wallet.
      const agent = await agentPaidAt(`Journey ${stamp}`);
      await agent.client.placeBid({
        params: { id: job.id },
        body: { agentId: agent.id, proposedUsdc: "5", coverLetter: "I will deliver the report." },
      });
      await page.goto(`${app.url}/jobs/${job.id}`);
      const bids = page.getByRole("table").filter({ hasText: `Journey ${stamp}` });
      await (await hydrated(bids.getByRole("button", { name: "Accept" }))).click();
      await page.getByRole("dialog").getByRole("button", { name: "Accept bid" }).click();
      await expect(page.getByText("Sign the assignment in your wallet")).toBeVisible();
      await expect(page.getByText(agent.payTo)).toBeVisible();
      await page.getByRole("button", { name: "Sign and accept" }).click();
      await expect
        .poll(async () => (await poster.client.getJob({ params: { id: job.id } })).data.status)
        .toBe("IN_PROGRESS");
      expect((await getEscrowV2({ config, escrowJobId, payer: wallet.address })).agent).toBe(agent.payTo);

      // ── The agent delivers; the poster approves; EscrowV2 pays the assigned agent (5 USDC less 5%).
      await agent.client.submitDeliverable({
        params: { id: job.id },
        body: { outputData: { url: `${site.base}/report` } },
      });
      await page.goto(`${app.url}/jobs/${job.id}/review`);
      await (await hydrated(page.getByRole("button", { name: "Approve", exact: true }))).click();
      await page.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
      await expect
        .poll(async () => (await poster.client.getJob({ params: { id: job.id } })).data.status, { timeout: 30_000 })
        .toBe("COMPLETED");
      expect(await erc20BalanceOf({ config, address: agent.payTo })).toBe(parseUsdc("4.75"));
      expect((await getEscrowV2({ config, escrowJobId, payer: wallet.address })).state).toBe("RELEASED");

      // Two signatures of typed data (the authorization and the Assign) and a sign-in; no transaction, no ETH.
      const methods = wallet.calls.map((c) => c.method);
      expect(methods.filter((m) => m === "eth_signTypedData_v4")).toHaveLength(2);
      expect(methods).not.toContain("eth_sendTransaction");
      expect(BigInt(await wallet.rpc<string>("eth_getBalance", [wallet.address, "latest"]))).toBe(0n);
    } finally {
      await wallet.rpc("anvil_setBalance", [wallet.address, eth]);
      await site.close();
    }
  });
});

test("a bounty's approval in the dashboard asks the wallet for the Assign its claim did not make, then EscrowV2 pays the claimant", async ({
  page,
  wallet,
}) => {
  test.setTimeout(120_000);
  const config = chainConfig();
  const stamp = Date.now();
  const marker = `AWM-BOUNTY-${stamp}`;
  const site = await serveWork(marker);
  const key = anvilAccounts()[1]!.privateKey;
  try {
    const poster = await signedInHuman(key, app.url);
    expect(poster.address).toBe(wallet.address);
    const job = (
      await poster.client.createJob({
        body: {
          templateId: "custom-v1",
          title: `Bounty approved with a signature ${stamp}`,
          description: "A bounty funded in the escrow that pays only the agent its poster assigned.",
          acceptanceCriteria: ["The report is readable"],
          inputData: { budgetType: "bid", proofHoldHours: 0, proofContentMarker: marker },
          participationMode: "BOUNTY",
          budget: "5",
        },
      })
    ).data;
    const escrowJobId = escrowJobIdFromWire(job.escrowJobId);
    const now = (await getPublicClient(config).getBlock()).timestamp;
    const { txHash } = await depositToEscrow({
      config,
      privateKey: key,
      escrowJobId,
      amount: parseUsdc("5"),
      expiresAt: now + 60n * 24n * 3600n,
    });
    expect((await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } })).data).toMatchObject({
      escrowVersion: 2,
    });

    // The claim assigns the agent in the marketplace only: the slot pays nobody yet.
    const agent = await agentPaidAt(`Claimant ${stamp}`);
    await agent.client.claimJob({ params: { id: job.id }, body: { agentId: agent.id } });
    await agent.client.submitDeliverable({
      params: { id: job.id },
      body: { outputData: { url: `${site.base}/report` } },
    });

    await signIn(page, `/jobs/${job.id}/review`);
    await (await hydrated(page.getByRole("button", { name: "Approve", exact: true }))).click();
    await page.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
    // The service asks for the payer's Assign (409 ASSIGNMENT_SIGNATURE_REQUIRED): the form shows it, nothing is approved.
    await expect(page.getByText("Sign the assignment in your wallet")).toBeVisible();
    await expect(page.getByText(agent.payTo)).toBeVisible();
    expect((await poster.client.getJob({ params: { id: job.id } })).data.status).toBe("REVIEW");
    expect(await erc20BalanceOf({ config, address: agent.payTo })).toBe(0n);

    await page.getByRole("button", { name: "Sign and approve" }).click();
    await expect
      .poll(async () => (await poster.client.getJob({ params: { id: job.id } })).data.status, { timeout: 30_000 })
      .toBe("COMPLETED");
    const slot = await getEscrowV2({ config, escrowJobId, payer: wallet.address });
    expect(slot).toMatchObject({ agent: agent.payTo, state: "RELEASED" });
    expect(await erc20BalanceOf({ config, address: agent.payTo })).toBe(parseUsdc("4.75"));
    expect(wallet.calls.map((c) => c.method)).toContain("eth_signTypedData_v4");
  } finally {
    await site.close();
  }
});
