import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { ApiClient } from "@/lib/api";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { parseUsdc } from "@/lib/chain/units";
import { apiClient, chainConfig, claimAsOwner, signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { POSTER_KEY, WIDTHS, noSideways, serveWork } from "./job-setup";
import { signInWithKey } from "./sign-in-steps";

// A newcomer agent's first paid job, on a wide screen and on a phone. skill.md tells it about the
// proof hold and how to find work that pays soon; the board shows each job's hold and filters by
// it ("Paid after delivery"); the agent follows skill.md through the API: signs up, is claimed by
// its owner, sets its first payout wallet with its own key (once: changing it is the owner's),
// finds the funded job that pays at approval (maxProofHoldHours=1, excludeBidBy=me), bids,
// delivers, and once the poster approves it is paid on chain, which its job page shows.

async function fundedJob(poster: ApiClient, title: string, hold: number, marker: string) {
  const job = (
    await poster.createJob({
      body: {
        templateId: "custom-v1",
        title,
        description: "A short market report delivered as a public web page that carries the proof marker.",
        acceptanceCriteria: ["The report is readable"],
        inputData: { budgetType: "bid", proofHoldHours: hold, proofContentMarker: marker },
        budget: "20",
      },
    })
  ).data;
  const { txHash } = await depositToEscrow({
    config: chainConfig(),
    privateKey: POSTER_KEY,
    escrowJobId: escrowJobIdFromWire(job.escrowJobId),
    amount: parseUsdc("20"),
  });
  await poster.registerEscrow({ params: { id: job.id }, body: { txHash } });
  return job;
}

for (const { name, viewport } of WIDTHS) {
  test(`at ${name}: a newcomer agent finds work that pays at approval, sets its own first wallet, delivers and is paid on chain`, async ({
    page,
    request,
    secrets,
  }) => {
    test.setTimeout(180_000);
    await page.setViewportSize(viewport);
    // A word of letters only, so the board's search finds this test's two jobs and no other.
    const stamp = Array.from(crypto.getRandomValues(new Uint8Array(10)), (b) => "bcdfghjkmnpqrstvwxz"[b % 19]).join("");
    const marker = `AWM-FIRST-${stamp}`;
    const site = await serveWork(marker);
    try {
      // skill.md explains the hold and the filter.
      const skill = await (await request.get("/skill.md")).text();
      expect(skill).toContain("proof hold");
      expect(skill).toContain("maxProofHoldHours=1");

      const poster = await signedInHuman(POSTER_KEY);
      const soon = await fundedJob(poster.client, `First paid report ${name} ${stamp}`, 0, marker);
      const later = await fundedJob(poster.client, `Week-held report ${name} ${stamp}`, 168, marker);

      // The board: each card says when it pays; "Within an hour" keeps the job that pays at approval.
      await page.goto(`/jobs?q=${stamp}&status=any`);
      const jobs = page.getByRole("list", { name: "Jobs" });
      await expect(jobs.getByRole("listitem")).toHaveCount(2);
      const card = (title: string) => jobs.getByRole("listitem").filter({ hasText: title });
      await expect(card(soon.title).getByTestId("job-card-hold")).toHaveText("Pays at approval");
      await expect(card(later.title).getByTestId("job-card-hold")).toHaveText(
        "Pays 7 days after delivery, once approved",
      );
      await page.getByLabel("Paid after delivery").selectOption({ label: "Within an hour" });
      await page.getByRole("form", { name: "Search and filter jobs" }).getByRole("button", { name: "Apply" }).click();
      await expect(page).toHaveURL(/maxProofHoldHours=1/);
      await expect(jobs.getByRole("listitem")).toHaveCount(1);
      await expect(card(soon.title)).toBeVisible();
      await noSideways(page);

      // The agent, as skill.md says: sign up, heartbeat; its owner claims it.
      const signup = (
        await apiClient().signUpAgent({
          body: { ownerEmail: `first-${stamp}-${viewport.width}@example.test`, name: `Newcomer ${stamp}` },
        })
      ).data;
      secrets.addSecret(signup.apiKey);
      const agent = apiClient(signup.apiKey);
      await agent.heartbeat({});
      const owner = await signedInHuman(generatePrivateKey());
      await claimAsOwner(owner.client, `first-${stamp}-${viewport.width}@example.test`);
      // Claimed and without a wallet: its own key sets the first one; changing it is the owner's.
      const payTo = privateKeyToAccount(generatePrivateKey()).address;
      const set = await agent.updateAgent({ params: { id: signup.agent.id }, body: { walletAddress: payTo } });
      expect(set.data.walletAddress).toBe(payTo);
      const redirected = await agent
        .updateAgent({
          params: { id: signup.agent.id },
          body: { walletAddress: privateKeyToAccount(generatePrivateKey()).address },
        })
        .then(() => null)
        .catch((error: { code?: string }) => error.code);
      expect(redirected).toBe("MISSING_SCOPE");

      // Funded work that pays within the hour, not bid on yet: the job is there, then gone once bid on.
      const listed = async () =>
        (
          await agent.listJobs({
            query: { q: stamp, funded: true, maxProofHoldHours: 1, excludeBidBy: "me", limit: 100 },
          })
        ).data.map((j) => j.id);
      expect(await listed()).toEqual([soon.id]);
      const bid = await agent.placeBid({
        params: { id: soon.id },
        body: { agentId: signup.agent.id, proposedUsdc: "20", coverLetter: "I will deliver the report today." },
      });
      expect(await listed()).toEqual([]);

      await poster.client.acceptBid({ params: { jobId: soon.id, bidId: bid.data.id } });
      await agent.submitDeliverable({ params: { id: soon.id }, body: { outputData: { url: `${site.base}/report` } } });
      await poster.client.approveJob({ params: { id: soon.id } });
      // No hold: the escrow pays at approval, 20 USDC less the 5 % fee.
      await expect
        .poll(() => erc20BalanceOf({ config: chainConfig(), address: payTo }), { timeout: 60_000 })
        .toBe(parseUsdc("19"));

      // The agent's own view of the job: paid, every step done.
      await signInWithKey(page, signup.apiKey, `/jobs/${soon.id}`);
      const steps = page.getByRole("navigation", { name: "Where this job is" });
      await expect(steps.locator('li[aria-current="step"]')).toHaveCount(0);
      await expect(steps).toContainText("Paid (done)");
      const paid = (await poster.client.getJob({ params: { id: soon.id } })).data;
      expect(paid.status).toBe("COMPLETED");
      await expect(page.getByText(/released in/)).toContainText(paid.releaseTxHash!.slice(0, 6));
      await noSideways(page);
      await secrets.assertNoLeaks();
    } finally {
      await site.close();
    }
  });
}
