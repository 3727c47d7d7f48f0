import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { routes } from "@/lib/api/routes";
import type { RouteDef } from "@/lib/api/contract";
import { Me } from "@/lib/api/schemas/auth";
import { newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import { expectError } from "../testing/expect-error";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const CHAIN_ID = 31337; // the harness's offline chain

async function nonce(): Promise<string> {
  const res = await service.http("POST", "/v1/auth/siwe/nonce");
  expect(res.status).toBe(200);
  return res.json.data.nonce;
}

/** A signed EIP-4361 message for this service, with any field overridden. */
async function signedMessage(
  overrides: Partial<Parameters<typeof createSiweMessage>[0]> = {},
  signer = generatePrivateKey(),
) {
  const account = privateKeyToAccount(signer);
  const url = new URL(service.baseUrl);
  const message = createSiweMessage({
    address: account.address,
    chainId: CHAIN_ID,
    domain: url.host,
    nonce: await nonce(),
    uri: url.origin,
    version: "1",
    statement: "Sign in to the Agent Work Marketplace",
    ...overrides,
  });
  return { message, signature: await account.signMessage({ message }), account };
}

const verify = ({ message, signature }: { message: string; signature: string }) =>
  service.http("POST", "/v1/auth/siwe/verify", { body: { message, signature } });

describe("credentials", () => {
  it("every route that requires authentication answers 401 UNAUTHENTICATED without a credential", async () => {
    const required = (Object.entries(routes) as Array<[string, RouteDef]>).filter(([, r]) => r.auth === "required");
    expect(required.length).toBeGreaterThan(15);
    for (const [name, route] of required) {
      // Any parameter value will do: the credential is checked before the input.
      const path = route.path.replace(/:([A-Za-z]+)/g, "4b0f2b8e-1c1e-4a8e-9a57-2f9d6c1b1a11");
      const res = await service.http(
        route.method,
        path,
        route.method === "GET" || route.method === "DELETE" ? {} : { body: {} },
      );
      expect(res.status, `${name}: ${route.method} ${path}`).toBe(401);
      expect(res.json, name).toMatchObject({ statusCode: 401, error: "Unauthorized", code: "UNAUTHENTICATED" });
    }
  });

  it("a malformed or unknown key is 401 in the envelope, on private and public routes alike", async () => {
    const cases: Array<Record<string, string>> = [
      { authorization: "Bearer awm_sk_not-a-real-key" },
      { authorization: "Bearer awm_us_not-a-real-session" },
      { authorization: "Bearer something-else" },
      { authorization: "Basic dXNlcjpwYXNz" },
      { authorization: "Bearer" },
    ];
    for (const headers of cases) {
      for (const path of ["/v1/agents/me", "/v1/me", "/v1/jobs"]) {
        expectError(await service.http("GET", path, { headers }), 401, "INVALID_CREDENTIALS");
      }
    }
  });

  it("GET /v1/me tells who the credential belongs to", async () => {
    const agent = await newAgent(service);
    const asAgent = await service.http("GET", "/v1/me", { token: agent.apiKey });
    expect(asAgent.status).toBe(200);
    Me.parse(asAgent.json);
    expect(asAgent.json.data).toEqual({
      kind: "AGENT",
      agentId: agent.id,
      scopes: ["jobs:read", "jobs:write"],
      isOperator: false,
    });

    const user = await newUser(service);
    const asUser = await service.http("GET", "/v1/me", { token: user.token });
    expect(asUser.status).toBe(200);
    Me.parse(asUser.json);
    expect(asUser.json.data).toMatchObject({ kind: "USER", user: { id: user.id, address: user.address } });
  });
});

describe("Sign-In with Ethereum", () => {
  it("a nonce is at least 128 bits of hex and new each time", async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const value = await nonce();
      expect(value).toMatch(/^[0-9a-f]{32,}$/i);
      seen.add(value);
    }
    expect(seen.size).toBe(5);
  });

  it("first sign-ins of one new wallet at once (two tabs, a retried request) each get a session of the same account", async () => {
    const key = generatePrivateKey();
    const signed = await Promise.all(Array.from({ length: 4 }, () => signedMessage({}, key)));
    const answers = await Promise.all(signed.map(verify));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const ids = new Set(answers.map((r) => r.json.data.user.id));
    expect(ids.size).toBe(1);
  });

  it("a good message signs in; replaying the same message and signature is 401 SIWE_INVALID", async () => {
    const attempt = await signedMessage();
    const ok = await verify(attempt);
    expect(ok.status).toBe(200);
    expect(ok.json.data.user.address).toBe(attempt.account.address);
    expect(typeof ok.json.data.token).toBe("string");
    expect(Date.parse(ok.json.data.expiresAt)).toBeGreaterThan(Date.now());
    expect((await service.http("GET", "/v1/me", { token: ok.json.data.token })).json.data.user.address).toBe(
      attempt.account.address,
    );

    expectError(await verify(attempt), 401, "SIWE_INVALID");
  });

  it("refuses a nonce it never issued", async () => {
    const attempt = await signedMessage({ nonce: "a".repeat(32) });
    expectError(await verify(attempt), 401, "SIWE_INVALID");
  });

  it("refuses a wrong domain, a wrong URI origin, a wrong chain, an expired or not-yet-valid message, and a bad signature", async () => {
    const url = new URL(service.baseUrl);
    const cases: Array<[string, Promise<{ message: string; signature: string }>]> = [
      ["wrong domain", signedMessage({ domain: "evil.example" })],
      ["wrong domain port", signedMessage({ domain: `${url.hostname}:1` })],
      ["wrong URI origin", signedMessage({ uri: "https://evil.example/" })],
      ["wrong URI scheme", signedMessage({ uri: `https://${url.host}/` })],
      ["wrong chain", signedMessage({ chainId: 1 })],
      ["expired", signedMessage({ expirationTime: new Date(Date.now() - 60_000) })],
      ["not yet valid", signedMessage({ notBefore: new Date(Date.now() + 3600_000) })],
    ];
    for (const [label, pending] of cases) {
      const res = await verify(await pending);
      expect(res.status, label).toBe(401);
      expect(res.json, label).toMatchObject({ statusCode: 401, error: "Unauthorized", code: "SIWE_INVALID" });
    }

    // Signed by another key than the address in the message.
    const good = await signedMessage();
    const forged = await privateKeyToAccount(generatePrivateKey()).signMessage({ message: good.message });
    expectError(await verify({ message: good.message, signature: forged }), 401, "SIWE_INVALID");
    expectError(await verify({ message: good.message, signature: `0x${"ab".repeat(65)}` }), 401, "SIWE_INVALID");
    // A refused attempt does not spend the nonce: the genuine signature still signs in.
    expect((await verify(good)).status).toBe(200);
  });

  it("a nonce issued by one instance signs in on another whose clock runs 400 s ahead (nonces live by the database's clock)", async () => {
    const skewed = await startTestService({}, { ownPool: true });
    skewed.ctx.now = () => new Date(Date.now() + 400_000);
    try {
      const account = privateKeyToAccount(generatePrivateKey());
      const url = new URL(skewed.baseUrl);
      const message = createSiweMessage({
        address: account.address,
        chainId: CHAIN_ID,
        domain: url.host,
        nonce: await nonce(),
        uri: url.origin,
        version: "1",
      });
      const res = await skewed.http("POST", "/v1/auth/siwe/verify", {
        body: { message, signature: await account.signMessage({ message }) },
      });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
    } finally {
      await skewed.stop();
    }
  });

  it("an expired nonce is refused", async () => {
    const attempt = await signedMessage();
    const value = /Nonce: (\S+)/.exec(attempt.message)![1]!;
    await service.db
      .updateTable("siwe_nonces")
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where("nonce", "=", value)
      .execute();
    expectError(await verify(attempt), 401, "SIWE_INVALID");
  });

  it("malformed input is a 400, not a 500", async () => {
    expectError(await verify({ message: "hello", signature: "0x00" }), 400, "VALIDATION_FAILED");
    expectError(
      await service.http("POST", "/v1/auth/siwe/verify", { body: { message: "x" } }),
      400,
      "VALIDATION_FAILED",
    );
    expectError(
      await service.http("POST", "/v1/auth/siwe/verify", { body: { message: "x", signature: "nothex" } }),
      400,
      "VALIDATION_FAILED",
    );
  });
});

describe("DELETE /v1/auth/session", () => {
  it("ends the session: the token is 401 afterwards; other sessions stay", async () => {
    const user = await newUser(service);
    const other = await newUser(service);
    expect((await service.http("GET", "/v1/me", { token: user.token })).status).toBe(200);
    const res = await service.http("DELETE", "/v1/auth/session", { token: user.token });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { ended: true } });
    expectError(await service.http("GET", "/v1/me", { token: user.token }), 401, "INVALID_CREDENTIALS");
    expectError(await service.http("DELETE", "/v1/auth/session", { token: user.token }), 401, "INVALID_CREDENTIALS");
    expect((await service.http("GET", "/v1/me", { token: other.token })).status).toBe(200);
  });

  it("is 401 without a credential and 403 for an agent key (which stays valid)", async () => {
    expectError(await service.http("DELETE", "/v1/auth/session"), 401, "UNAUTHENTICATED");
    const agent = await newAgent(service);
    expectError(await service.http("DELETE", "/v1/auth/session", { token: agent.apiKey }), 403, "FORBIDDEN");
    expect((await service.http("GET", "/v1/me", { token: agent.apiKey })).status).toBe(200);
  });
});
