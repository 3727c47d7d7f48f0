import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhookSignature } from "../lib/api/webhooks";
import { apiClient } from "./api-actors";
import { expect, test } from "./fixtures";
import { claimAgentFromMail, signInWithWallet } from "./sign-in-steps";

// Webhooks in the dashboard: an agent's (for its owner, on the agent's page) and a person's own
// (/settings/webhooks). An endpoint is registered (a receiver on loopback, which the local stack
// allows), its signing secret is shown once, a test is sent and the delivery shows in the log; the
// receiver got it signed with that secret.

/** A receiver on loopback that answers 200 "received" and keeps what it got. */
async function startReceiver() {
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200, { "content-type": "text/plain" }).end("received");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/awm-hook-${Date.now().toString(36)}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test("the owner registers a webhook, sees its secret once, sends a test and sees it delivered in the log", async ({
  page,
  wallet,
}) => {
  void wallet;
  const { url, received, close } = await startReceiver();
  try {
    const run = Date.now().toString(36);
    const ownerEmail = `hooks-owner-${run}@example.test`;
    const signup = await apiClient().signUpAgent({
      body: { ownerEmail, name: `Hooked Bot ${run}`, vertical: "RESEARCH" },
    });
    const agentId = signup.data.agent.id;

    await signInWithWallet(page, "/agents");
    await claimAgentFromMail(page, ownerEmail);

    await page.goto(`/agents/${agentId}`);
    const form = page.getByRole("form", { name: "Register a webhook endpoint" });
    await form.getByLabel("Endpoint URL").fill(url);
    await form.getByLabel("Description (optional)").fill("e2e receiver");
    await form.getByText("Events (none checked: every event)").click();
    await form.getByRole("checkbox", { name: "job.assigned" }).check();
    await form.getByRole("checkbox", { name: "webhook.test" }).check();
    await form.getByRole("button", { name: "Register endpoint" }).click();
    const shown = page.getByLabel("Webhook signing secret");
    await expect(shown).toHaveText(/^whsec_/);
    const secret = (await shown.textContent())!.trim();

    // Once: after a reload only its first characters are on the page.
    await page.reload();
    await expect(page.getByLabel("Webhook signing secret")).toHaveCount(0);
    expect(await page.content()).not.toContain(secret);
    const endpoint = page.getByRole("listitem", { name: `Endpoint ${url}` });
    await expect(endpoint).toContainText(secret.slice(0, 10));
    await expect(endpoint).toContainText("job.assigned, webhook.test");
    await expect(endpoint.getByText("No deliveries yet.")).toBeVisible();

    await endpoint.getByRole("button", { name: "Send test" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Queued" })).toBeVisible();
    // The workers deliver within seconds; the log shows it once the page is loaded again.
    await expect(async () => {
      await page.reload();
      await expect(page.getByRole("listitem", { name: "Delivery webhook.test delivered" })).toBeVisible({
        timeout: 1_000,
      });
    }).toPass({ timeout: 20_000 });
    const delivery = page.getByRole("listitem", { name: "Delivery webhook.test delivered" });
    await expect(delivery).toContainText("HTTP 200");
    await expect(delivery).toContainText("received");

    expect(received).toHaveLength(1);
    const [hit] = received;
    expect(JSON.parse(hit!.body)).toMatchObject({ type: "webhook.test", data: { agentId } });
    expect(verifyWebhookSignature({ secret, body: hit!.body, headers: hit!.headers }).ok).toBe(true);
  } finally {
    await close();
  }
});

test("a person registers a webhook of their own in settings, sends a test and sees it delivered, signed", async ({
  page,
  wallet,
}) => {
  void wallet;
  const receiver = await startReceiver();
  try {
    await signInWithWallet(page, "/settings/notifications");
    await page.getByRole("link", { name: "set up webhooks" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();

    const form = page.getByRole("form", { name: "Register a webhook endpoint" });
    await form.getByLabel("Endpoint URL").fill(receiver.url);
    await form.getByRole("button", { name: "Register endpoint" }).click();
    const shown = page.getByLabel("Webhook signing secret");
    await expect(shown).toHaveText(/^whsec_/);
    const secret = (await shown.textContent())!.trim();

    await page.reload();
    expect(await page.content()).not.toContain(secret);
    const endpoint = page.getByRole("listitem", { name: `Endpoint ${receiver.url}` });
    await expect(endpoint).toContainText("every event");
    await endpoint.getByRole("button", { name: "Send test" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Queued" })).toBeVisible();
    await expect(async () => {
      await page.reload();
      await expect(endpoint.getByRole("listitem", { name: "Delivery webhook.test delivered" })).toBeVisible({
        timeout: 1_000,
      });
    }).toPass({ timeout: 20_000 });

    expect(receiver.received).toHaveLength(1);
    const [hit] = receiver.received;
    expect(JSON.parse(hit!.body)).toMatchObject({ type: "webhook.test" });
    expect(verifyWebhookSignature({ secret, body: hit!.body, headers: hit!.headers }).ok).toBe(true);

    // Disabled from the page, it says so.
    await endpoint.getByRole("button", { name: "Disable" }).click();
    await expect(endpoint.getByText("disabled", { exact: true })).toBeVisible();
  } finally {
    await receiver.close();
  }
});
