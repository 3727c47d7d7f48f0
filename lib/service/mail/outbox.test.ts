import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashSecret } from "../auth/tokens";
import { OFFLINE_CHAIN, newAgent, startTestService, type TestService } from "../testing/harness";

// The development outbox holds claim links, i.e. credentials: it answers only with its secret, on
// the local chain, and never through a proxy; what it keeps of a mail is sealed or nothing.

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const email = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
const outboxPath = (token?: string) =>
  `/v1/dev/outbox${token === undefined ? "" : `?token=${encodeURIComponent(token)}`}`;
const secretOf = (s: TestService) => s.ctx.config.devOutboxToken!;

function expectRefused(res: { status: number; json: any }, code: string) {
  expect(res.status, JSON.stringify(res.json)).toBe(403);
  expect(res.json).toMatchObject({ statusCode: 403, error: "Forbidden", code });
  expect(JSON.stringify(res.json)).not.toContain("/claim/");
}

/**
 * A reverse proxy on this machine in front of the service, like nginx with a plain proxy_pass: the
 * service's peer is loopback for every client. `addForwardedFor` appends the client's address as
 * nginx's $proxy_add_x_forwarded_for does; otherwise the client's headers pass unchanged.
 */
async function startProxy(target: string, addForwardedFor: boolean): Promise<{ url: string; server: Server }> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const headers: IncomingHttpHeaders = { ...req.headers };
    if (addForwardedFor) {
      const peer = req.socket.remoteAddress ?? "";
      headers["x-forwarded-for"] = headers["x-forwarded-for"] ? `${headers["x-forwarded-for"]}, ${peer}` : peer;
    }
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", () => res.writeHead(502).end());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function getJson(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, json: await res.json() };
}

describe("GET /v1/dev/outbox", () => {
  it("answers a direct request with the outbox secret on the local chain: the mail and its claim link", async () => {
    const to = email("outbox");
    await newAgent(service, { ownerEmail: to, name: "Outbox Agent" });
    const res = await service.http("GET", outboxPath(secretOf(service)), { ip: null });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const mail = res.json.data.find((m: { to: string }) => m.to === to);
    expect(mail).toMatchObject({ to, subject: expect.stringContaining("Outbox Agent"), sentAt: null, error: null });
    expect(mail.text).toMatch(new RegExp(`^.*${service.baseUrl}/claim/\\S+`, "m"));
    expect(Date.parse(mail.createdAt)).not.toBeNaN();
  });

  it("is refused without the secret and with a wrong one", async () => {
    await newAgent(service, { ownerEmail: email("no-token") });
    expectRefused(await service.http("GET", outboxPath(), { ip: null }), "OUTBOX_TOKEN_INVALID");
    expectRefused(await service.http("GET", outboxPath(""), { ip: null }), "OUTBOX_TOKEN_INVALID");
    expectRefused(await service.http("GET", outboxPath(`${secretOf(service)}x`), { ip: null }), "OUTBOX_TOKEN_INVALID");
    expectRefused(await service.http("GET", outboxPath("a".repeat(43)), { ip: null }), "OUTBOX_TOKEN_INVALID");
  });

  it("is refused to a request carrying X-Forwarded-For, Forwarded or X-Real-IP, even with the secret", async () => {
    await newAgent(service, { ownerEmail: email("proxied") });
    const path = outboxPath(secretOf(service));
    expectRefused(await service.http("GET", path, { ip: "127.0.0.1, 198.51.100.7" }), "OUTBOX_PROXIED");
    expectRefused(await service.http("GET", path, { ip: "127.0.0.1" }), "OUTBOX_PROXIED");
    expectRefused(
      await service.http("GET", path, { ip: null, headers: { forwarded: "for=127.0.0.1" } }),
      "OUTBOX_PROXIED",
    );
    expectRefused(
      await service.http("GET", path, { ip: null, headers: { "x-real-ip": "127.0.0.1" } }),
      "OUTBOX_PROXIED",
    );
  });

  it("is refused off the local development chain, even with the secret, and keeps no body there", async () => {
    const remote = await startTestService({
      chain: { ...OFFLINE_CHAIN, network: "base-sepolia", chainId: 84532 } as typeof OFFLINE_CHAIN,
    });
    try {
      const to = email("non-local");
      await newAgent(remote, { ownerEmail: to });
      expectRefused(await remote.http("GET", outboxPath(secretOf(remote)), { ip: null }), "OUTBOX_CLOSED");
      const row = await remote.db
        .selectFrom("mail_outbox")
        .select("text")
        .where("to_address", "=", to)
        .executeTakeFirstOrThrow();
      expect(row.text).toBeNull();
    } finally {
      await remote.stop();
    }
  });

  it("never hands a claim link to a stranger behind a reverse proxy on this host, with or without X-Forwarded-For", async () => {
    await newAgent(service, { ownerEmail: email("behind-proxy") });
    const plain = await startProxy(service.baseUrl, false);
    const withXff = await startProxy(service.baseUrl, true);
    try {
      // Every client of the proxy reaches the service from loopback; without the secret that is worth nothing.
      expectRefused(await getJson(`${plain.url}${outboxPath()}`), "OUTBOX_TOKEN_INVALID");
      expectRefused(await getJson(`${plain.url}${outboxPath("guess")}`), "OUTBOX_TOKEN_INVALID");
      // A proxy that says it is one is refused outright, even for a holder of the secret.
      expectRefused(await getJson(`${withXff.url}${outboxPath()}`), "OUTBOX_PROXIED");
      expectRefused(await getJson(`${withXff.url}${outboxPath(secretOf(service))}`), "OUTBOX_PROXIED");
      expectRefused(
        await getJson(`${plain.url}${outboxPath(secretOf(service))}`, { "x-forwarded-for": "127.0.0.1, 198.51.100.7" }),
        "OUTBOX_PROXIED",
      );
    } finally {
      plain.server.close();
      withXff.server.close();
    }
  });

  it("keeps no mail body when SMTP is configured: only to, subject and the outcome", async () => {
    // Port 9 on loopback refuses the connection: the send fails, and the failure is what is kept.
    const smtp = await startTestService({ smtpUrl: "smtp://127.0.0.1:9" });
    try {
      const to = email("smtp");
      await newAgent(smtp, { ownerEmail: to, name: "Mailed Agent" });
      const row = await smtp.db
        .selectFrom("mail_outbox")
        .selectAll()
        .where("to_address", "=", to)
        .executeTakeFirstOrThrow();
      expect(row.text).toBeNull();
      expect(row.error).toBeTruthy();
      const res = await smtp.http("GET", outboxPath(secretOf(smtp)), { ip: null });
      expect(res.status).toBe(200);
      expect(res.json.data.find((m: { to: string }) => m.to === to)).toMatchObject({
        to,
        subject: expect.stringContaining("Mailed Agent"),
        text: null,
        sentAt: null,
        error: expect.any(String),
      });
    } finally {
      await smtp.stop();
    }
  });

  it("stores the claim token only hashed: neither the claim table nor the kept mail holds it in plain text", async () => {
    const to = email("hashed");
    await newAgent(service, { ownerEmail: to });
    const res = await service.http("GET", outboxPath(secretOf(service)), { ip: null });
    const text: string = res.json.data.find((m: { to: string }) => m.to === to).text;
    const claimToken = /\/claim\/(\S+)/.exec(text)![1]!;

    const claims = await sql<{ row: string }>`select c::text as row from agent_claims c`.execute(service.db);
    const mails = await sql<{ row: string }>`select m::text as row from mail_outbox m`.execute(service.db);
    const everything = [...claims.rows, ...mails.rows].map((r) => r.row).join("\n");
    expect(everything).not.toContain(claimToken);
    expect(everything).not.toContain(claimToken.slice(-24));
    // What the claim table holds is the token's hash.
    expect(claims.rows.some((r) => r.row.includes(hashSecret(claimToken)))).toBe(true);
  });
});
