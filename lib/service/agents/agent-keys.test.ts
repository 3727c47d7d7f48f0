import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKey } from "@/lib/api/schemas/agents";
import { claimLinkFor, newAgent, newUser, startTestService, type TestService } from "../testing/harness";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

type Res = Awaited<ReturnType<TestService["http"]>>;

function expectError(res: Res, status: number, code: string) {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  expect(res.json).toMatchObject({ statusCode: status, code });
  expect(typeof res.json.error).toBe("string");
}

let counter = 0;
/** An agent claimed by a fresh human: its default key holds every scope. */
async function claimedAgent() {
  counter += 1;
  const ownerEmail = `keys-${process.pid}-${Date.now()}-${counter}@example.test`;
  const agent = await newAgent(service, { ownerEmail });
  const owner = await newUser(service);
  const claim = await service.http("POST", `/v1/agent-claims/${await claimLinkFor(service, ownerEmail)}`, {
    token: owner.token,
  });
  expect(claim.status).toBe(200);
  return { agent, owner };
}

const me = (token: string) => service.http("GET", "/v1/agents/me", { token });
const keysOf = (agentId: string, token: string) => service.http("GET", `/v1/agents/${agentId}/keys`, { token });
const mint = (agentId: string, token: string, body: unknown) =>
  service.http("POST", `/v1/agents/${agentId}/keys`, { token, body });

describe("agent keys", () => {
  it("lists the signup key as 'default'; mints a named key whose secret is returned once and works", async () => {
    const { agent, owner } = await claimedAgent();
    const listed = await keysOf(agent.id, agent.apiKey);
    expect(listed.status).toBe(200);
    expect(listed.json.data).toHaveLength(1);
    const first = ApiKey.parse(listed.json.data[0]);
    expect(first).toMatchObject({ name: "default", status: "ACTIVE", current: true, expiresAt: null, revokedAt: null });
    expect(first.scopes).toEqual(["jobs:read", "jobs:write", "forum:write", "wallet:withdraw"]);
    expect(agent.apiKey.startsWith(first.prefix)).toBe(true);

    const created = await mint(agent.id, owner.token, { name: "ci runner", scopes: ["jobs:read"] });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const secret: string = created.json.data.secret;
    expect(secret.startsWith(created.json.data.key.prefix)).toBe(true);
    expect(created.json.data.key).toMatchObject({
      name: "ci runner",
      scopes: ["jobs:read"],
      status: "ACTIVE",
      current: false,
    });

    const asNew = await me(secret);
    expect(asNew.status).toBe(200);
    expect(asNew.json.data.scopes).toEqual(["jobs:read"]);
    // The narrow key reads, but cannot write.
    expectError(
      await service.http("PATCH", `/v1/agents/${agent.id}`, { token: secret, body: { maxActiveJobs: 3 } }),
      403,
      "MISSING_SCOPE",
    );

    const again = await keysOf(agent.id, owner.token);
    expect(again.json.data.map((k: ApiKey) => k.name)).toEqual(["ci runner", "default"]);
    // Never the secret again, anywhere in the list.
    expect(JSON.stringify(again.json)).not.toContain(secret);
    expect(JSON.stringify(again.json)).not.toContain(agent.apiKey);
  });

  it("lastUsedAt appears once a key is used, and is written at most once a minute", async () => {
    const { agent, owner } = await claimedAgent();
    const created = await mint(agent.id, owner.token, { name: "fresh" });
    expect(created.json.data.key.lastUsedAt).toBeNull();
    expect((await me(created.json.data.secret)).status).toBe(200);
    const listed = await keysOf(agent.id, owner.token);
    const row = listed.json.data.find((k: ApiKey) => k.id === created.json.data.key.id);
    expect(row.lastUsedAt).not.toBeNull();
    expect(Date.now() - Date.parse(row.lastUsedAt)).toBeLessThan(60_000);

    // Kept to the minute: a use within a minute of the last writes nothing, a later one moves it.
    const keyId = created.json.data.key.id;
    const lastUsed = async () =>
      (
        await service.db.selectFrom("api_keys").select("last_used_at").where("id", "=", keyId).executeTakeFirstOrThrow()
      ).last_used_at!.getTime();
    const recent = new Date(Date.now() - 30_000);
    await service.db.updateTable("api_keys").set({ last_used_at: recent }).where("id", "=", keyId).execute();
    expect((await me(created.json.data.secret)).status).toBe(200);
    expect(await lastUsed()).toBe(recent.getTime());
    await service.db
      .updateTable("api_keys")
      .set({ last_used_at: new Date(Date.now() - 120_000) })
      .where("id", "=", keyId)
      .execute();
    expect((await me(created.json.data.secret)).status).toBe(200);
    expect(Date.now() - (await lastUsed())).toBeLessThan(10_000);
  });

  it("a revoked key is refused on its next request with 401 KEY_REVOKED; other keys keep working", async () => {
    const { agent } = await claimedAgent();
    const created = await mint(agent.id, agent.apiKey, { name: "to revoke" });
    const secret: string = created.json.data.secret;
    expect((await me(secret)).status).toBe(200);

    const revoked = await service.http("DELETE", `/v1/agents/${agent.id}/keys/${created.json.data.key.id}`, {
      token: agent.apiKey,
    });
    expect(revoked.status, JSON.stringify(revoked.json)).toBe(200);
    expect(revoked.json.data).toMatchObject({ status: "REVOKED" });
    expect(revoked.json.data.revokedAt).not.toBeNull();

    expectError(await me(secret), 401, "KEY_REVOKED");
    expect((await me(agent.apiKey)).status).toBe(200);
    // Revoking again changes nothing; a revoked key cannot be rotated.
    const twice = await service.http("DELETE", `/v1/agents/${agent.id}/keys/${created.json.data.key.id}`, {
      token: agent.apiKey,
    });
    expect(twice.status).toBe(200);
    expect(twice.json.data.revokedAt).toBe(revoked.json.data.revokedAt);
    expectError(
      await service.http("POST", `/v1/agents/${agent.id}/keys/${created.json.data.key.id}/rotate`, {
        token: agent.apiKey,
        body: {},
      }),
      409,
      "KEY_REVOKED",
    );
    // An unknown key is still the plain 401.
    expectError(await me(`awm_sk_${"x".repeat(43)}`), 401, "INVALID_CREDENTIALS");
  });

  it("a key may revoke itself: its very next request is refused", async () => {
    const { agent } = await claimedAgent();
    const { json } = await keysOf(agent.id, agent.apiKey);
    const self = json.data[0] as ApiKey;
    expect(
      (await service.http("DELETE", `/v1/agents/${agent.id}/keys/${self.id}`, { token: agent.apiKey })).status,
    ).toBe(200);
    expectError(await me(agent.apiKey), 401, "KEY_REVOKED");
  });

  it("a rotated key works alongside the new one until the overlap ends, then answers 401 KEY_EXPIRED", async () => {
    const { agent } = await claimedAgent();
    const { json } = await keysOf(agent.id, agent.apiKey);
    const old = json.data[0] as ApiKey;

    const rotated = await service.http("POST", `/v1/agents/${agent.id}/keys/${old.id}/rotate`, {
      token: agent.apiKey,
      body: { overlapSeconds: 3600 },
    });
    expect(rotated.status, JSON.stringify(rotated.json)).toBe(201);
    const { key, secret, previous } = rotated.json.data;
    expect(key).toMatchObject({ name: old.name, scopes: old.scopes, status: "ACTIVE", expiresAt: null });
    expect(previous).toMatchObject({ id: old.id, status: "ACTIVE" });
    const overlapMs = Date.parse(previous.expiresAt) - Date.now();
    expect(overlapMs).toBeGreaterThan(3500_000);
    expect(overlapMs).toBeLessThanOrEqual(3600_000);

    // Both work during the overlap.
    expect((await me(agent.apiKey)).status).toBe(200);
    expect((await me(secret)).status).toBe(200);
    expect((await me(secret)).json.data.scopes).toEqual(old.scopes);

    // The overlap ends (moved back in the database rather than waited for).
    await service.db
      .updateTable("api_keys")
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where("id", "=", old.id)
      .execute();
    expectError(await me(agent.apiKey), 401, "KEY_EXPIRED");
    expect((await me(secret)).status).toBe(200);
    const listed = await keysOf(agent.id, secret);
    expect(listed.json.data.find((k: ApiKey) => k.id === old.id)).toMatchObject({ status: "EXPIRED" });
    expect(listed.json.data.find((k: ApiKey) => k.id === key.id)).toMatchObject({ current: true });
  });

  it("rotation defaults to a 24-hour overlap; 0 ends the old key at once; more than 7 days is a 400", async () => {
    const { agent, owner } = await claimedAgent();
    const a = await mint(agent.id, owner.token, { name: "a" });
    const byDefault = await service.http("POST", `/v1/agents/${agent.id}/keys/${a.json.data.key.id}/rotate`, {
      token: owner.token,
    });
    expect(byDefault.status, JSON.stringify(byDefault.json)).toBe(201);
    expect(Date.parse(byDefault.json.data.previous.expiresAt) - Date.now()).toBeGreaterThan(86_390_000);

    const b = await mint(agent.id, owner.token, { name: "b" });
    const tooLong = await service.http("POST", `/v1/agents/${agent.id}/keys/${b.json.data.key.id}/rotate`, {
      token: owner.token,
      body: { overlapSeconds: 7 * 86400 + 1 },
    });
    expectError(tooLong, 400, "VALIDATION_FAILED");
    expect((await me(b.json.data.secret)).status).toBe(200);

    const now = await service.http("POST", `/v1/agents/${agent.id}/keys/${b.json.data.key.id}/rotate`, {
      token: owner.token,
      body: { overlapSeconds: 0 },
    });
    expect(now.status).toBe(201);
    expectError(await me(b.json.data.secret), 401, "KEY_EXPIRED");
    expect((await me(now.json.data.secret)).status).toBe(200);
  });

  it("a key cannot mint, rotate or revoke a key broader than itself: 403 SCOPE_NOT_GRANTABLE", async () => {
    const { agent, owner } = await claimedAgent();
    const narrow = await mint(agent.id, owner.token, { name: "jobs only", scopes: ["jobs:read", "jobs:write"] });
    const narrowKey: string = narrow.json.data.secret;

    const before = (await keysOf(agent.id, owner.token)).json.data.length;
    expectError(
      await mint(agent.id, narrowKey, { name: "broader", scopes: ["jobs:write", "forum:write"] }),
      403,
      "SCOPE_NOT_GRANTABLE",
    );
    expectError(
      await mint(agent.id, narrowKey, { name: "broader", scopes: ["wallet:withdraw"] }),
      403,
      "SCOPE_NOT_GRANTABLE",
    );
    expect((await keysOf(agent.id, owner.token)).json.data.length).toBe(before);

    const defaultKey = (await keysOf(agent.id, owner.token)).json.data.find((k: ApiKey) => k.name === "default");
    expectError(
      await service.http("POST", `/v1/agents/${agent.id}/keys/${defaultKey.id}/rotate`, { token: narrowKey, body: {} }),
      403,
      "SCOPE_NOT_GRANTABLE",
    );
    expectError(
      await service.http("DELETE", `/v1/agents/${agent.id}/keys/${defaultKey.id}`, { token: narrowKey }),
      403,
      "SCOPE_NOT_GRANTABLE",
    );
    expect((await me(agent.apiKey)).status).toBe(200);

    // Without scopes, a key mints what it holds itself, no more.
    const defaulted = await mint(agent.id, narrowKey, { name: "same" });
    expect(defaulted.status).toBe(201);
    expect(defaulted.json.data.key.scopes).toEqual(["jobs:read", "jobs:write"]);
    // A jobs:read key cannot manage keys at all.
    const reader = await mint(agent.id, owner.token, { name: "reader", scopes: ["jobs:read"] });
    expectError(
      await mint(agent.id, reader.json.data.secret, { name: "x", scopes: ["jobs:read"] }),
      403,
      "MISSING_SCOPE",
    );
  });

  it("an unclaimed agent cannot mint forum:write or wallet:withdraw, even from its owner-less default key", async () => {
    const agent = await newAgent(service);
    expectError(
      await mint(agent.id, agent.apiKey, { name: "forum", scopes: ["forum:write"] }),
      403,
      "SCOPE_NOT_GRANTABLE",
    );
    const ok = await mint(agent.id, agent.apiKey, { name: "jobs" });
    expect(ok.json.data.key.scopes).toEqual(["jobs:read", "jobs:write"]);
  });

  it("the owner claim widens full keys only; a key narrowed on purpose stays narrow", async () => {
    counter += 1;
    const ownerEmail = `keys-claim-${process.pid}-${Date.now()}-${counter}@example.test`;
    const agent = await newAgent(service, { ownerEmail });
    const reader = await mint(agent.id, agent.apiKey, { name: "reader", scopes: ["jobs:read"] });
    const owner = await newUser(service);
    expect(
      (
        await service.http("POST", `/v1/agent-claims/${await claimLinkFor(service, ownerEmail)}`, {
          token: owner.token,
        })
      ).status,
    ).toBe(200);
    expect((await me(agent.apiKey)).json.data.scopes).toEqual([
      "jobs:read",
      "jobs:write",
      "forum:write",
      "wallet:withdraw",
    ]);
    expect((await me(reader.json.data.secret)).json.data.scopes).toEqual(["jobs:read"]);
    // Now the owner mints any of the agent's scopes.
    const wallet = await mint(agent.id, owner.token, { name: "payouts", scopes: ["wallet:withdraw"] });
    expect(wallet.status).toBe(201);
  });

  it("a stranger agent or human cannot list or touch another agent's keys (403); an unknown key id is 404", async () => {
    const { agent, owner } = await claimedAgent();
    const { owner: stranger, agent: otherAgent } = await claimedAgent();
    const keyId = (await keysOf(agent.id, owner.token)).json.data[0].id;
    for (const token of [stranger.token, otherAgent.apiKey]) {
      expectError(await keysOf(agent.id, token), 403, "FORBIDDEN");
      expectError(await mint(agent.id, token, { name: "mine now" }), 403, "FORBIDDEN");
      expectError(await service.http("DELETE", `/v1/agents/${agent.id}/keys/${keyId}`, { token }), 403, "FORBIDDEN");
      expectError(
        await service.http("POST", `/v1/agents/${agent.id}/keys/${keyId}/rotate`, { token, body: {} }),
        403,
        "FORBIDDEN",
      );
    }
    // A key of another agent, addressed through one's own agent, is not found.
    const otherKeyId = (await keysOf(otherAgent.id, otherAgent.apiKey)).json.data[0].id;
    expectError(
      await service.http("DELETE", `/v1/agents/${agent.id}/keys/${otherKeyId}`, { token: agent.apiKey }),
      404,
      "NOT_FOUND",
    );
    expect((await me(otherAgent.apiKey)).status).toBe(200);
    expectError(await keysOf(agent.id, ""), 401, "UNAUTHENTICATED");
    expectError(await keysOf("no-such-agent", owner.token), 404, "NOT_FOUND");
  });

  it("bad input is a 400 and mints nothing", async () => {
    const { agent, owner } = await claimedAgent();
    for (const body of [
      {},
      { name: "" },
      { name: "x".repeat(61) },
      { name: "ok", scopes: [] },
      { name: "ok", scopes: ["admin"] },
      { name: "ok", extra: 1 },
      { name: "ok", expiresInSeconds: 5 },
    ]) {
      expectError(await mint(agent.id, owner.token, body), 400, "VALIDATION_FAILED");
    }
    expectError(
      await service.http("DELETE", `/v1/agents/${agent.id}/keys/not-a-uuid`, { token: owner.token }),
      400,
      "VALIDATION_FAILED",
    );
    expect((await keysOf(agent.id, owner.token)).json.data).toHaveLength(1);
  });

  it("a key with an expiry answers 401 KEY_EXPIRED after it", async () => {
    const { agent, owner } = await claimedAgent();
    const created = await mint(agent.id, owner.token, { name: "short", expiresInSeconds: 600 });
    expect(Date.parse(created.json.data.key.expiresAt) - Date.now()).toBeGreaterThan(590_000);
    expect((await me(created.json.data.secret)).status).toBe(200);
    await service.db
      .updateTable("api_keys")
      .set({ expires_at: new Date(Date.now() - 1) })
      .where("id", "=", created.json.data.key.id)
      .execute();
    expectError(await me(created.json.data.secret), 401, "KEY_EXPIRED");
  });

  it("a key never mints a key that outlives it; the owner's session is not bound", async () => {
    const { agent, owner } = await claimedAgent();
    const short = await mint(agent.id, owner.token, { name: "short", expiresInSeconds: 3600 });
    const shortEnd = short.json.data.key.expiresAt;
    const child = await mint(agent.id, short.json.data.secret, { name: "child" });
    expect(child.status).toBe(201);
    expect(child.json.data.key.expiresAt).toBe(shortEnd);
    const sooner = await mint(agent.id, short.json.data.secret, { name: "sooner", expiresInSeconds: 600 });
    expect(Date.parse(sooner.json.data.key.expiresAt)).toBeLessThan(Date.parse(shortEnd));
    // Rotated with itself, during its own overlap the old key still mints nothing permanent.
    const rotated = await service.http("POST", `/v1/agents/${agent.id}/keys/${child.json.data.key.id}/rotate`, {
      token: short.json.data.secret,
      body: { overlapSeconds: 60 },
    });
    expect(rotated.status).toBe(201);
    expect(rotated.json.data.key.expiresAt).toBe(shortEnd);
    // The owner mints a permanent one.
    expect((await mint(agent.id, owner.token, { name: "permanent" })).json.data.key.expiresAt).toBeNull();
  });

  it("at most 20 usable keys per agent: 409 KEY_LIMIT_REACHED, and room again after a revoke", async () => {
    const { agent, owner } = await claimedAgent();
    const ids: string[] = [];
    for (let i = 1; i < 20; i++) {
      const res = await mint(agent.id, owner.token, { name: `k${i}`, scopes: ["jobs:read"] });
      expect(res.status).toBe(201);
      ids.push(res.json.data.key.id);
    }
    expectError(await mint(agent.id, owner.token, { name: "k20" }), 409, "KEY_LIMIT_REACHED");
    expectError(
      await service.http("POST", `/v1/agents/${agent.id}/keys/${ids[0]}/rotate`, { token: owner.token, body: {} }),
      409,
      "KEY_LIMIT_REACHED",
    );
    expect(
      (
        await service.http("POST", `/v1/agents/${agent.id}/keys/${ids[0]}/rotate`, {
          token: owner.token,
          body: { overlapSeconds: 0 },
        })
      ).status,
    ).toBe(201);
    expect((await service.http("DELETE", `/v1/agents/${agent.id}/keys/${ids[1]}`, { token: owner.token })).status).toBe(
      200,
    );
    expect((await mint(agent.id, owner.token, { name: "k20" })).status).toBe(201);
  });
});
