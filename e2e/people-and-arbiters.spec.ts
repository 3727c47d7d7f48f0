import { generatePrivateKey } from "viem/accounts";
import { uniqueText } from "@/lib/testing/unique-text";
import { madeOnce, signedInHuman } from "./api-actors";
import { expect, test } from "./fixtures";
import { POSTER_KEY, WIDTHS, assignedJob, noSideways, serveWork } from "./job-setup";
import { signInWithWallet } from "./sign-in-steps";

// People by their names, and the arbiter's and operator's work, on a wide screen and on a phone:
// a person chooses a display name (a taken one and odd Unicode are refused in place) and is shown
// by it, with the address beside it, on their profile and their forum posts; the operator rules on
// a dispute from a form with nothing chosen in advance whose confirmation says what each side
// gets, reading the delivered work, its proof history and both statements in one panel; and the
// operator hides a reply from the reply itself and suspends its author from the author's page,
// each after a confirmation.

// anvil's account 3 is the person who names themselves; account 2 is the stack's operator.
const PERSON_INDEX = 3;
const PERSON_KEY = "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6" as const;
const OPERATOR_INDEX = 2;
const letters = (n: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => "abcdefghjkmnpqrstuvwxyz"[b % 23]).join("");

test.describe("a display name", () => {
  test.use({ walletAccountIndex: PERSON_INDEX });

  for (const { name, viewport } of WIDTHS) {
    test(`at ${name}: chosen on the settings page, refused when taken or odd, shown with the address beside it`, async ({
      page,
      wallet,
    }) => {
      test.setTimeout(120_000);
      await page.setViewportSize(viewport);
      const person = await signedInHuman(PERSON_KEY);
      expect(person.address).toBe(wallet.address);
      const me = (await person.client.getMe({})).data;
      if (me.kind !== "USER") throw new Error("a person's session");
      // One thread of theirs for the whole spec (the forum takes three threads an hour per person).
      const thread = await madeOnce("people-display-name-thread", async () => {
        const created = await person.client.createThread({
          body: { title: `Naming people in the forum ${Date.now()}`, body: uniqueText(300), category: "agent-lounge" },
        });
        return { slug: created.data.slug };
      });
      const run = letters(6);
      const other = await signedInHuman(generatePrivateKey());
      await other.client.updateMe({ body: { displayName: `Taken ${run}` } });

      await signInWithWallet(page, "/settings/profile");
      await expect(page.getByRole("heading", { name: "Your profile" })).toBeVisible();
      const field = page.getByLabel("Display name");
      // Someone else's name, in another case: refused in place.
      await field.fill(`taken ${run}`);
      await page.getByRole("button", { name: "Save the name" }).click();
      await expect(page.getByText(/is taken; choose another/)).toBeVisible();
      // A right-to-left override hidden in the name: refused with the rule.
      await page.getByLabel("Display name").fill(`Ada\u202E${run}`);
      await page.getByRole("button", { name: "Save the name" }).click();
      await expect(page.getByText(/may contain only letters/)).toBeVisible();
      const chosen = `Ada ${run} Lovelace`;
      await page.getByLabel("Display name").fill(chosen);
      await page.getByRole("button", { name: "Save the name" }).click();
      await expect(page.getByText(`Saved: you are shown as “${chosen}”.`)).toBeVisible();
      await noSideways(page);

      const short = `${wallet.address.slice(0, 6)}…${wallet.address.slice(-4)}`;
      await page.goto(`/people/${me.user.id}`);
      await expect(page.getByRole("heading", { level: 1 })).toContainText(chosen);
      await expect(page.getByRole("heading", { level: 1 }).getByTestId("address-print")).toHaveText(short);
      await noSideways(page);

      await page.goto(`/forum/${thread.slug}`);
      const header = page.locator("article").first().locator("header");
      await expect(header).toContainText(chosen);
      await expect(header.getByTestId("address-print")).toHaveText(short);
      await noSideways(page);
    });
  }
});

test.describe("the operator", () => {
  test.use({ walletAccountIndex: OPERATOR_INDEX });

  for (const { name, viewport } of WIDTHS) {
    test(`at ${name}: rules from a form with no outcome chosen, after reading the work, its checks and both sides, and a confirmation with the amounts`, async ({
      page,
      secrets,
      wallet, // the operator's wallet in the page, to sign in with
    }) => {
      void wallet;
      test.setTimeout(180_000);
      await page.setViewportSize(viewport);
      const marker = `AWM-RULING-${Date.now()}`;
      const site = await serveWork(marker);
      try {
        const poster = await signedInHuman(POSTER_KEY);
        const { job, apiKey, agent } = await assignedJob(poster.client, marker, {
          title: `Ruled report ${Date.now()}`,
        });
        secrets.addSecret(apiKey);
        const url = `${site.base}/delivered`;
        await agent.submitDeliverable({ params: { id: job.id }, body: { outputData: { url } } });
        await poster.client.disputeJob({ params: { id: job.id }, body: { reason: "Half of the rows are missing." } });
        await poster.client.addDisputeStatement({
          params: { id: job.id },
          body: { body: "Only ten of the twenty rows were delivered." },
        });
        await agent.addDisputeStatement({
          params: { id: job.id },
          body: { body: "Ten rows were agreed in the messages." },
        });

        await signInWithWallet(page, `/admin/disputes/${job.id}`);
        const panel = page.getByTestId("dispute-case");
        // The work, its proof history and both sides, in one panel.
        const work = panel.getByTestId("dispute-deliverable");
        await expect(work.getByRole("link", { name: url })).toBeVisible();
        await expect(work.getByRole("table", { name: /Proof checks/ })).toContainText("Submission");
        await expect(panel.getByTestId("dispute-statements-poster")).toContainText("Only ten of the twenty rows");
        await expect(panel.getByTestId("dispute-statements-agent")).toContainText("Ten rows were agreed");

        // Nothing chosen in advance.
        for (const outcome of [/^Pay the agent/, /^Refund the poster/, /^Split/])
          await expect(panel.getByRole("radio", { name: outcome })).not.toBeChecked();
        await panel.getByRole("radio", { name: /^Split/ }).check();
        await panel.getByLabel("Agent's share for a split (%)").fill("40");
        await expect(panel.getByTestId("ruling-amounts")).toContainText("the payer gets 12 USDC");
        await panel.getByLabel("Why").fill("Ten rows were agreed in writing; the rest was not delivered.");
        await noSideways(page);
        await panel.getByRole("button", { name: "Rule", exact: true }).click();
        const dialog = page.getByRole("dialog");
        // 40 % of 20 is 8, less the 5 % fee on that share (0.4): 7.6 to the agent, 12 back.
        await expect(dialog.getByTestId("ruling-confirmation-amounts")).toHaveText(
          "The agent gets 7.6 USDC (after the 0.4 USDC fee); the payer gets 12 USDC back.",
        );
        await noSideways(page);
        await dialog.getByRole("button", { name: "Rule" }).click();
        await expect(page.getByTestId("dispute-settlement")).toHaveAttribute("data-status", "CONFIRMED", {
          timeout: 30_000,
        });
        await secrets.assertNoLeaks();
      } finally {
        await site.close();
      }
    });

    test(`at ${name}: hides a reply from the reply itself and suspends its author from the author's page, each after a confirmation`, async ({
      page,
      wallet, // the operator's wallet in the page, to sign in with
    }) => {
      void wallet;
      test.setTimeout(120_000);
      await page.setViewportSize(viewport);
      const author = await signedInHuman(generatePrivateKey());
      const replier = await signedInHuman(generatePrivateKey());
      const thread = (
        await author.client.createThread({
          body: { title: `A thread to moderate ${Date.now()}`, body: uniqueText(300), category: "agent-lounge" },
        })
      ).data;
      const replyText = uniqueText(200);
      const reply = (await replier.client.createReply({ params: { slugOrId: thread.slug }, body: { body: replyText } }))
        .data;
      const replierMe = (await replier.client.getMe({})).data;
      if (replierMe.kind !== "USER") throw new Error("a person's session");
      const firstWords = replyText.split(" ").slice(0, 6).join(" ");

      await signInWithWallet(page, `/forum/${thread.slug}`);
      const post = page.locator(`#reply-${reply.id}`);
      await expect(post).toContainText(firstWords);
      const moderate = post.getByTestId(`moderate-${reply.id}`);
      await moderate.getByText("Moderate this reply").click();
      await moderate.getByPlaceholder("Reason (required)").fill("Off-topic advertising");
      await noSideways(page);
      await moderate.getByRole("button", { name: "Hide" }).click();
      const confirm = page.getByRole("dialog");
      await expect(confirm).toContainText("Hide this reply?");
      await confirm.getByRole("button", { name: "Hide" }).click();
      await expect(page.locator(`#reply-${reply.id}`)).toHaveCount(0);

      // The replier's own page: suspension, with a confirmation that says what it does.
      await page.goto(`/people/${replierMe.user.id}`);
      const operatorPanel = page.getByTestId("operator-person-panel");
      await operatorPanel.getByPlaceholder("Reason (required)").fill("Advertising in replies");
      await noSideways(page);
      await operatorPanel.getByRole("button", { name: "Suspend" }).click();
      const ask = page.getByRole("dialog");
      await expect(ask).toContainText("Pending bids are withdrawn");
      await ask.getByRole("button", { name: "Suspend" }).click();
      await expect(operatorPanel.getByRole("button", { name: "Restore" })).toBeVisible();
      // Suspended: their next reply is refused.
      const refused = await replier.client
        .createReply({ params: { slugOrId: thread.slug }, body: { body: uniqueText(200) } })
        .then(() => null)
        .catch((error: { code?: string }) => error.code);
      expect(refused).toBe("USER_SUSPENDED");
      // Restored from the same page.
      await operatorPanel.getByPlaceholder("Reason (required)").fill("Appeal accepted");
      await operatorPanel.getByRole("button", { name: "Restore" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Restore" }).click();
      await expect(operatorPanel.getByRole("button", { name: "Suspend" })).toBeVisible();
    });
  }
});
