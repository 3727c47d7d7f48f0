import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "@/lib/api/schemas/agents";
import { claimLinkFor, newAgent, newUser, startTestService, type TestService } from "../testing/harness";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const email = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;

describe("POST /v1/agent-signups", () => {
  it("returns the key once, nested under data, and stores only its hash", async () => {
    const res = await service.http("POST", "/v1/agent-signups", { body: { ownerEmail: email("a"), name: "Signup Test" } });
    expect(res.status).toBe(201);
    const key: string = res.json.data.apiKey;
    expect(key).toMatch(/^awm_sk_/);
    expect(res.json.data.agent.status).toBe("PENDING_PROOF");
    expect(res.json.data.scopes).toEqual(["jobs:read", "jobs:write"]);
    Agent.parse(res.json.data.agent);

    const me = await service.http("GET", "/v1/agents/me", { token: key });
    expect(me.status).toBe(200);
    expect(JSON.stringify(me.json)).not.toContain(key);

    const stored = await service.db.selectFrom("api_keys").selectAll().where("agent_id", "=", res.json.data.agent.id).execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(key.slice(7));
  });

  it("refuses unknown fields and a bad email with the validation envelope", async () => {
    const extra = await service.http("POST", "/v1/agent-signups", { body: { ownerEmail: email("b"), isAdmin: true } });
    expect(extra.status).toBe(400);
    expect(extra.json).toMatchObject({ statusCode: 400, error: "Bad Request", code: "VALIDATION_FAILED" });
    expect(extra.json.message).toContain("property isAdmin should not exist");

    const bad = await service.http("POST", "/v1/agent-signups", { body: { ownerEmail: "not-an-email" } });
    expect(bad.status).toBe(400);
    expect(bad.json.message.join(" ")).toMatch(/ownerEmail/);

    const missing = await service.http("POST", "/v1/agent-signups", { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.json.message).toContain("ownerEmail should not be empty");
  });

  it("accepts a known referralCode and refuses an unknown one", async () => {
    const referrer = await newAgent(service);
    const code = (await referrer.client.getReferralCode({})).data.code;
    const ok = await service.http("POST", "/v1/agent-signups", { body: { ownerEmail: email("r"), referralCode: code } });
    expect(ok.status).toBe(201);
    const row = await service.db.selectFrom("agents").select("referred_by_agent_id").where("id", "=", ok.json.data.agent.id).executeTakeFirstOrThrow();
    expect(row.referred_by_agent_id).toBe(referrer.id);

    const unknown = await service.http("POST", "/v1/agent-signups", { body: { ownerEmail: email("r2"), referralCode: "NOSUCHCODE" } });
    expect(unknown.status).toBe(400);
  });
});

describe("POST /v1/agents/heartbeat", () => {
  it("activates a PENDING_PROOF agent with heartbeat_activation", async () => {
    const agent = await newAgent(service, { active: false });
    const before = await agent.client.getMyAgent({});
    expect(before.data).toMatchObject({ status: "PENDING_PROOF", verifiedAt: null, verificationMethod: null });
    const res = await service.http("POST", "/v1/agents/heartbeat", { token: agent.apiKey });
    expect(res.status).toBe(200);
    expect(res.json.data.status).toBe("ACTIVE");
    expect(res.json.data.verificationMethod).toBe("heartbeat_activation");
    expect(Date.parse(res.json.data.verifiedAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("needs an agent key", async () => {
    expect((await service.http("POST", "/v1/agents/heartbeat")).status).toBe(401);
    const user = await newUser(service);
    expect((await service.http("POST", "/v1/agents/heartbeat", { token: user.token })).status).toBe(403);
  });
});

describe("PATCH /v1/agents/:id (maxActiveJobs)", () => {
  it("takes an integer ≥ 0 or null", async () => {
    const agent = await newAgent(service);
    for (const value of [0, 3, null]) {
      const res = await service.http("PATCH", `/v1/agents/${agent.id}`, { token: agent.apiKey, body: { maxActiveJobs: value } });
      expect(res.status).toBe(200);
      expect(res.json.data.maxActiveJobs).toBe(value);
    }
    for (const value of [-1, 1.5, "2"]) {
      const res = await service.http("PATCH", `/v1/agents/${agent.id}`, { token: agent.apiKey, body: { maxActiveJobs: value } });
      expect(res.status).toBe(400);
      expect(res.json.code).toBe("VALIDATION_FAILED");
    }
  });

  it("is refused to another agent, even one of the same owner, and allowed to the owner", async () => {
    const owner = await newUser(service);
    const ownerEmail = email("owner");
    const a = await newAgent(service, { ownerEmail });
    const b = await newAgent(service, { ownerEmail });
    for (const agent of [a, b]) {
      const token = await claimLinkFor(service, ownerEmail).catch(() => null);
      expect(token).not.toBeNull();
      void agent;
    }
    // Claim both from their own mails.
    const mails = await service.db.selectFrom("mail_outbox").select("text").where("to_address", "=", ownerEmail).execute();
    for (const mail of mails) {
      const token = /\/claim\/(\S+)/.exec(mail.text)![1]!;
      expect((await service.http("POST", `/v1/agent-claims/${token}`, { token: owner.token })).status).toBe(200);
    }
    const sibling = await service.http("PATCH", `/v1/agents/${a.id}`, { token: b.apiKey, body: { maxActiveJobs: 1 } });
    expect(sibling.status).toBe(403);
    const byOwner = await service.http("PATCH", `/v1/agents/${a.id}`, { token: owner.token, body: { maxActiveJobs: 1 } });
    expect(byOwner.status).toBe(200);
    expect(byOwner.json.data.maxActiveJobs).toBe(1);
  });
});

describe("owner claim", () => {
  it("makes the signed-in human the owner and adds forum:write and wallet:withdraw, once", async () => {
    const ownerEmail = email("claim");
    const agent = await newAgent(service, { ownerEmail });
    const token = await claimLinkFor(service, ownerEmail);
    const user = await newUser(service);

    const byAgent = await service.http("POST", `/v1/agent-claims/${token}`, { token: agent.apiKey });
    expect(byAgent.status).toBe(403);

    const res = await service.http("POST", `/v1/agent-claims/${token}`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.json.data.claimed).toBe(true);
    const me = await agent.client.getMyAgent({});
    expect(me.data.scopes).toEqual(expect.arrayContaining(["jobs:read", "jobs:write", "forum:write", "wallet:withdraw"]));
    const owned = await user.client.listMyAgents({});
    expect(owned.data.map((a) => a.id)).toContain(agent.id);

    const again = await service.http("POST", `/v1/agent-claims/${token}`, { token: user.token });
    expect(again.status).toBe(409);
    const unknown = await service.http("POST", `/v1/agent-claims/awm_cl_${"x".repeat(43)}`, { token: user.token });
    expect(unknown.status).toBe(404);
  });

  it("the development outbox answers loopback clients only", async () => {
    const local = await service.http("GET", "/v1/dev/outbox");
    expect(local.status).toBe(200);
    expect(Array.isArray(local.json.data)).toBe(true);
    const remote = await service.http("GET", "/v1/dev/outbox", { ip: "203.0.113.7" });
    expect(remote.status).toBe(403);
  });
});

describe("GET /v1/referrals/my-code", () => {
  it("gives the agent's code and a share link", async () => {
    const agent = await newAgent(service);
    const res = await service.http("GET", "/v1/referrals/my-code", { token: agent.apiKey });
    expect(res.status).toBe(200);
    expect(res.json.data.code).toMatch(/^[A-Z2-9]{8}$/);
    expect(res.json.data.shareUrl).toContain(res.json.data.code);
    expect((await service.http("GET", "/v1/referrals/my-code")).status).toBe(401);
  });
});
