import { createHmac, randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { signWebhookPayload, standardWebhookSecret, verifyWebhookSignature, webhookHeaders } from "./webhooks";

const secret = `whsec_${randomBytes(32).toString("base64")}`;
const body = JSON.stringify({
  id: "evt_1",
  type: "job.assigned",
  timestamp: "2026-11-24T22:00:00.000Z",
  sequence: 1,
  createdAt: "2026-11-24T22:00:00.000Z",
  data: { jobId: "j" },
});
const timestamp = 1_790_000_000;
const now = new Date(timestamp * 1000);

describe("webhook signatures (Standard Webhooks 1.0)", () => {
  it("the signature is v1,<base64 HMAC-SHA256(base64-decoded secret, `${id}.${timestamp}.${body}`)>, checked independently", () => {
    const headers = webhookHeaders({ secrets: [secret], id: "evt_1", body, timestamp });
    const key = Buffer.from(secret.slice("whsec_".length), "base64");
    const expected = createHmac("sha256", key).update(`evt_1.${timestamp}.${body}`).digest("base64");
    expect(headers).toEqual({
      "webhook-id": "evt_1",
      "webhook-timestamp": String(timestamp),
      "webhook-signature": `v1,${expected}`,
    });
    expect(verifyWebhookSignature({ secret, body, headers, now })).toEqual({ ok: true, id: "evt_1", timestamp });
    // Raw bytes and a fetch Headers object (any case) work the same.
    expect(
      verifyWebhookSignature({
        secret,
        body: new TextEncoder().encode(body),
        headers: new Headers({
          "Webhook-Id": "evt_1",
          "Webhook-Timestamp": String(timestamp),
          "Webhook-Signature": `v1,${expected}`,
        }),
        now,
      }).ok,
    ).toBe(true);
  });

  it("the reference library verifies what we sign, and we verify what it signs", () => {
    const fresh = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders({ secrets: [secret], id: "msg_2", body, timestamp: fresh });
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    const theirs = new Webhook(secret).sign("msg_3", new Date(fresh * 1000), body);
    expect(
      verifyWebhookSignature({
        secret,
        body,
        headers: { "webhook-id": "msg_3", "webhook-timestamp": String(fresh), "webhook-signature": theirs },
      }).ok,
    ).toBe(true);
  });

  it("a secret issued in the URL-safe alphabet keeps its key bytes; standardWebhookSecret gives the form other libraries accept", () => {
    const bytes = randomBytes(32);
    const legacy = `whsec_${bytes.toString("base64url")}`;
    expect(standardWebhookSecret(legacy)).toBe(`whsec_${bytes.toString("base64")}`);
    const fresh = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders({ secrets: [legacy], id: "msg_4", body, timestamp: fresh });
    expect(() => new Webhook(standardWebhookSecret(legacy)).verify(body, headers)).not.toThrow();
    expect(verifyWebhookSignature({ secret: legacy, body, headers }).ok).toBe(true);
    expect(() => standardWebhookSecret("whsec_not base64!")).toThrow(/base64/);
  });

  it("another body, id, secret or timestamp does not verify", () => {
    const headers = webhookHeaders({ secrets: [secret], id: "evt_1", body, timestamp });
    expect(
      verifyWebhookSignature({ secret, body: body.replace("job.assigned", "job.paid"), headers, now }),
    ).toMatchObject({ ok: false, reason: "no signature matches" });
    expect(
      verifyWebhookSignature({ secret: `whsec_${randomBytes(32).toString("base64")}`, body, headers, now }).ok,
    ).toBe(false);
    expect(verifyWebhookSignature({ secret: `${secret}x`, body, headers, now })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/base64/),
    });
    // The id is signed: the same body and signature under another id is refused.
    expect(verifyWebhookSignature({ secret, body, headers: { ...headers, "webhook-id": "evt_2" }, now }).ok).toBe(
      false,
    );
    // The timestamp is signed: moving it to dodge the tolerance breaks the signature.
    expect(
      verifyWebhookSignature({ secret, body, headers: { ...headers, "webhook-timestamp": String(timestamp + 1) }, now })
        .ok,
    ).toBe(false);
  });

  it("a delivery older (or newer) than the tolerance is refused even with a good signature", () => {
    const old = webhookHeaders({ secrets: [secret], id: "evt_1", body, timestamp: timestamp - 301 });
    expect(verifyWebhookSignature({ secret, body, headers: old, now })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/tolerance/),
    });
    expect(verifyWebhookSignature({ secret, body, headers: old, now, toleranceSeconds: 600 }).ok).toBe(true);
    expect(
      verifyWebhookSignature({
        secret,
        body,
        headers: webhookHeaders({ secrets: [secret], id: "evt_1", body, timestamp: timestamp + 301 }),
        now,
      }).ok,
    ).toBe(false);
  });

  it("with two secrets (a rotation's overlap) both signatures are sent and either secret verifies; missing or malformed headers are refused", () => {
    const previous = `whsec_${randomBytes(32).toString("base64")}`;
    const both = webhookHeaders({ secrets: [secret, previous], id: "evt_1", body, timestamp });
    expect(both["webhook-signature"]).toBe(
      `${signWebhookPayload({ secret, id: "evt_1", timestamp, body })} ${signWebhookPayload({ secret: previous, id: "evt_1", timestamp, body })}`,
    );
    expect(verifyWebhookSignature({ secret, body, headers: both, now }).ok).toBe(true);
    expect(verifyWebhookSignature({ secret: previous, body, headers: both, now }).ok).toBe(true);
    const good = signWebhookPayload({ secret, id: "evt_1", timestamp, body });
    expect(
      verifyWebhookSignature({
        secret,
        body,
        headers: { ...both, "webhook-signature": good.replace("v1,", "v2,") },
        now,
      }).ok,
    ).toBe(false);
    expect(
      verifyWebhookSignature({
        secret,
        body,
        headers: { "webhook-timestamp": String(timestamp), "webhook-signature": good },
        now,
      }),
    ).toMatchObject({ ok: false, reason: expect.stringMatching(/missing/) });
    expect(
      verifyWebhookSignature({ secret, body, headers: { ...both, "webhook-timestamp": "12.5" }, now }),
    ).toMatchObject({ ok: false, reason: expect.stringMatching(/unix seconds/) });
  });
});
