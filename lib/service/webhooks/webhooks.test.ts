import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhookSignature, WEBHOOK_SECRET_PREFIX } from "@/lib/api/webhooks";
import {
  claimLinkFor,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
} from "../testing/harness";
import { expectError } from "../testing/expect-error";
import { startWorkers } from "../workers";
import { publishEvent } from "../events/publish-event";
import { webhookDeliveryWorker, webhookFanOutWorker } from "./worker";
import { fanOutWebhookEvents } from "./fan-out-webhooks";
import { deliverDueWebhooks, retryDelayMs } from "./deliver-webhooks";
import { openWebhookSecret } from "./endpoint-secret";
import { startReceiver, waitFor, type Receiver } from "../testing/webhooks-support";
import { claim, expireClaim, openBounty } from "../testing/job-modes-support";
import { lapseExpiredClaims } from "../jobs/read-job";

let service: TestService;
const receivers: Receiver[] = [];
beforeAll(async () => {
  // Loopback receivers are reachable only with the local chain's PROBE_ALLOW_LOOPBACK, as on the local stack.
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
  return res.json.data as { endpoint: { id: string; secretPrefix: string }; secret: string };
}

/** Runs fan-out, then delivery rounds at `now` until nothing is due. */
// Fans out every pending event, not only the oldest batch: on a shared PostgreSQL database the
// other test files' events come first, and ours may be past the first 200.
async function drain(ctx: TestService["ctx"], now?: Date) {
  while ((await fanOutWebhookEvents(ctx)) > 0) {
    // next batch
  }
  while ((await deliverDueWebhooks(ctx, now ? { now } : {})) > 0) {
    // next batch
  }
}

const HOUR = 3600_000;

describe("webhook endpoints: registering", () => {
  it("the secret (whsec_…) is shown once at creation, never in a read, and is stored only sealed", async () => {
    const agent = await newAgent(service);
    const r = await receiver();
    const created = await register(agent, {
      url: r.url,
      events: ["job.assigned", "bid.accepted"],
      description: "my receiver",
    });
    expect(created.secret.startsWith(WEBHOOK_SECRET_PREFIX)).toBe(true);
    expect(created.endpoint).toMatchObject({
      url: r.url,
      events: ["job.assigned", "bid.accepted"],
      description: "my receiver",
      enabled: true,
    });
    expect(created.secret.startsWith(created.endpoint.secretPrefix)).toBe(true);

    const list = await service.http("GET", hooks(agent.id), { token: agent.apiKey });
    const one = await service.http("GET", `${hooks(agent.id)}/${created.endpoint.id}`, { token: agent.apiKey });
    for (const res of [list, one]) {
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.json)).not.toContain(created.secret);
      expect(JSON.stringify(res.json)).not.toContain(created.secret.slice(12));
    }
    const row = await service.db
      .selectFrom("webhook_endpoints")
      .selectAll()
      .where("id", "=", created.endpoint.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_sealed).not.toContain(created.secret.slice(WEBHOOK_SECRET_PREFIX.length));
    expect(openWebhookSecret(service.ctx.config, row.secret_sealed)).toBe(created.secret);
    // Without the server's key the sealed value opens to nothing.
    expect(openWebhookSecret({ webhookSecretKey: "another-server-key" }, row.secret_sealed)).toBeNull();

    // Rotation shows a new secret once; the old one signs nothing any more.
    const rotated = await service.http("POST", `${hooks(agent.id)}/${created.endpoint.id}/rotate-secret`, {
      token: agent.apiKey,
    });
    expect(rotated.status).toBe(201);
    expect(rotated.json.data.secret).not.toBe(created.secret);
    const after = await service.db
      .selectFrom("webhook_endpoints")
      .select("secret_sealed")
      .where("id", "=", created.endpoint.id)
      .executeTakeFirstOrThrow();
    expect(openWebhookSecret(service.ctx.config, after.secret_sealed)).toBe(rotated.json.data.secret);
  });

  it("refuses a URL at the app itself or at a non-public address (SSRF), and unknown event types", async () => {
    const agent = await newAgent(service);
    const port = new URL(service.baseUrl).port;
    for (const url of [
      `${service.baseUrl}/v1/health`,
      `http://localhost:${port}/hook`,
      "http://localhost:8080/hook",
      "http://10.0.0.5/hook",
      "http://192.168.1.20:8080/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://[fd00::1]/hook",
      "http://printer.local/hook",
      "https://user:pass@example.com/hook",
    ]) {
      const res = await service.http("POST", hooks(agent.id), { token: agent.apiKey, body: { url } });
      expectError(res, 400, "WEBHOOK_URL_NOT_ALLOWED");
    }
    expectError(
      await service.http("POST", hooks(agent.id), { token: agent.apiKey, body: { url: "ftp://example.com/x" } }),
      400,
      "VALIDATION_FAILED",
    );
    expectError(
      await service.http("POST", hooks(agent.id), {
        token: agent.apiKey,
        body: { url: "https://example.com/x", events: ["job.exploded"] },
      }),
      400,
      "VALIDATION_FAILED",
    );
    // Loopback is refused where the deployment does not allow it (any real chain, or PROBE_ALLOW_LOOPBACK off).
    const strict = await startTestService();
    try {
      const other = await newAgent(strict);
      expectError(
        await strict.http("POST", `/v1/agents/${other.id}/webhooks`, {
          token: other.apiKey,
          body: { url: "http://127.0.0.1:4999/hook" },
        }),
        400,
        "WEBHOOK_URL_NOT_ALLOWED",
      );
      expectError(
        await strict.http("POST", `/v1/agents/${other.id}/webhooks`, {
          token: other.apiKey,
          body: { url: "http://[::1]:4999/hook" },
        }),
        400,
        "WEBHOOK_URL_NOT_ALLOWED",
      );
    } finally {
      await strict.stop();
    }
    expect(
      await service.db.selectFrom("webhook_endpoints").select("id").where("owner_id", "=", agent.id).execute(),
    ).toHaveLength(0);
    // The same screening applies to a changed URL.
    const ok = await register(agent, { url: "https://example.com/hook" });
    expectError(
      await service.http("PATCH", `${hooks(agent.id)}/${ok.endpoint.id}`, {
        token: agent.apiKey,
        body: { url: `${service.baseUrl}/x` },
      }),
      400,
      "WEBHOOK_URL_NOT_ALLOWED",
    );
  });

  it("a stranger (another agent's key, another person) can neither read nor change an agent's endpoints; the owner can", async () => {
    const ownerEmail = `webhooks-${process.pid}-${Date.now()}@example.test`;
    const agent = await newAgent(service, { ownerEmail });
    const owner = await newUser(service);
    expect(
      (
        await service.http("POST", `/v1/agent-claims/${await claimLinkFor(service, ownerEmail)}`, {
          token: owner.token,
        })
      ).status,
    ).toBe(200);
    const created = await register(agent, { url: "https://example.com/hook" });
    const id = created.endpoint.id;
    const strangerAgent = await newAgent(service);
    const strangerUser = await newUser(service);
    const calls: Array<[string, string, unknown?]> = [
      ["GET", hooks(agent.id)],
      ["POST", hooks(agent.id), { url: "https://example.org/mine" }],
      ["GET", `${hooks(agent.id)}/${id}`],
      ["PATCH", `${hooks(agent.id)}/${id}`, { url: "https://attacker.example/steal" }],
      ["POST", `${hooks(agent.id)}/${id}/rotate-secret`],
      ["POST", `${hooks(agent.id)}/${id}/test`],
      ["GET", `${hooks(agent.id)}/${id}/deliveries`],
      ["DELETE", `${hooks(agent.id)}/${id}`],
    ];
    for (const token of [strangerAgent.apiKey, strangerUser.token]) {
      for (const [method, path, body] of calls) {
        expectError(await service.http(method, path, { token, body }), 403, "FORBIDDEN");
      }
    }
    // Through its own agent's path a stranger cannot reach the endpoint either.
    expectError(
      await service.http("GET", `${hooks(strangerAgent.id)}/${id}`, { token: strangerAgent.apiKey }),
      404,
      "NOT_FOUND",
    );
    const row = await service.db
      .selectFrom("webhook_endpoints")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row.url).toBe("https://example.com/hook");

    const byOwner = await service.http("GET", hooks(agent.id), { token: owner.token });
    expect(byOwner.status).toBe(200);
    expect(byOwner.json.data.map((e: { id: string }) => e.id)).toEqual([id]);
    const disabled = await service.http("PATCH", `${hooks(agent.id)}/${id}`, {
      token: owner.token,
      body: { enabled: false },
    });
    expect(disabled.json.data).toMatchObject({ enabled: false, disabledReason: "disabled by its owner" });
    expect((await service.http("DELETE", `${hooks(agent.id)}/${id}`, { token: owner.token })).status).toBe(200);
    expect(await service.db.selectFrom("webhook_endpoints").select("id").where("id", "=", id).execute()).toHaveLength(
      0,
    );
  });
});

describe("webhook delivery", () => {
  it("the agent's receiver gets job.assigned, signed, within 5 s of the poster's accept (workers running)", async () => {
    const agent = await newAgent(service);
    const r = await receiver();
    const { secret } = await register(agent, { url: r.url, events: ["job.assigned"] });
    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const bid = (
      await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } })
    ).data;

    const stop = startWorkers(service.ctx, [webhookFanOutWorker, webhookDeliveryWorker]);
    try {
      const acceptedAt = Date.now();
      await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
      const hit = await waitFor(
        () => r.received.find((h) => JSON.parse(h.body).data?.jobId === job.id),
        5_000,
        "job.assigned at the receiver",
      );
      expect(hit.at - acceptedAt).toBeLessThan(5_000);
      const envelope = JSON.parse(hit.body);
      expect(envelope).toMatchObject({
        type: "job.assigned",
        data: { jobId: job.id, agentId: agent.id, via: "BID", bidId: bid.id },
      });
      expect(Object.keys(envelope).sort()).toEqual(["createdAt", "data", "id", "sequence", "timestamp", "type"]);
      expect(hit.headers["webhook-id"]).toBe(envelope.id);
      expect(hit.headers["content-type"]).toBe("application/json");
      expect(verifyWebhookSignature({ secret, body: hit.body, headers: hit.headers, toleranceSeconds: 300 })).toEqual({
        ok: true,
        id: envelope.id,
        timestamp: Number(hit.headers["webhook-timestamp"]),
      });
      // A body changed by one byte, another secret, or a stale timestamp does not verify.
      expect(
        verifyWebhookSignature({ secret, body: hit.body.replace("job.assigned", "job.assignee"), headers: hit.headers })
          .ok,
      ).toBe(false);
      expect(verifyWebhookSignature({ secret: `${secret}x`, body: hit.body, headers: hit.headers }).ok).toBe(false);
      expect(
        verifyWebhookSignature({
          secret,
          body: hit.body,
          headers: hit.headers,
          now: new Date(Date.now() + 10 * 60_000),
        }).ok,
      ).toBe(false);
      // Only the subscribed type came (bid.accepted was published too, in the same transaction).
      expect(r.received.map((h) => JSON.parse(h.body).type)).toEqual(["job.assigned"]);
    } finally {
      stop();
    }
  });

  it("answering 500 twice then 200 gives exactly three attempts and one delivered event, all in the log", async () => {
    const agent = await newAgent(service);
    const r = await receiver();
    r.answers.push(500, 500);
    const { endpoint, secret } = await register(agent, { url: r.url });
    const eventId = await service.db
      .transaction()
      .execute((trx) => publishEvent(trx, { type: "bid.accepted", to: [agent.id], data: { marker: endpoint.id } }));

    const t0 = Date.now();
    for (let round = 0; round < 6; round += 1) await drain(service.ctx, new Date(t0 + round * 2 * HOUR));
    const mine = r.received.filter((h) => h.headers["webhook-id"] === eventId);
    expect(mine).toHaveLength(3);
    for (const hit of mine)
      expect(verifyWebhookSignature({ secret, body: hit.body, headers: hit.headers }).ok).toBe(true);
    // Every attempt carries the same event (same id and envelope).
    expect(new Set(mine.map((h) => h.body)).size).toBe(1);

    const log = await service.http("GET", `${hooks(agent.id)}/${endpoint.id}/deliveries`, { token: agent.apiKey });
    expect(log.status).toBe(200);
    expect(log.json.data).toHaveLength(1);
    const [delivery] = log.json.data;
    expect(delivery).toMatchObject({
      eventId,
      eventType: "bid.accepted",
      status: "DELIVERED",
      attempts: 3,
      lastStatusCode: 200,
      lastError: null,
    });
    expect(delivery.log.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 500, 200]);
    expect(delivery.log[0]).toMatchObject({ responseExcerpt: "failure 500", error: "the receiver answered 500" });
    expect(delivery.log[2]).toMatchObject({ responseExcerpt: "ok thanks", error: null });
    for (const attempt of delivery.log) expect(attempt.latencyMs).toBeGreaterThanOrEqual(0);
    const endpointNow = await service.http("GET", `${hooks(agent.id)}/${endpoint.id}`, { token: agent.apiKey });
    expect(endpointNow.json.data).toMatchObject({ enabled: true, failingSince: null });

    // Redelivery sends the same event again, once.
    const redo = await service.http("POST", `${hooks(agent.id)}/${endpoint.id}/deliveries/${delivery.id}/redeliver`, {
      token: agent.apiKey,
    });
    expect(redo.status).toBe(202);
    expect(redo.json.data).toMatchObject({ status: "PENDING", eventId });
    await drain(service.ctx);
    expect(r.received.filter((h) => h.headers["webhook-id"] === eventId)).toHaveLength(4);
  });

  it("backoff is exponential with full jitter, capped", () => {
    const config = service.ctx.config;
    expect(retryDelayMs(config, 1, () => 0.999999)).toBeLessThan(config.webhookRetry.baseMs);
    expect(retryDelayMs(config, 3, () => 0.5)).toBe(Math.floor(0.5 * config.webhookRetry.baseMs * 4));
    expect(retryDelayMs(config, 30, () => 0.999999)).toBeLessThan(config.webhookRetry.maxMs);
    expect(retryDelayMs(config, 4, () => 0)).toBe(0);
  });

  it("send test queues a webhook.test to that endpoint only; a redirect is a failure, never followed", async () => {
    const agent = await newAgent(service);
    const a = await receiver();
    const b = await receiver();
    const first = await register(agent, { url: a.url });
    await register(agent, { url: b.url });
    const test = await service.http("POST", `${hooks(agent.id)}/${first.endpoint.id}/test`, { token: agent.apiKey });
    expect(test.status).toBe(202);
    expect(test.json.data).toMatchObject({ eventType: "webhook.test", status: "PENDING" });
    await drain(service.ctx);
    expect(a.received.map((h) => JSON.parse(h.body).type)).toEqual(["webhook.test"]);
    expect(b.received).toHaveLength(0);

    const redirecting = await receiver();
    redirecting.answers.push(302);
    const c = await register(agent, { url: redirecting.url });
    await service.http("POST", `${hooks(agent.id)}/${c.endpoint.id}/test`, { token: agent.apiKey });
    await drain(service.ctx);
    const log = await service.http("GET", `${hooks(agent.id)}/${c.endpoint.id}/deliveries`, { token: agent.apiKey });
    expect(log.json.data[0]).toMatchObject({ status: "PENDING", attempts: 1 });
    expect(log.json.data[0].lastError).toMatch(/redirect/);
    expect(redirecting.received).toHaveLength(1);
  });

  it("an endpoint failing for a whole day is disabled, its owner told with webhook.disabled; re-enabling clears it", async () => {
    const agent = await newAgent(service);
    const r = await receiver();
    r.fallback = 503;
    const { endpoint } = await register(agent, { url: r.url });
    await service.db
      .transaction()
      .execute((trx) => publishEvent(trx, { type: "job.cancelled", to: [agent.id], data: {} }));
    const read = () =>
      service.db.selectFrom("webhook_endpoints").selectAll().where("id", "=", endpoint.id).executeTakeFirstOrThrow();
    // Now, not at a time fixed beforehand: the fan-out makes the delivery due at the moment it runs.
    // On PostgreSQL other suites' workers share the database, and SKIP LOCKED may hand this very
    // event to one of them: drain until the first failed attempt is recorded, whoever made it.
    let row = await read();
    for (let tries = 0; row.failing_since === null && tries < 100; tries++) {
      await drain(service.ctx);
      row = await read();
      if (row.failing_since === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(row.enabled).toBe(true);
    expect(row.failing_since).not.toBeNull();
    const t0 = row.failing_since!.getTime();
    await drain(service.ctx, new Date(t0 + 12 * HOUR));
    expect(
      (
        await service.db
          .selectFrom("webhook_endpoints")
          .select("enabled")
          .where("id", "=", endpoint.id)
          .executeTakeFirstOrThrow()
      ).enabled,
    ).toBe(true);
    await drain(service.ctx, new Date(t0 + 25 * HOUR));
    row = await service.db
      .selectFrom("webhook_endpoints")
      .selectAll()
      .where("id", "=", endpoint.id)
      .executeTakeFirstOrThrow();
    expect(row.enabled).toBe(false);
    expect(row.disabled_reason).toMatch(/failed for 24 hours/);
    const notice = await service.db
      .selectFrom("domain_events")
      .selectAll()
      .where("type", "=", "webhook.disabled")
      .where(({ eb, ref }) => eb(ref("data", "->>").key("endpointId" as never), "=", endpoint.id))
      .execute();
    expect(notice).toHaveLength(1);
    expect(notice[0]!.recipient_ids).toEqual([agent.id]);
    // Nothing more is sent to it...
    const before = r.received.length;
    await service.db
      .transaction()
      .execute((trx) => publishEvent(trx, { type: "job.cancelled", to: [agent.id], data: {} }));
    await drain(service.ctx, new Date(t0 + 30 * HOUR));
    expect(r.received.length).toBe(before);
    // ...until its owner turns it back on.
    const enabled = await service.http("PATCH", `${hooks(agent.id)}/${endpoint.id}`, {
      token: agent.apiKey,
      body: { enabled: true },
    });
    expect(enabled.json.data).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
  });
});

describe("a person's own endpoints (/v1/me/webhooks)", () => {
  it("a poster receives the events naming them (job.assigned of the job they posted); agents and other people cannot reach them", async () => {
    const poster = await newUser(service);
    const r = await receiver();
    const created = await service.http("POST", "/v1/me/webhooks", {
      token: poster.token,
      body: { url: r.url, events: ["job.assigned", "bid.accepted"] },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const { endpoint, secret } = created.json.data;
    expect(endpoint).toMatchObject({ ownerId: poster.id, enabled: true });
    expect(secret.startsWith(WEBHOOK_SECRET_PREFIX)).toBe(true);

    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const agent = await newAgent(service);
    const bid = (
      await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } })
    ).data;
    await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
    await drain(service.ctx);
    // job.assigned names the poster; bid.accepted names only the agent, so it is not the poster's.
    expect(r.received.map((h) => JSON.parse(h.body).type)).toEqual(["job.assigned"]);
    expect(verifyWebhookSignature({ secret, body: r.received[0]!.body, headers: r.received[0]!.headers }).ok).toBe(
      true,
    );

    const log = await service.http("GET", `/v1/me/webhooks/${endpoint.id}/deliveries`, { token: poster.token });
    expect(log.json.data.map((d: { eventType: string; status: string }) => [d.eventType, d.status])).toEqual([
      ["job.assigned", "DELIVERED"],
    ]);
    expect(JSON.stringify((await service.http("GET", "/v1/me/webhooks", { token: poster.token })).json)).not.toContain(
      secret,
    );

    // An agent key is not a person; another person does not see the endpoint.
    expectError(await service.http("GET", "/v1/me/webhooks", { token: agent.apiKey }), 403, "FORBIDDEN");
    expectError(
      await service.http("POST", "/v1/me/webhooks", { token: agent.apiKey, body: { url: "https://example.com/h" } }),
      403,
      "FORBIDDEN",
    );
    const other = await newUser(service);
    expectError(await service.http("GET", `/v1/me/webhooks/${endpoint.id}`, { token: other.token }), 404, "NOT_FOUND");
    expectError(
      await service.http("DELETE", `/v1/me/webhooks/${endpoint.id}`, { token: other.token }),
      404,
      "NOT_FOUND",
    );
    expectError(
      await service.http("POST", "/v1/me/webhooks", { token: poster.token, body: { url: `${service.baseUrl}/hook` } }),
      400,
      "WEBHOOK_URL_NOT_ALLOWED",
    );
    expect((await service.http("DELETE", `/v1/me/webhooks/${endpoint.id}`, { token: poster.token })).status).toBe(200);
  });
});

describe("events published at the domain points", () => {
  // bid.created is another domain's event (placing a bid); these are the ones this suite is about.
  const eventsOf = (jobId: string) =>
    service.db
      .selectFrom("domain_events")
      .selectAll()
      .where("job_id", "=", jobId)
      .where("type", "!=", "bid.created")
      .orderBy("seq")
      .execute();

  it("accepting a bid: bid.accepted to the agent, job.assigned to agent and poster, bid.rejected to the others; rejecting and cancelling too", async () => {
    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const winner = await newAgent(service);
    const loser = await newAgent(service);
    const won = (
      await winner.client.placeBid({ params: { id: job.id }, body: { agentId: winner.id, proposedUsdc: "40" } })
    ).data;
    const lost = (
      await loser.client.placeBid({ params: { id: job.id }, body: { agentId: loser.id, proposedUsdc: "35" } })
    ).data;
    await poster.client.acceptBid({ params: { jobId: job.id, bidId: won.id } });
    const events = await eventsOf(job.id);
    expect(events.map((e) => [e.type, e.recipient_ids])).toEqual([
      ["bid.accepted", [winner.id]],
      ["job.assigned", [winner.id, poster.id]],
      ["bid.rejected", [loser.id]],
    ]);
    expect(events[2]!.data).toMatchObject({ bidId: lost.id, reason: "ANOTHER_BID_ACCEPTED" });
    expect(events.every((e) => e.actor_id === poster.id)).toBe(true);

    const other = (await poster.client.createJob({ body: jobInput() })).data;
    const pending = (
      await loser.client.placeBid({ params: { id: other.id }, body: { agentId: loser.id, proposedUsdc: "40" } })
    ).data;
    await poster.client.rejectBid({ params: { jobId: other.id, bidId: pending.id } });
    const third = await newAgent(service);
    await third.client.placeBid({ params: { id: other.id }, body: { agentId: third.id, proposedUsdc: "40" } });
    await poster.client.cancelJob({ params: { id: other.id } });
    expect((await eventsOf(other.id)).map((e) => [e.type, e.recipient_ids])).toEqual([
      ["bid.rejected", [loser.id]],
      ["job.cancelled", [poster.id, third.id]],
    ]);
  });
});

describe("events of bounty claims", () => {
  it("claiming a bounty publishes job.assigned; a claim that runs out publishes claim.lapsed, both to agent and poster", async () => {
    const { poster, job } = await openBounty(service);
    const agent = await newAgent(service);
    expect((await claim(service, agent, job.id)).status).toBe(200);
    await expireClaim(service, job.id);
    expect(await lapseExpiredClaims(service.ctx, { jobId: job.id })).toEqual([job.id]);
    const events = await service.db
      .selectFrom("domain_events")
      .selectAll()
      .where("job_id", "=", job.id)
      .orderBy("seq")
      .execute();
    expect(events.map((e) => [e.type, e.recipient_ids])).toEqual([
      ["job.assigned", [agent.id, poster.id]],
      ["claim.lapsed", [agent.id, poster.id]],
    ]);
    expect(events[0]!.data).toMatchObject({ via: "BOUNTY_CLAIM", agentId: agent.id });
    expect(events[1]!.data).toMatchObject({ jobId: job.id, agentId: agent.id });
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)("two app instances on one PostgreSQL", () => {
  it("deliver each event once", async () => {
    const second = await startTestService({ probeAllowLoopback: true });
    const agent = await newAgent(service);
    const r = await receiver();
    await register(agent, { url: r.url });
    const stops = [
      startWorkers(service.ctx, [webhookFanOutWorker, webhookDeliveryWorker]),
      startWorkers(second.ctx, [webhookFanOutWorker, webhookDeliveryWorker]),
    ];
    try {
      const ids: string[] = [];
      for (let i = 0; i < 30; i += 1) {
        ids.push(
          await service.db
            .transaction()
            .execute((trx) => publishEvent(trx, { type: "bid.rejected", to: [agent.id], data: { n: i } })),
        );
      }
      await waitFor(
        () => (new Set(r.received.map((h) => h.headers["webhook-id"])).size >= ids.length ? true : undefined),
        20_000,
        "every event at the receiver",
      );
      // Give a duplicate time to arrive, if any would.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const got = r.received.map((h) => h.headers["webhook-id"] as string);
      expect(got.sort()).toEqual([...ids].sort());
      const rows = await service.db
        .selectFrom("webhook_deliveries")
        .select(["status", "attempts"])
        .where("event_id", "in", ids)
        .execute();
      expect(rows).toHaveLength(ids.length);
      expect(rows.every((row) => row.status === "DELIVERED" && row.attempts === 1)).toBe(true);
    } finally {
      stops.forEach((stop) => stop());
      await second.stop();
    }
  });
});
