import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { escrowV2Abi } from "@/lib/chain/abi";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { erc20BalanceOf, getEscrowV2 } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { getPublicClient, getWalletClient } from "@/lib/chain/clients";
import { parseUsdc } from "@/lib/chain/units";
import { apiClient, chainConfig, signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { POSTER_KEY, serveWork } from "./job-setup";
import { signInWithWallet } from "./sign-in-steps";
import { hydrated } from "./hydrated";

// The payer's Approve kept for the agent (docs/escrow-v2.md, step 6): on a job funded in EscrowV2
// the poster signs the approval in the browser wallet (no gas) while approving; the service keeps
// it and shows it to the agent alone; anyone (here a third wallet) relays releaseWithApproval and
// the assigned agent is paid without the service's release, which the job then shows.

/** Anvil's account 8: a relayer with ETH for gas, used by no other spec. */
const RELAYER_KEY = "0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97" as const;

test("approving an EscrowV2 job signs the Approve in the wallet; the agent's copy pays it without the service", async ({
  page,
  wallet,
}) => {
  test.setTimeout(120_000);
  const config = chainConfig();
  const stamp = Date.now();
  const marker = `AWM-APPROVE-${stamp}`;
  const site = await serveWork(marker);
  const poster = await signedInHuman(POSTER_KEY);
  expect(poster.address).toBe(wallet.address);
  try {
    const job = (
      await poster.client.createJob({
        body: {
          templateId: "custom-v1",
          title: `Approved in the wallet ${stamp}`,
          description: "A job funded in the escrow whose payer signs the approval for its agent.",
          acceptanceCriteria: ["The report is readable"],
          // A proof hold: the service's own release waits a day; the agent does not.
          inputData: { budgetType: "bid", proofHoldHours: 24, proofContentMarker: marker },
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
    expect((await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } })).data).toMatchObject({
      escrowVersion: 2,
    });
    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    const signup = (
      await apiClient().signUpAgent({
        body: { ownerEmail: `v2-approve-${stamp}@example.test`, name: `Approved ${stamp}`, walletAddress: payTo },
      })
    ).data;
    const agent = apiClient(signup.apiKey);
    await agent.heartbeat({});
    const bid = (
      await agent.placeBid({
        params: { id: job.id },
        body: { agentId: signup.agent.id, proposedUsdc: "5", coverLetter: "I will deliver the report." },
      })
    ).data;
    // Accepted through the API (the dashboard's acceptance has its own spec, escrow-v2-accept).
    const acceptPath = { params: { jobId: job.id, bidId: bid.id } };
    const asked = await poster.client
      .acceptBid({ ...acceptPath, body: {} })
      .catch((e: { extra?: { assignment?: unknown } }) => e);
    const assignment = (asked as { extra: { assignment: any } }).extra.assignment;
    const assignmentSignature = await privateKeyToAccount(POSTER_KEY).signTypedData({
      domain: assignment.domain,
      types: assignment.types,
      primaryType: "Assign",
      message: { ...assignment.message, deadline: BigInt(assignment.message.deadline) },
    });
    await poster.client.acceptBid({ ...acceptPath, body: { assignmentSignature } });
    await agent.submitDeliverable({ params: { id: job.id }, body: { outputData: { url: `${site.base}/report` } } });

    // ── The poster signs the approval in the wallet, then approves.
    await signInWithWallet(page, `/jobs/${job.id}/review`);
    await (await hydrated(page.getByRole("button", { name: "Sign the approval" }))).click();
    await expect(page.getByText("Signed: it goes with your approval.")).toBeVisible();
    await page.getByRole("button", { name: "Approve", exact: true }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
    await expect
      .poll(async () => (await poster.client.getJob({ params: { id: job.id } })).data.escrowApproval?.status)
      .toBe("KEPT");
    expect((await poster.client.getJob({ params: { id: job.id } })).data).toMatchObject({
      status: "REVIEW",
      escrowApproval: { signature: null },
    });

    // ── The agent reads its copy; a third wallet relays it; the agent is paid; the job shows it.
    const kept = (await agent.getJob({ params: { id: job.id } })).data.escrowApproval!;
    expect(kept.call?.functionName).toBe("releaseWithApproval");
    const [jobId, payer, deadline, signature] = kept.call!.args as [Hex, Hex, number, Hex];
    const relayer = getWalletClient(config, RELAYER_KEY);
    const hash = await relayer.writeContract({
      address: kept.call!.contract as Hex,
      abi: escrowV2Abi,
      functionName: "releaseWithApproval",
      args: [jobId, payer, BigInt(deadline), signature],
      account: relayer.account!,
      chain: relayer.chain,
    });
    await getPublicClient(config).waitForTransactionReceipt({ hash });
    expect(await erc20BalanceOf({ config, address: payTo })).toBe(parseUsdc("4.75"));
    expect((await getEscrowV2({ config, escrowJobId, payer: wallet.address })).state).toBe("RELEASED");
    // The service's deposit watcher records it once the block is final: the chain moves on.
    await fetch(config.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_mine", params: ["0x3"] }),
    });
    await expect
      .poll(async () => (await poster.client.getJob({ params: { id: job.id } })).data, { timeout: 60_000 })
      .toMatchObject({ status: "COMPLETED", releaseTxHash: hash, escrowSettledOutside: "APPROVAL_RELEASE" });
    await page.goto(`/jobs/${job.id}`);
    await expect(page.getByTestId("settled-outside")).toContainText("the poster's signed approval paid the agent");
  } finally {
    await site.close();
  }
});
