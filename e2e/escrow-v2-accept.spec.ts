import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { erc20BalanceOf, getEscrowV2 } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { getPublicClient } from "@/lib/chain/clients";
import { parseUsdc } from "@/lib/chain/units";
import { apiClient, chainConfig, signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { POSTER_KEY, serveWork } from "./job-setup";
import { signInWithWallet } from "./sign-in-steps";
import { hydrated } from "./hydrated";

// A job funded in EscrowV2 (docs/escrow-v2.md, steps 3 and 4): the poster accepts a bid in the
// dashboard, the injected wallet signs the EIP-712 Assign (no gas), the service relays it and the
// bid is accepted once the agent is assigned on chain; the agent delivers, the poster approves,
// and EscrowV2 pays the assigned agent.

test("accepting a bid on an EscrowV2 job signs the assignment in the wallet; approving pays the assigned agent from EscrowV2", async ({
  page,
  wallet,
}) => {
  test.setTimeout(120_000);
  const config = chainConfig();
  const stamp = Date.now();
  const marker = `AWM-V2-${stamp}`;
  const site = await serveWork(marker);
  const poster = await signedInHuman(POSTER_KEY);
  expect(poster.address).toBe(wallet.address);
  try {
    const job = (
      await poster.client.createJob({
        body: {
          templateId: "custom-v1",
          title: `Assigned on chain ${stamp}`,
          description: "A job funded in the escrow that pays only the agent its poster assigned.",
          acceptanceCriteria: ["The report is readable"],
          inputData: { budgetType: "bid", proofHoldHours: 0, proofContentMarker: marker },
          budget: "5",
        },
      })
    ).data;
    const escrowJobId = escrowJobIdFromWire(job.escrowJobId);
    const now = (await getPublicClient(config).getBlock()).timestamp;
    const { txHash } = await depositToEscrow({
      config,
      privateKey: POSTER_KEY,
      escrowJobId,
      amount: parseUsdc("5"),
      expiresAt: now + 60n * 24n * 3600n,
    });
    const funded = await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
    expect(funded.data).toMatchObject({ escrowVersion: 2 });

    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    const signup = (
      await apiClient().signUpAgent({
        body: { ownerEmail: `v2-${stamp}@example.test`, name: `Assigned ${stamp}`, walletAddress: payTo },
      })
    ).data;
    const agent = apiClient(signup.apiKey);
    await agent.heartbeat({});
    await agent.placeBid({
      params: { id: job.id },
      body: { agentId: signup.agent.id, proposedUsdc: "5", coverLetter: "I will deliver the report." },
    });

    // ── The poster accepts in the dashboard; the wallet signs the Assign; the bid is accepted.
    await signInWithWallet(page, `/jobs/${job.id}`);
    const bids = page.getByRole("table").filter({ hasText: `Assigned ${stamp}` });
    await (await hydrated(bids.getByRole("button", { name: "Accept" }))).click();
    await page.getByRole("dialog").getByRole("button", { name: "Accept bid" }).click();
    await expect(page.getByText("Sign the assignment in your wallet")).toBeVisible();
    await expect(page.getByText(payTo)).toBeVisible();
    expect((await poster.client.getJob({ params: { id: job.id } })).data.status).toBe("OPEN");
    await page.getByRole("button", { name: "Sign and accept" }).click();
    await expect
      .poll(async () => (await poster.client.getJob({ params: { id: job.id } })).data.status)
      .toBe("IN_PROGRESS");
    const slot = await getEscrowV2({ config, escrowJobId, payer: wallet.address });
    expect(slot.agent).toBe(payTo);

    // ── The agent delivers; the poster approves in the dashboard; EscrowV2 pays the assigned agent.
    const submitted = await agent.submitDeliverable({
      params: { id: job.id },
      body: { outputData: { url: `${site.base}/report` } },
    });
    expect(submitted.data.status).toBe("REVIEW");
    await page.goto(`/jobs/${job.id}/review`);
    await page.getByRole("button", { name: "Approve", exact: true }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
    await expect
      .poll(async () => (await poster.client.getJob({ params: { id: job.id } })).data.status)
      .toBe("COMPLETED");
    // 5 USDC less the contract's 5% fee.
    expect(await erc20BalanceOf({ config, address: payTo })).toBe(parseUsdc("4.75"));
    expect((await getEscrowV2({ config, escrowJobId, payer: wallet.address })).state).toBe("RELEASED");
  } finally {
    await site.close();
  }
});
