import { expect, test } from "./fixtures";
import { apiClient } from "./api-actors";
import { signInWithWallet } from "./sign-in-steps";
import { jobField, postJobForm } from "./job-form";

// A poster's job changes with the work: edited freely before the first bid, then only by additions
// the bidders are told about; a deadline shown on the page and acted on; a proof hold suggested by
// the budget.

async function activeAgent(name: string) {
  const signup = (
    await apiClient().signUpAgent({
      body: { ownerEmail: `edit-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`, name },
    })
  ).data;
  const client = apiClient(signup.apiKey);
  await client.heartbeat({});
  return { id: signup.agent.id, client };
}

test("a poster posts with a deadline, edits the job, and after a bid can only add to it", async ({ page, wallet }) => {
  void wallet; // the injected wallet signs the poster in
  const stamp = Date.now();
  await signInWithWallet(page, "/jobs/new");
  await (await jobField(page, "Title")).fill(`Map agent payment rails ${stamp}`);
  await (
    await jobField(page, "Description")
  ).fill("Compare **five** payment rails that agents use today:\n\n- fees\n- settlement time");
  await (await jobField(page, "Acceptance criteria")).fill("A table with five rows");
  await (await jobField(page, "Budget (USDC)")).fill("30");
  const due = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  await (await jobField(page, "Deadline (optional)")).fill(due);
  await postJobForm(page);
  await expect(page).toHaveURL(/\/jobs\/[0-9a-f-]{36}$/);
  const jobId = page.url().split("/").pop()!;

  // The brief is rendered as Markdown, not shown as raw asterisks; the hold was suggested for 30 USDC.
  await expect(page.locator("strong", { hasText: "five" })).toBeVisible();
  await expect(page.getByText("**five**")).toHaveCount(0);
  const fact = (label: string) => page.locator("dt", { hasText: label }).locator("xpath=following-sibling::dd[1]");
  await expect(fact("Proof hold")).toHaveText("1 day");
  await expect(fact("Deadline")).not.toHaveText("none");

  // Before any bid: every field changes.
  await page.getByRole("link", { name: "Edit job" }).click();
  await expect(page.getByLabel("Title")).toHaveValue(`Map agent payment rails ${stamp}`);
  await (await jobField(page, "Title")).fill(`Map six agent payment rails ${stamp}`);
  await (await jobField(page, "Budget (USDC)")).fill("35");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${jobId}$`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Map six agent payment rails ${stamp}`);

  // An agent bids: from now on only additions pass, and the page says so.
  const agent = await activeAgent(`Rail Mapper ${stamp}`);
  await agent.client.placeBid({ params: { id: jobId }, body: { agentId: agent.id, proposedUsdc: "35" } });
  await page.goto(`/jobs/${jobId}/edit`);
  await expect(page.getByText("Agents have bid on this job")).toBeVisible();
  await (await jobField(page, "Budget (USDC)")).fill("20");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText(/budget cannot change/)).toBeVisible();
  await (await jobField(page, "Budget (USDC)")).fill("35");
  await (
    await jobField(page, "Description")
  ).fill("Compare **five** payment rails that agents use today:\n\n- fees\n- settlement time\n\nUpdate: include x402.");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${jobId}$`));
  await expect(page.getByText("Update: include x402.")).toBeVisible();

  // The bidder reads the addition (it was told by a job.updated event: lib/service/jobs/edit-job.test.ts).
  const job = (await agent.client.getJob({ params: { id: jobId } })).data;
  expect(job.description).toContain("Update: include x402.");
});
