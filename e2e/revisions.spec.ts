import { signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { POSTER_KEY, WIDTHS, assignedJob, noSideways, serveWork } from "./job-setup";
import { signInWithKey, signInWithWallet } from "./sign-in-steps";

// Revisions as the two people live them, on a wide screen and on a phone: the poster reads the
// delivered work and, instead of approving or disputing, sends it back with a message; the agent
// sees the request (its round and the message, as plain text) on the job and on the submission
// page, resubmits, and the job is in review again with the request on its timeline; once the
// job's rounds are spent, the poster may only approve or dispute. On a job paid in parts, one part
// is sent back alone.

for (const { name, viewport } of WIDTHS) {
  test(`at ${name}: the poster requests changes with a message, the agent reads it, resubmits, and the job is in review again until the rounds are spent`, async ({
    page,
    browser,
    baseURL,
    wallet,
    secrets,
  }) => {
    test.setTimeout(180_000);
    await page.setViewportSize(viewport);
    const marker = `AWM-REVISE-${Date.now()}`;
    const site = await serveWork(marker);
    const poster = await signedInHuman(POSTER_KEY);
    expect(poster.address).toBe(wallet.address);
    const { job, apiKey, agent } = await assignedJob(poster.client, marker, { maxRevisions: 2 });
    secrets.addSecret(apiKey);
    try {
      await agent.submitDeliverable({ params: { id: job.id }, body: { outputData: { url: `${site.base}/v1` } } });

      // ── The poster: Request changes beside Approve and Dispute, with a message and a confirmation.
      await signInWithWallet(page, `/jobs/${job.id}/review`);
      const decision = page.getByRole("region", { name: "Your decision" });
      await expect(decision.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
      await expect(decision.getByRole("button", { name: "Dispute", exact: true })).toBeVisible();
      const message = "The table lacks the source column.\nAdd it for every row, please. <b>not bold</b>";
      await decision.getByLabel("What should the agent change?").fill(message);
      await expect(decision.getByText("Round 1 of 2.")).toBeVisible();
      await decision.getByRole("button", { name: "Request changes" }).click();
      const dialog = page.getByRole("dialog");
      await expect(dialog).toContainText("round 1 of 2");
      await dialog.getByRole("button", { name: "Request changes" }).click();
      // The page now shows the request, waiting for the agent.
      await expect(page.getByTestId("change-request")).toContainText("Waiting for the agent to resubmit");
      await expect(page.getByTestId("change-request-message")).toHaveText(message);
      await noSideways(page);
      expect((await poster.client.getJob({ params: { id: job.id } })).data).toMatchObject({
        status: "IN_PROGRESS",
        revisionCount: 1,
      });

      // ── The agent, in its own session: the request on the job page and on the submission page.
      const agentContext = await browser.newContext({ baseURL, viewport });
      const agentPage = await agentContext.newPage();
      await signInWithKey(agentPage, apiKey, `/jobs/${job.id}`);
      const note = agentPage.getByTestId("change-request");
      await expect(note).toContainText("revision 1 of 2");
      // Plain text, line breaks kept, markup shown as written.
      await expect(agentPage.getByTestId("change-request-message")).toHaveText(message);
      await noSideways(agentPage);
      await agentPage.getByRole("link", { name: "Submit the revised deliverable" }).click();
      await expect(agentPage.getByTestId("change-request")).toContainText("Fix the work and submit it again.");
      await agentPage.getByLabel("Deliverable URL").fill(`${site.base}/v2`);
      await agentPage.getByRole("button", { name: "Submit for review" }).click();
      await expect(agentPage).toHaveURL(new RegExp(`/jobs/${job.id}/review\\?submitted=1$`));
      await noSideways(agentPage);
      await agentContext.close();

      // ── The poster again: in review, with the request on the timeline; one round is left.
      await page.goto(`/jobs/${job.id}`);
      await expect(page.getByTestId("revision-count")).toContainText("Revised 1 of 2 times");
      const request = page.getByTestId("job-timeline").locator('li[data-event-type="job.changes_requested"]');
      await expect(request).toContainText("Changes requested");
      await expect(request).toContainText("round 1");
      await page.goto(`/jobs/${job.id}/review`);
      await expect(decision.getByText("Round 2 of 2.")).toBeVisible();
      await noSideways(page);

      // The last round spent and the work resubmitted: no more requests, approve or dispute.
      await poster.client.requestChanges({ params: { id: job.id }, body: { message: "One more: sort the rows." } });
      await agent.submitDeliverable({ params: { id: job.id }, body: { outputData: { url: `${site.base}/v3` } } });
      await page.reload();
      await expect(decision).toContainText("No rounds of changes left (2 of 2 used): approve or dispute.");
      await expect(decision.getByRole("button", { name: "Request changes" })).toHaveCount(0);
      await expect(decision.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
      await secrets.assertNoLeaks();
    } finally {
      await site.close();
    }
  });
}

for (const { name, viewport } of WIDTHS) {
  test(`at ${name}: on a job paid in parts, the poster sends one delivered part back; the agent sees it on that part`, async ({
    page,
    browser,
    baseURL,
    wallet,
    secrets,
  }) => {
    test.setTimeout(180_000);
    await page.setViewportSize(viewport);
    const marker = `AWM-PARTS-${Date.now()}`;
    const site = await serveWork(marker);
    const poster = await signedInHuman(POSTER_KEY);
    expect(poster.address).toBe(wallet.address);
    const { job, apiKey, agent } = await assignedJob(poster.client, marker, {
      maxRevisions: 2,
      milestones: [
        {
          title: "Research",
          amountUsdc: "12",
          acceptanceCriteria: "20 sources",
          proofContentMarker: `${marker}-part-1`,
        },
        { title: "Draft", amountUsdc: "8", acceptanceCriteria: "A draft", proofContentMarker: `${marker}-part-2` },
      ],
    });
    secrets.addSecret(apiKey);
    try {
      await agent.submitMilestone({
        params: { id: job.id, position: 1 },
        body: { outputData: { url: `${site.base}/part-1` } },
      });
      await signInWithWallet(page, `/jobs/${job.id}`);
      const first = page.getByTestId("milestone-1");
      await expect(first.getByTestId("milestone-1-state")).toHaveText("Delivered");
      await first.getByLabel("What should change in part 1?").fill("Cite the 2024 figures.");
      await first.getByRole("button", { name: "Request changes to part 1" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Request changes" }).click();
      await expect(first.getByTestId("milestone-1-change-request")).toContainText("Waiting for the agent to resubmit");
      await noSideways(page);

      const agentContext = await browser.newContext({ baseURL, viewport });
      const agentPage = await agentContext.newPage();
      await signInWithKey(agentPage, apiKey, `/jobs/${job.id}`);
      const part = agentPage.getByTestId("milestone-1");
      await expect(part.getByTestId("milestone-1-state")).toHaveText("Open");
      await expect(part.getByTestId("milestone-1-change-request")).toContainText("revision 1 of 2");
      await expect(part.getByTestId("milestone-1-change-request-message")).toHaveText("Cite the 2024 figures.");
      await noSideways(agentPage);
      await agentContext.close();
      await secrets.assertNoLeaks();
    } finally {
      await site.close();
    }
  });
}
