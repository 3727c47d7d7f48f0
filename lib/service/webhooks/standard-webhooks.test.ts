import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { standardWebhookSecret } from "@/lib/api/webhooks";
import { newAgent, startTestService, type TestAgent, type TestService } from "../testing/harness";
import { publishEvent } from "../events/publish-event";
import { fanOutWebhookEvents } from "./fan-out-webhooks";
import { deliverDueWebhooks } from "./deliver-webhooks";
import { sealWebhookSecret } from "./endpoint-secret";
import { startReceiver, type ReceivedWebhook, type Receiver } from "../testing/webhooks-support";

// Deliveries as a Standard Webhooks receiver sees them: the reference library (standardwebhooks on
// npm) is the judge, on real POSTs from the delivery worker to a loopback receiver.

let service: TestService;
const receivers: Receiver[] = [];
beforeAll(async () => {
  service = await startTestService({ probeAllowLoopback: true });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await service.stop();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

const hooks = (agentId: string) => `/v1/agents/${agentId}/webhooks`;

async function register(agent: TestAgent, body: Record<string, unknown>) {
  const res = await service.http("POST", hooks(agent.id), { token: agent.apiKey, body });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data as { endpoint: { id: string }; secret: string };
}

// Fans out every pending event, not only the oldest batch: on a shared PostgreSQL database the
// other test files' events come first, and ours may be past the first 200.
async function drain(now?: Date) {
  while ((await fanOutWebhookEvents(service.ctx)) > 0) {
    // next batch
  }
  while ((await deliverDueWebhooks(service.ctx, now ? { now } : {})) > 0) {
    // next batch
  }
}

/** What the reference library says of a received delivery with this secret: the parsed payload, or its error. */
function verdict(secret: string, hit: ReceivedWebhook): unknown {
  try {
    return new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>);
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.message;
    throw error;
  }
}

const publish = (agentId: string, type: "job.assigned" | "job.paid" | "bid.accepted", data: Record<string, unknown>) =>
  service.db.transaction().execute((trx) => publishEvent(trx, { type, to: [agentId], data }));

describe("Standard Webhooks 1.0, judged by the reference library", () => {
  it("a new secret is whsec_ + base64 of 32 bytes, and the library verifies a real delivery and reads its payload", async () => {
    const agent = await newAgent(service);
    const r = await receiver();
    const { secret } = await register(agent, { url: r.url });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32);
    const eventId = await publish(agent.id, "job.assigned", { jobId: "j-1" });
    await drain();
    const hit = r.received.find((h) => h.headers["webhook-id"] === eventId)!;
    const payload = verdict(secret, hit) as Record<string, unknown>;
    expect(payload).toMatchObject({ id: eventId, type: "job.assigned", data: { jobId: "j-1" } });
    expect(typeof payload.sequence).toBe("number");
    expect(payload.timestamp).toBe(payload.createdAt);
    expect(hit.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // Another secret, or another id for the same body and signature, fails.
    expect(verdict(`whsec_${Buffer.alloc(32, 7).toString("base64")}`, hit)).toBe("No matching signature found");
    expect(verdict(secret, { ...hit, headers: { ...hit.headers, "webhook-id": "msg_other" } })).toBe(
      "No matching signature found",
    );
  });

  it("rotating sends both signatures for a day: the old and the new secret both verify during the overlap, only the new one after", async () => {
    const agent = await newAgent(service);
    const r = await receiver();
    const { endpoint, secret: oldSecret } = await register(agent, { url: r.url });
    const rotated = await service.http("POST", `${hooks(agent.id)}/${endpoint.id}/rotate-secret`, {
      token: agent.apiKey,
    });
    expect(rotated.status).toBe(201);
    const newSecret = rotated.json.data.secret as string;
    expect(newSecret).not.toBe(oldSecret);

    const during = await publish(agent.id, "bid.accepted", { n: 1 });
    await drain();
    const hit = r.received.find((h) => h.headers["webhook-id"] === during)!;
    const signatures = String(hit.headers["webhook-signature"]).split(" ");
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => /^v1,/.test(s))).toBe(true);
    expect(verdict(newSecret, hit)).toMatchObject({ id: during });
    expect(verdict(oldSecret, hit)).toMatchObject({ id: during });

    // A day later the old secret no longer signs.
    await service.db
      .updateTable("webhook_endpoints")
      .set({ previous_secret_expires_at: new Date(Date.now() - 1000) })
      .where("id", "=", endpoint.id)
      .execute();
    const after = await publish(agent.id, "bid.accepted", { n: 2 });
    await drain();
    const later = r.received.find((h) => h.headers["webhook-id"] === after)!;
    expect(String(later.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(verdict(newSecret, later)).toMatchObject({ id: after });
    expect(verdict(oldSecret, later)).toBe("No matching signature found");
  });

  it("an endpoint whose secret was issued in the URL-safe alphabet keeps its key bytes: the library verifies with the secret in the standard alphabet", async () => {
    const agent = await newAgent(service);
    const r = await receiver();
    const { endpoint } = await register(agent, { url: r.url });
    const legacy = `whsec_${Buffer.alloc(32, 251).toString("base64url")}`;
    expect(legacy).toMatch(/[-_]/);
    await service.db
      .updateTable("webhook_endpoints")
      .set({ secret_sealed: sealWebhookSecret(service.ctx.config, legacy) })
      .where("id", "=", endpoint.id)
      .execute();
    const eventId = await publish(agent.id, "job.paid", { jobId: "j-2" });
    await drain();
    const hit = r.received.find((h) => h.headers["webhook-id"] === eventId)!;
    expect(verdict(standardWebhookSecret(legacy), hit)).toMatchObject({ id: eventId });
  });
});

describe("order of deliveries to one endpoint", () => {
  it("events reach an endpoint in event order, one at a time: a later event waits while an earlier one is being retried; sequence increases", async () => {
    const agent = await newAgent(service);
    const r = await receiver();
    const { secret } = await register(agent, { url: r.url });
    // The first attempt fails: the events behind it must wait for its retry instead of overtaking it.
    r.answers.push(500);
    const ids: string[] = [];
    ids.push(await publish(agent.id, "job.assigned", { step: 1 }));
    ids.push(await publish(agent.id, "bid.accepted", { step: 2 }));
    ids.push(await publish(agent.id, "job.paid", { step: 3 }));
    await drain();
    // Only the first was tried, and it failed: nothing else went out.
    expect(r.received.map((h) => h.headers["webhook-id"])).toEqual([ids[0]]);
    // Later rounds (its retry due) deliver it, then the others, in order.
    const t0 = Date.now();
    for (let round = 1; round <= 4; round += 1) await drain(new Date(t0 + round * 3600_000));
    expect(r.received.map((h) => h.headers["webhook-id"])).toEqual([ids[0], ids[0], ids[1], ids[2]]);
    const sequences = r.received.slice(1).map((h) => (verdict(secret, h) as { sequence: number }).sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(new Set(sequences).size).toBe(3);
  });

  it("several delivery workers at once still send one endpoint's events one at a time, in order", async () => {
    const agent = await newAgent(service);
    const r = await receiver();
    await register(agent, { url: r.url });
    const ids: string[] = [];
    for (let step = 0; step < 6; step += 1) ids.push(await publish(agent.id, "bid.accepted", { step }));
    while ((await fanOutWebhookEvents(service.ctx)) > 0) {
      // every pending event, ours among them
    }
    // Four instances' delivery rounds in parallel, until nothing is left (on a loaded machine an
    // attempt may time out and come back after its backoff: the deadline leaves room for that).
    const deadline = Date.now() + 100_000;
    const worker = async () => {
      while (Date.now() < deadline) {
        const pending = await service.db
          .selectFrom("webhook_deliveries")
          .select("id")
          .where("event_id", "in", ids)
          .where("status", "=", "PENDING")
          .execute();
        if (pending.length === 0) return;
        if ((await deliverDueWebhooks(service.ctx)) === 0) await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    // A retried event may arrive twice in a row; never one after a later one.
    const arrived = r.received.map((h) => h.headers["webhook-id"]).filter((id, i, all) => i === 0 || all[i - 1] !== id);
    expect(arrived).toEqual(ids);
  }, 150_000);
});
