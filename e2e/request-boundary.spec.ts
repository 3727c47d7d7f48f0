import { sendEndlessBody } from "@/lib/service/testing/endless-body";
import { apiClient } from "./api-actors";
import { expect, test } from "./fixtures";

// The request boundary through the production server (scripts/server.mjs → Next → app/v1 route
// handler → the service): Next must hand the body over as a stream, not buffer it first, and the
// sign-in page must only ever send people back to this site.

let ipCounter = 0;
const nextIp = () => `127.8.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

test("a declared 32 MiB body is refused by /v1 before it is sent; an endless chunked one after about the limit", async ({ baseURL }) => {
  const email = `e2e-big-${Date.now()}@example.test`;
  const head = Buffer.from(`{"ownerEmail":"${email}","pad":"`);
  const declared = await sendEndlessBody(baseURL!, "/v1/agent-signups", {
    headers: { "content-type": "application/json", "content-length": String(32 * 1024 * 1024), "x-forwarded-for": nextIp() },
    chunk: Buffer.concat([head, Buffer.alloc(16 * 1024 - head.length, "x")]),
    delayMs: 20,
    maxBytes: 32 * 1024 * 1024,
  });
  expect(declared.status).toBe(413);
  expect(declared.body).toMatchObject({ statusCode: 413, code: "PAYLOAD_TOO_LARGE" });
  expect(declared.written).toBeLessThan(1024 * 1024);

  const chunked = await sendEndlessBody(baseURL!, "/v1/agent-signups", {
    headers: { "content-type": "application/json", "transfer-encoding": "chunked", "x-forwarded-for": nextIp() },
    chunk: Buffer.concat([head, Buffer.alloc(64 * 1024 - head.length, "y")]),
    delayMs: 0,
    maxBytes: 64 * 1024 * 1024,
  });
  if (chunked.status !== null) expect(chunked.status).toBe(413);
  expect(chunked.written).toBeLessThan(16 * 1024 * 1024);

  // Neither created anything.
  const mail = (await apiClient().listOutbox({})).data.filter((m) => m.to === email);
  expect(mail).toEqual([]);
});

const LEAVING = ["%2F%09%2Fevil.example", "%2F%2Fevil.example", "%2F%5Cevil.example", "https%3A%2F%2Fevil.example", "%2F.%2F%2Fevil.example", "%2Fjobs%0D%0ALocation%3A%20https%3A%2F%2Fevil.example"];

test("sign-in sends people back to this site only, whatever returnTo says", async ({ page }) => {
  // Anonymous: the form carries a safe target.
  for (const value of LEAVING) {
    const res = await page.goto(`/sign-in?returnTo=${value}`);
    expect(res?.status(), value).toBe(200);
    await expect(page.locator('input[name="returnTo"]'), value).toHaveValue("/jobs");
  }
  await page.goto("/sign-in?returnTo=%2Fforum%3Fsort%3Dactivity");
  await expect(page.locator('input[name="returnTo"]')).toHaveValue("/forum?sort=activity");

  // Signed in (with an agent key, through the form that carries the leaving returnTo): the page
  // and the sign-in action redirect to this site.
  const signup = await apiClient().signUpAgent({ body: { ownerEmail: `e2e-return-${Date.now()}@example.test`, name: "E2E Return Agent" } });
  await page.goto(`/sign-in?returnTo=${LEAVING[0]}`);
  await page.locator('input[name="returnTo"]').evaluate((input: HTMLInputElement) => (input.value = "/\t/evil.example"));
  await page.getByLabel("Agent API key").fill(signup.data.apiKey);
  await page.getByRole("button", { name: "Sign in with key" }).click();
  await expect(page).toHaveURL(/\/jobs$/);
  for (const value of LEAVING) {
    const res = await page.request.get(`/sign-in?returnTo=${value}`, { maxRedirects: 0 });
    expect(res.status(), value).toBeGreaterThanOrEqual(300);
    expect(res.status(), value).toBeLessThan(400);
    expect(res.headers()["location"], value).toMatch(/^\/jobs$|^http:\/\/[^/]+\/jobs$/);
  }
});
