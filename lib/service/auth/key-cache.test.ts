// The API key cache (auth/actor.ts, KeyCache) across two instances of the service on one database:
// each its own HTTP server, service, connection pool and LISTEN connection (on PostgreSQL), as two
// machines behind the load balancer. The keys are kept for a minute, far longer than any test waits,
// so a refusal here can only come from the change being heard of on the event bus, not from the
// cache's time running out. On PGlite both instances share the one in-process database (and so its
// cache): the cross-instance cases need PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claimLinkFor,
  GENEROUS_BUDGETS,
  newAgent,
  newUser,
  startTestService,
  type TestService,
} from "../testing/harness";
import { expectError } from "../testing/expect-error";
import type { DatabaseEventBus } from "../events/event-bus";

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const MINUTE = 60_000;
let a: TestService;
let b: TestService;
beforeAll(async () => {
  a = await startTestService({ rateBudgets: GENEROUS_BUDGETS, keyCacheMs: MINUTE });
  b = await startTestService({ rateBudgets: GENEROUS_BUDGETS, keyCacheMs: MINUTE }, { ownPool: true });
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

const read = (service: TestService, key: string) => service.http("GET", "/v1/jobs?limit=1", { token: key });

/** A request with the key, then waits until the instance's bus listens, so that its next read of the key is kept. */
async function listening(service: TestService, key: string) {
  expect((await read(service, key)).status).toBe(200);
  for (let i = 0; i < 200 && !service.ctx.streams?.bus.stats().listening; i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  expect(service.ctx.streams?.bus.stats().listening).toBe(true);
}

async function mint(service: TestService, agent: { id: string; apiKey: string }, name: string) {
  const res = await service.http("POST", `/v1/agents/${agent.id}/keys`, { token: agent.apiKey, body: { name } });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return { id: res.json.data.key.id as string, secret: res.json.data.secret as string };
}

/** Ends a key straight in the database, as no instance would: nobody is told, so only a read of the key can see it. */
const revokeUnheard = (keyId: string) =>
  a.db.updateTable("api_keys").set({ revoked_at: new Date() }).where("id", "=", keyId).execute();

describe.runIf(onPostgres)("the key cache across instances (PostgreSQL)", () => {
  it("a key revoked through instance A is refused at once by instance B, which kept it", async () => {
    const agent = await newAgent(a);
    const kept = await mint(a, agent, "kept");
    const revoked = await mint(a, agent, "revoked");
    await listening(b, kept.secret);
    // B keeps what it read: a change nobody announces (straight in the database) goes unseen for now…
    expect((await read(b, kept.secret)).status).toBe(200);
    expect((await read(b, revoked.secret)).status).toBe(200);
    await revokeUnheard(kept.id);
    expect((await read(b, kept.secret)).status).toBe(200);
    // …while a revocation through the service is heard at once: B's next request with the key is refused.
    expect((await a.http("DELETE", `/v1/agents/${agent.id}/keys/${revoked.id}`, { token: agent.apiKey })).status).toBe(
      200,
    );
    expectError(await read(b, revoked.secret), 401, "KEY_REVOKED");
    // Hearing it, B forgot every key it kept (the unannounced revocation is now read too).
    expectError(await read(b, kept.secret), 401, "KEY_REVOKED");
  });

  it("a key rotated without an overlap through A is refused at once by B", async () => {
    const agent = await newAgent(a);
    const key = await mint(a, agent, "rotated");
    await listening(b, key.secret);
    expect((await read(b, key.secret)).status).toBe(200);
    const rotated = await a.http("POST", `/v1/agents/${agent.id}/keys/${key.id}/rotate`, {
      token: agent.apiKey,
      body: { overlapSeconds: 0 },
    });
    expect(rotated.status, JSON.stringify(rotated.json)).toBe(201);
    expectError(await read(b, key.secret), 401, "KEY_EXPIRED");
    expect((await read(b, rotated.json.data.secret)).status).toBe(200);
  });

  it("the owner's claim through A widens the key on B at once (forum:write)", async () => {
    const ownerEmail = `claim-${process.pid}-${Date.now()}@example.test`;
    const agent = await newAgent(a, { ownerEmail });
    await listening(b, agent.apiKey);
    const startThread = () => b.http("POST", "/v1/forum/threads", { token: agent.apiKey, body: {} });
    expectError(await startThread(), 403, "MISSING_SCOPE");
    const owner = await newUser(a);
    await owner.client.claimAgent({ params: { token: await claimLinkFor(a, ownerEmail) } });
    // Past the scope check now: refused for its empty body instead.
    expect((await startThread()).status).toBe(400);
  });

  it("while B's LISTEN connection is cut, B keeps no key: a change nobody announces is refused at once; listening again, it keeps keys again", async () => {
    const agent = await newAgent(a);
    const first = await mint(a, agent, "while cut");
    const second = await mint(a, agent, "after");
    await listening(b, first.secret);
    const bus = b.ctx.streams!.bus as DatabaseEventBus;
    const source = bus.source as unknown as { cut(hold?: boolean): () => void; listening: boolean };
    const resume = source.cut(true);
    try {
      expect((await read(b, first.secret)).status).toBe(200);
      await revokeUnheard(first.id);
      expectError(await read(b, first.secret), 401, "KEY_REVOKED");
    } finally {
      resume();
    }
    for (let i = 0; i < 300 && !source.listening; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(source.listening).toBe(true);
    expect((await read(b, second.secret)).status).toBe(200);
    await revokeUnheard(second.id);
    // Kept again (an unannounced change is the one thing the cache's time bounds).
    expect((await read(b, second.secret)).status).toBe(200);
  });
});

describe("the key cache on one instance", () => {
  it("the instance that revokes a key refuses it on its very next request", async () => {
    const agent = await newAgent(a);
    const key = await mint(a, agent, "here");
    await listening(a, key.secret);
    expect((await read(a, key.secret)).status).toBe(200);
    expect((await a.http("DELETE", `/v1/agents/${agent.id}/keys/${key.id}`, { token: agent.apiKey })).status).toBe(200);
    expectError(await read(a, key.secret), 401, "KEY_REVOKED");
  });

  it("a key kept is still judged on every request: its expiry passes while it is kept", async () => {
    const agent = await newAgent(a);
    const res = await a.http("POST", `/v1/agents/${agent.id}/keys`, {
      token: agent.apiKey,
      body: { name: "short", expiresInSeconds: 60 },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const secret = res.json.data.secret as string;
    await listening(a, secret);
    expect((await read(a, secret)).status).toBe(200);
    // The service's clock two minutes on: the kept key has expired by it.
    const now = a.ctx.now;
    a.ctx.now = () => new Date(Date.now() + 2 * MINUTE);
    try {
      expectError(await read(a, secret), 401, "KEY_EXPIRED");
    } finally {
      a.ctx.now = now;
    }
  });
});
