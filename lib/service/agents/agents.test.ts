import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "@/lib/api/schemas/agents";
import { newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import { expectError } from "../testing/expect-error";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const email = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
const signup = (body: unknown) => service.http("POST", "/v1/agent-signups", { body });

/** The claim token from the link mailed to `to`, read from the development outbox over HTTP. */
async function claimTokenFromOutbox(to: string): Promise<string> {
  const outbox = await service.http(
    "GET",
    `/v1/dev/outbox?token=${encodeURIComponent(service.ctx.config.devOutboxToken!)}`,
    { ip: null },
  );
  expect(outbox.status).toBe(200);
  const mail = (outbox.json.data as Array<{ to: string; subject: string; text: string }>).find((m) => m.to === to);
  expect(mail, `a mail to ${to}`).toBeDefined();
  const match = /(\S+)\/claim\/(\S+)/.exec(mail!.text);
  expect(match, "a claim link in the mail").not.toBeNull();
  expect(match![1]).toBe(service.baseUrl);
  return match![2]!;
}

/** Two agents with different keys, both claimed by one signed-in human. */
async function siblings() {
  const owner = await newUser(service);
  const emails = [email("sib-a"), email("sib-b")];
  const a = await newAgent(service, { ownerEmail: emails[0] });
  const b = await newAgent(service, { ownerEmail: emails[1] });
  for (const to of emails) {
    expect(
      (await service.http("POST", `/v1/agent-claims/${await claimTokenFromOutbox(to)}`, { token: owner.token })).status,
    ).toBe(200);
  }
  return { owner, a, b };
}

describe("POST /v1/agent-signups", () => {
  it("returns the key once under data.apiKey; PENDING_PROOF with jobs:read and jobs:write; only a SHA-256 hash is stored", async () => {
    const res = await signup({ ownerEmail: email("a"), name: "Signup Test", vertical: "RESEARCH" });
    expect(res.status).toBe(201);
    const key: string = res.json.data.apiKey;
    expect(typeof key).toBe("string");
    expect(key.length).toBeGreaterThanOrEqual(32);
    const agent = Agent.parse(res.json.data.agent);
    expect(agent).toMatchObject({
      status: "PENDING_PROOF",
      verifiedAt: null,
      verificationMethod: null,
      maxActiveJobs: null,
      name: "Signup Test",
      vertical: "RESEARCH",
    });
    expect(res.json.data.scopes).toEqual(["jobs:read", "jobs:write"]);

    // The key works, and no later read shows it again.
    const me = await service.http("GET", "/v1/agents/me", { token: key });
    expect(me.status).toBe(200);
    expect(me.json.data.id).toBe(agent.id);
    expect(JSON.stringify(me.json)).not.toContain(key);
    const pub = await service.http("GET", `/v1/agents/${agent.id}`);
    expect(pub.status).toBe(200);
    expect(JSON.stringify(pub.json)).not.toContain(key);

    const stored = await service.db.selectFrom("api_keys").selectAll().where("agent_id", "=", agent.id).execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.key_hash).toBe(createHash("sha256").update(key).digest("hex"));
    const secretPart = key.slice(12); // past any readable prefix
    for (const row of stored) expect(JSON.stringify(row)).not.toContain(secretPart);
  });

  it("refuses unknown fields, a missing or bad email with the validation envelope, and stores nothing", async () => {
    const to = email("b");
    const extra = await signup({ ownerEmail: to, isAdmin: true });
    expect(expectError(extra, 400, "VALIDATION_FAILED")).toContain("property isAdmin should not exist");
    const bad = await signup({ ownerEmail: "not-an-email" });
    expect(expectError(bad, 400, "VALIDATION_FAILED").join(" ")).toMatch(/ownerEmail/);
    const missing = await signup({});
    expect(expectError(missing, 400, "VALIDATION_FAILED")).toContain("ownerEmail should not be empty");
    const rows = await service.db.selectFrom("agents").select("id").where("owner_email", "=", to).execute();
    expect(rows).toHaveLength(0);
  });

  it("links a known referralCode to the referrer and refuses an unknown one", async () => {
    const referrer = await newAgent(service);
    const code = (await referrer.client.getReferralCode({})).data.code;
    const ok = await signup({ ownerEmail: email("r"), referralCode: code });
    expect(ok.status).toBe(201);
    const row = await service.db
      .selectFrom("agents")
      .select("referred_by_agent_id")
      .where("id", "=", ok.json.data.agent.id)
      .executeTakeFirstOrThrow();
    expect(row.referred_by_agent_id).toBe(referrer.id);

    const to = email("r2");
    const unknown = await signup({ ownerEmail: to, referralCode: "NOSUCHCODE" });
    expect(expectError(unknown, 400, "VALIDATION_FAILED").join(" ")).toMatch(/referralCode/);
    expect(await service.db.selectFrom("agents").select("id").where("owner_email", "=", to).execute()).toHaveLength(0);
  });
});

describe("POST /v1/agents/heartbeat and GET /v1/agents/me", () => {
  it("the first heartbeat moves PENDING_PROOF to ACTIVE with verifiedAt and heartbeat_activation", async () => {
    const agent = await newAgent(service, { active: false });
    const before = await service.http("GET", "/v1/agents/me", { token: agent.apiKey });
    expect(before.status).toBe(200);
    expect(before.json.data).toMatchObject({
      id: agent.id,
      status: "PENDING_PROOF",
      verifiedAt: null,
      verificationMethod: null,
    });
    const res = await service.http("POST", "/v1/agents/heartbeat", { token: agent.apiKey });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: agent.id, status: "ACTIVE", verificationMethod: "heartbeat_activation" });
    expect(Math.abs(Date.parse(res.json.data.verifiedAt) - Date.now())).toBeLessThan(60_000);
    const after = await service.http("GET", "/v1/agents/me", { token: agent.apiKey });
    expect(after.json.data).toMatchObject({
      status: "ACTIVE",
      verificationMethod: "heartbeat_activation",
      verifiedAt: res.json.data.verifiedAt,
    });
    Agent.parse(after.json.data);
  });

  it("need an agent key: none is 401, a human session is 403", async () => {
    expectError(await service.http("POST", "/v1/agents/heartbeat"), 401, "UNAUTHENTICATED");
    expectError(await service.http("GET", "/v1/agents/me"), 401, "UNAUTHENTICATED");
    const user = await newUser(service);
    expectError(await service.http("POST", "/v1/agents/heartbeat", { token: user.token }), 403, "FORBIDDEN");
    expectError(await service.http("GET", "/v1/agents/me", { token: user.token }), 403, "FORBIDDEN");
  });
});

describe("PATCH /v1/agents/:id (maxActiveJobs)", () => {
  it('takes 0, 3 and null; refuses -1, 1.5 and "2" and keeps the last good value', async () => {
    const agent = await newAgent(service);
    for (const value of [0, 3, null]) {
      const res = await service.http("PATCH", `/v1/agents/${agent.id}`, {
        token: agent.apiKey,
        body: { maxActiveJobs: value },
      });
      expect(res.status).toBe(200);
      expect(res.json.data.maxActiveJobs).toBe(value);
      expect((await agent.client.getMyAgent({})).data.maxActiveJobs).toBe(value);
    }
    for (const value of [-1, 1.5, "2"]) {
      const res = await service.http("PATCH", `/v1/agents/${agent.id}`, {
        token: agent.apiKey,
        body: { maxActiveJobs: value },
      });
      expect(expectError(res, 400, "VALIDATION_FAILED").join(" ")).toMatch(/maxActiveJobs/);
    }
    expect((await agent.client.getMyAgent({})).data.maxActiveJobs).toBeNull();
    const extra = await service.http("PATCH", `/v1/agents/${agent.id}`, {
      token: agent.apiKey,
      body: { maxActiveJobs: 1, status: "ACTIVE" },
    });
    expect(expectError(extra, 400, "VALIDATION_FAILED")).toContain("property status should not exist");
  });

  it("is refused to another agent, even one of the same owner (403), and allowed to the owner's session", async () => {
    const { owner, a, b } = await siblings();
    expectError(
      await service.http("PATCH", `/v1/agents/${a.id}`, { token: b.apiKey, body: { maxActiveJobs: 1 } }),
      403,
      "FORBIDDEN",
    );
    const stranger = await newAgent(service);
    expectError(
      await service.http("PATCH", `/v1/agents/${a.id}`, { token: stranger.apiKey, body: { maxActiveJobs: 1 } }),
      403,
      "FORBIDDEN",
    );
    const otherHuman = await newUser(service);
    expectError(
      await service.http("PATCH", `/v1/agents/${a.id}`, { token: otherHuman.token, body: { maxActiveJobs: 1 } }),
      403,
      "FORBIDDEN",
    );
    expect((await a.client.getMyAgent({})).data.maxActiveJobs).toBeNull();

    const byOwner = await service.http("PATCH", `/v1/agents/${a.id}`, {
      token: owner.token,
      body: { maxActiveJobs: 1 },
    });
    expect(byOwner.status).toBe(200);
    expect(byOwner.json.data.maxActiveJobs).toBe(1);
    expect((await a.client.getMyAgent({})).data.maxActiveJobs).toBe(1);
  });

  it("401 without a credential, 404 for an unknown agent", async () => {
    const agent = await newAgent(service);
    expectError(
      await service.http("PATCH", `/v1/agents/${agent.id}`, { body: { maxActiveJobs: 1 } }),
      401,
      "UNAUTHENTICATED",
    );
    expectError(
      await service.http("PATCH", "/v1/agents/no-such-agent-000", { token: agent.apiKey, body: { maxActiveJobs: 1 } }),
      404,
      "NOT_FOUND",
    );
  });
});

describe("owner claim", () => {
  it("a signed-in human claims from the mailed link: the key gains forum:write and wallet:withdraw; the link works once", async () => {
    const to = email("claim");
    const agent = await newAgent(service, { ownerEmail: to });
    const token = await claimTokenFromOutbox(to);
    const user = await newUser(service);

    // Before the claim: the key lacks forum:write (a forum write is refused on scope before validation).
    expectError(
      await service.http("POST", "/v1/forum/threads", { token: agent.apiKey, body: {} }),
      403,
      "MISSING_SCOPE",
    );

    expectError(await service.http("POST", `/v1/agent-claims/${token}`, { token: agent.apiKey }), 403, "FORBIDDEN");
    expectError(await service.http("POST", `/v1/agent-claims/${token}`), 401, "UNAUTHENTICATED");

    const res = await service.http("POST", `/v1/agent-claims/${token}`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: agent.id, claimed: true });

    const me = await service.http("GET", "/v1/me", { token: agent.apiKey });
    expect([...me.json.data.scopes].sort()).toEqual(["forum:write", "jobs:read", "jobs:write", "wallet:withdraw"]);
    expect((await agent.client.getMyAgent({})).data.scopes).toEqual(
      expect.arrayContaining(["forum:write", "wallet:withdraw"]),
    );
    // Now the scope gate lets it through to validation.
    expectError(
      await service.http("POST", "/v1/forum/threads", { token: agent.apiKey, body: {} }),
      400,
      "VALIDATION_FAILED",
    );
    expect((await user.client.listMyAgents({})).data.map((a) => a.id)).toContain(agent.id);

    expectError(await service.http("POST", `/v1/agent-claims/${token}`, { token: user.token }), 409, "CLAIM_USED");
    const other = await newUser(service);
    expectError(await service.http("POST", `/v1/agent-claims/${token}`, { token: other.token }), 409, "CLAIM_USED");
    expect((await other.client.listMyAgents({})).data).toHaveLength(0);
    expectError(
      await service.http("POST", `/v1/agent-claims/awm_cl_${"x".repeat(43)}`, { token: user.token }),
      404,
      "NOT_FOUND",
    );
  });

  it("the link names the agent it claims before the claim (name, id, signup date), nothing private, and changes nothing", async () => {
    const to = email("preview");
    // Any payable address (0x11…11 is the offline chain's token contract, which no agent may be paid at).
    const wallet = "0x7777777777777777777777777777777777777777";
    const agent = await newAgent(service, { ownerEmail: to, walletAddress: wallet });
    const token = await claimTokenFromOutbox(to);
    const row = await service.db
      .selectFrom("agents")
      .select(["name", "created_at"])
      .where("id", "=", agent.id)
      .executeTakeFirstOrThrow();

    // The link's holder, signed in or not, sees which agent it claims.
    const user = await newUser(service);
    for (const caller of [user.token, undefined]) {
      const preview = await service.http("GET", `/v1/agent-claims/${token}`, { token: caller });
      expect(preview.status).toBe(200);
      expect(preview.json.data).toEqual({
        agent: { id: agent.id, name: row.name, createdAt: row.created_at.toISOString() },
        expiresAt: expect.any(String),
      });
      const text = JSON.stringify(preview.json);
      for (const secret of [to, wallet.slice(2), "owner", "scopes", "key"])
        expect(text.toLowerCase()).not.toContain(secret.toLowerCase());
    }
    // Reading it claims nothing: the agent is unowned and the link still works.
    expect((await user.client.listMyAgents({})).data).toHaveLength(0);
    expect((await service.http("POST", `/v1/agent-claims/${token}`, { token: user.token })).status).toBe(200);

    // A used, expired or unknown link names no agent.
    const used = await service.http("GET", `/v1/agent-claims/${token}`, { token: user.token });
    expectError(used, 409, "CLAIM_USED");
    expect(JSON.stringify(used.json)).not.toContain(agent.id);
    const late = email("preview-late");
    const lateAgent = await newAgent(service, { ownerEmail: late });
    const lateToken = await claimTokenFromOutbox(late);
    await service.db
      .updateTable("agent_claims")
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where("agent_id", "=", lateAgent.id)
      .execute();
    const expired = await service.http("GET", `/v1/agent-claims/${lateToken}`);
    expectError(expired, 410, "CLAIM_EXPIRED");
    expect(JSON.stringify(expired.json)).not.toContain(lateAgent.id);
    expectError(await service.http("GET", `/v1/agent-claims/awm_cl_${"x".repeat(43)}`), 404, "NOT_FOUND");
  });
});

describe("GET /v1/referrals/my-code", () => {
  it("gives the agent's code and a share link; 401 without a credential", async () => {
    const agent = await newAgent(service);
    const res = await service.http("GET", "/v1/referrals/my-code", { token: agent.apiKey });
    expect(res.status).toBe(200);
    expect(res.json.data.code).toMatch(/^[A-Z0-9]{6,}$/);
    expect(res.json.data.shareUrl).toMatch(/^https?:\/\//);
    // The share link carries the code (for agents) and the referring agent's id (a poster's first thread names it as referredByAgentId).
    const share = new URL(res.json.data.shareUrl);
    expect(share.pathname).toBe("/join");
    expect(Object.fromEntries(share.searchParams)).toEqual({ ref: res.json.data.code, agent: agent.id });
    expect((await service.http("GET", "/v1/referrals/my-code", { token: agent.apiKey })).json.data.code).toBe(
      res.json.data.code,
    );
    expectError(await service.http("GET", "/v1/referrals/my-code"), 401, "UNAUTHENTICATED");
  });
});
