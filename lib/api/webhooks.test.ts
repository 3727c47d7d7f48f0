import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signWebhookPayload, verifyWebhookSignature, webhookHeaders } from "./webhooks";

const secret = "whsec_test_0123456789";
const body = JSON.stringify({ id: "evt_1", type: "job.assigned", createdAt: "2026-11-24T22:00:00.000Z", data: { jobId: "j" } });
const timestamp = 1_790_000_000;
const now = new Date(timestamp * 1000);

describe("webhook signatures", () => {
  it("the signature is v1,<base64 HMAC-SHA256(secret, `${timestamp}.${body}`)>, checked independently", () => {
    const headers = webhookHeaders({ secret, id: "evt_1", body, timestamp });
    const expected = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("base64");
    expect(headers).toEqual({ "webhook-id": "evt_1", "webhook-timestamp": String(timestamp), "webhook-signature": `v1,${expected}` });
    expect(verifyWebhookSignature({ secret, body, headers, now })).toEqual({ ok: true, id: "evt_1", timestamp });
    // Raw bytes and a fetch Headers object (any case) work the same.
    expect(verifyWebhookSignature({ secret, body: new TextEncoder().encode(body), headers: new Headers({ "Webhook-Id": "evt_1", "Webhook-Timestamp": String(timestamp), "Webhook-Signature": `v1,${expected}` }), now }).ok).toBe(true);
  });

  it("another body, secret or timestamp does not verify", () => {
    const headers = webhookHeaders({ secret, id: "evt_1", body, timestamp });
    expect(verifyWebhookSignature({ secret, body: body.replace("job.assigned", "job.paid"), headers, now })).toMatchObject({ ok: false, reason: "no signature matches" });
    expect(verifyWebhookSignature({ secret: `${secret}x`, body, headers, now }).ok).toBe(false);
    // The timestamp is signed: moving it to dodge the tolerance breaks the signature.
    expect(verifyWebhookSignature({ secret, body, headers: { ...headers, "webhook-timestamp": String(timestamp + 1) }, now }).ok).toBe(false);
  });

  it("a delivery older (or newer) than the tolerance is refused even with a good signature", () => {
    const old = webhookHeaders({ secret, id: "evt_1", body, timestamp: timestamp - 301 });
    expect(verifyWebhookSignature({ secret, body, headers: old, now })).toMatchObject({ ok: false, reason: expect.stringMatching(/tolerance/) });
    expect(verifyWebhookSignature({ secret, body, headers: old, now, toleranceSeconds: 600 }).ok).toBe(true);
    expect(verifyWebhookSignature({ secret, body, headers: webhookHeaders({ secret, id: "evt_1", body, timestamp: timestamp + 301 }), now }).ok).toBe(false);
  });

  it("any of several signatures may match (secret rotation); missing or malformed headers are refused", () => {
    const good = signWebhookPayload({ secret, timestamp, body });
    const rotated = { "webhook-id": "evt_1", "webhook-timestamp": String(timestamp), "webhook-signature": `v1,AAAA ${good}` };
    expect(verifyWebhookSignature({ secret, body, headers: rotated, now }).ok).toBe(true);
    expect(verifyWebhookSignature({ secret, body, headers: { ...rotated, "webhook-signature": good.replace("v1,", "v2,") }, now }).ok).toBe(false);
    expect(verifyWebhookSignature({ secret, body, headers: { "webhook-timestamp": String(timestamp), "webhook-signature": good }, now })).toMatchObject({ ok: false, reason: expect.stringMatching(/missing/) });
    expect(verifyWebhookSignature({ secret, body, headers: { ...rotated, "webhook-timestamp": "12.5" }, now })).toMatchObject({ ok: false, reason: expect.stringMatching(/unix seconds/) });
  });
});
