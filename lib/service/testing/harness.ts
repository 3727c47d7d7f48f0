import { returnUnspentLeases } from "../http/rate-limit";
import { randomBytes, randomInt, randomUUID } from "node:crypto";
import type { IncomingMessage, Server as HttpServer } from "node:http";
import type { Http2ServerRequest } from "node:http2";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { createApiClient, type ApiClient } from "@/lib/api/client";
import type { ChainConfig } from "@/lib/chain/config";
import { createServiceApp } from "../app";
import { defaultServiceConfig, type ServiceConfig } from "../config";
import type { CrashPoints, ServiceContext } from "../context";
import { openDatabase, type Db } from "../db/connection";
import type { ReadReplicas } from "../db/replicas";
import { openMailText } from "../mail/seal-mail-text";
import { parseTrustProxy, resolveClient } from "@/lib/net/client-address.mjs";
import { answerExpectContinue } from "@/lib/net/request-body.mjs";

/**
 * A real HTTP server around the real service for tests: requests go over loopback through the same
 * router, validation, auth and database as production. Each test worker shares one database (PGlite
 * in memory, or TEST_DATABASE_URL) and isolates tests by data: every test makes its own agents,
 * users and jobs.
 */

/** A chain configuration for suites that never touch the chain (escrow suites start anvil). */
export const OFFLINE_CHAIN: ChainConfig = {
  network: "local",
  chainId: 31337,
  rpcUrl: "http://127.0.0.1:9",
  tokenAddress: "0x1111111111111111111111111111111111111111",
  tokenSymbol: "USDC",
  tokenDecimals: 6,
  escrowAddress: "0x2222222222222222222222222222222222222222",
  feeBps: 500,
  confirmations: 1,
  explorerUrl: null,
  // anvil's first test key: well formed, so code that derives the managed wallet from it works offline.
  operatorPrivateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  treasuryAddress: "0x4444444444444444444444444444444444444444",
} as unknown as ChainConfig;

/**
 * For suites that act as one poster many times a minute (one anvil account signs in each time):
 * budgets are still counted, just not the subject of the test (lib/service/http tests them).
 */
export const GENEROUS_BUDGETS = {
  publicReadsPerMinute: 100_000,
  authReadsPerMinute: 100_000,
  writesPerMinute: 100_000,
  addressPerMinute: 100_000,
};

export interface TestService {
  baseUrl: string;
  ctx: ServiceContext;
  db: Db;
  /** Where a test makes this service crash (context.ts, CrashPoints): set one, and unset it after. */
  crashPoints: CrashPoints;
  /** A typed client that plays its own client address, so IP budgets of tests do not collide. */
  client(token?: string, ip?: string): ApiClient;
  /**
   * Raw HTTP, for asserting status codes, headers and envelopes exactly. `ip` plays a client
   * address through X-Forwarded-For (a fresh one by default); null sends none, as a browser talking
   * to the server directly does.
   */
  http(
    method: string,
    path: string,
    options?: {
      token?: string;
      body?: unknown;
      rawBody?: string;
      headers?: Record<string, string>;
      ip?: string | null;
    },
  ): Promise<{ status: number; headers: Headers; json: any }>;
  stop(): Promise<void>;
}

let sharedDb: Promise<Db> | undefined;

function database(): Promise<Db> {
  sharedDb ??= openDatabase(
    process.env.TEST_DATABASE_URL
      ? { databaseUrl: process.env.TEST_DATABASE_URL, maxConnections: 30 }
      : { dataDir: "memory://" },
  );
  return sharedDb;
}

/**
 * Where this process's addresses start, drawn at random: suites on one PostgreSQL database share its
 * rate budgets, and two test processes whose pids agree modulo 250 would otherwise walk the same
 * addresses in step, one spending the budget of an address the other is about to use.
 */
let ipCounter = randomInt(62_500);
/**
 * A fresh loopback address per simulated client (127.0.0.0/8 is all loopback), each in its own /24
 * for 250 calls in a row: forum rewards allow one reward per kind per /24 (the network origin), so
 * distinct simulated clients must look like distinct networks. A test of that rule passes one
 * address as `ip` (or a client's header) on purpose.
 */
export function newClientIp(): string {
  ipCounter += 1;
  const pid = process.pid % 250;
  return `127.${pid + 1}.${ipCounter % 250}.${(Math.floor(ipCounter / 250) % 250) + 1}`;
}

/**
 * The harness stands where scripts/server.mjs stands in production and judges the raw request with
 * the same rule (lib/net/client-address.mjs), as TRUST_PROXY=1: tests play many clients from
 * loopback through X-Forwarded-For, as the e2e stack does.
 */
const HARNESS_TRUST = parseTrustProxy("1");

/**
 * `ownPool`: this service gets connections of its own to TEST_DATABASE_URL instead of the worker's
 * shared pool, as a second app instance (another process or machine) on the same PostgreSQL would.
 */
export async function startTestService(
  overrides: Partial<ServiceConfig> = {},
  options: { ownPool?: boolean; db?: Db; replicas?: ReadReplicas; webBody?: boolean } = {},
): Promise<TestService> {
  const ownPool =
    options.ownPool && process.env.TEST_DATABASE_URL
      ? await openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, maxConnections: 15 })
      : null;
  // `db`: a database the test opened itself (e.g. through a proxy it controls); the test closes it.
  const db = options.db ?? ownPool ?? (await database());
  // Its own origin hash key: reward origins of suites (and earlier runs on a kept PostgreSQL
  // database) sharing one database never match each other's; within a suite the rule holds.
  const config = defaultServiceConfig({
    chain: OFFLINE_CHAIN,
    originHashSecret: `test-${randomUUID()}`,
    devOutboxToken: randomBytes(32).toString("base64url"),
    ...overrides,
  });
  // `replicas`: read replicas the test started (db/replicas.ts); the test closes them.
  // Its own crash points: a test that makes one throw touches this service only.
  const crashPoints: CrashPoints = {};
  const ctx: ServiceContext = { db, config, now: () => new Date(), replicas: options.replicas ?? null, crashPoints };
  const app = createServiceApp(ctx);

  const server: ServerType = await new Promise((resolve) => {
    const s = serve(
      {
        hostname: "127.0.0.1",
        port: 0,
        // As scripts/server.mjs, Node's request goes along and bodies are read from it; `webBody`
        // leaves it out, as Next's /v1 route does, so the body is read from the Request's stream.
        fetch: (request, env: { incoming: IncomingMessage | Http2ServerRequest }) =>
          app.fetch(request, {
            ...resolveClient({
              peer: env.incoming.socket.remoteAddress,
              headers: env.incoming.headers,
              trust: HARNESS_TRUST,
            }),
            ...(options.webBody ? {} : { incoming: env.incoming as IncomingMessage }),
          }),
      },
      () => resolve(s),
    );
  });
  // Idle connections stay open longer than any pause between a test's requests: with Node's 5 s
  // default, a loaded runner lets fetch reuse a socket in the instant the server closes it, and the
  // request fails as "fetch failed" though the service did nothing wrong.
  (server as { keepAliveTimeout?: number }).keepAliveTimeout = 120_000;
  // As scripts/server.mjs does in front of the service: no go-ahead for a body declared too large.
  answerExpectContinue(server as HttpServer, () => true);
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  // The service knows its own socket, as in production (env HOST and PORT), so its prober refuses it.
  config.listen ??= { host: "127.0.0.1", port };

  return {
    baseUrl,
    crashPoints,
    ctx,
    db,
    client(token?: string, ip = newClientIp()) {
      return createApiClient({ baseUrl, token, headers: { "x-forwarded-for": ip }, baseDelayMs: 10, maxDelayMs: 50 });
    },
    async http(method, path, options = {}) {
      const ip = options.ip === undefined ? newClientIp() : options.ip;
      const headers: Record<string, string> = { ...(ip ? { "x-forwarded-for": ip } : {}), ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        headers["content-type"] = "application/json";
        body = JSON.stringify(options.body);
      }
      const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
      const text = await response.text();
      let json: unknown = null;
      try {
        json = text ? JSON.parse(text) : null;
      } catch {
        json = text;
      }
      return { status: response.status, headers: response.headers, json };
    },
    stop: async () => {
      // Open streams end first (the server waits for every open answer), then the bus's connection.
      await ctx.streams?.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // What this process's rate-budget leases left unspent goes back, as a stopping instance's does:
      // the next suite on a shared PostgreSQL database starts from what was really spent.
      await returnUnspentLeases(db);
      await ownPool?.destroy();
    },
  };
}

// ── Actors ─────────────────────────────────────────────────────────────────────────────────────

let emailCounter = 0;

export interface TestAgent {
  id: string;
  apiKey: string;
  client: ApiClient;
}

/** Signs up an agent over HTTP; `active` sends its first heartbeat. */
export async function newAgent(
  service: TestService,
  options: { active?: boolean; name?: string; ownerEmail?: string; referralCode?: string; walletAddress?: string } = {},
): Promise<TestAgent> {
  emailCounter += 1;
  const signup = await service.client().signUpAgent({
    body: {
      ownerEmail: options.ownerEmail ?? `owner-${process.pid}-${Date.now()}-${emailCounter}@example.test`,
      name: options.name ?? `Test Agent ${emailCounter}`,
      vertical: "RESEARCH",
      ...(options.referralCode ? { referralCode: options.referralCode } : {}),
      ...(options.walletAddress ? { walletAddress: options.walletAddress } : {}),
    },
  });
  const client = service.client(signup.data.apiKey);
  if (options.active ?? true) await client.heartbeat({});
  return { id: signup.data.agent.id, apiKey: signup.data.apiKey, client };
}

export interface TestUser {
  id: string;
  address: `0x${string}`;
  token: string;
  client: ApiClient;
}

/** Signs in a human with SIWE, signing with a key (an anvil test key by default: index picks it). */
export async function newUser(service: TestService, privateKey?: `0x${string}`): Promise<TestUser> {
  const key =
    privateKey ?? (`0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}` as `0x${string}`);
  const account = privateKeyToAccount(key);
  const anonymous = service.client();
  const { data } = await anonymous.createSiweNonce({});
  const url = new URL(service.ctx.config.siteUrl ?? service.baseUrl);
  const message = createSiweMessage({
    address: account.address,
    chainId: service.ctx.config.chain?.chainId ?? 31337,
    domain: url.host,
    nonce: data.nonce,
    uri: url.origin,
    version: "1",
    statement: "Sign in to the Agent Work Marketplace",
  });
  const signature = await account.signMessage({ message });
  const verified = await anonymous.verifySiwe({ body: { message, signature } });
  return {
    id: verified.data.user.id,
    address: account.address,
    token: verified.data.token,
    client: service.client(verified.data.token),
  };
}

/** The body of the latest mail to `to`, read from the outbox table and opened with the outbox secret. */
export async function mailTextFor(service: TestService, to: string): Promise<string> {
  const row = await service.db
    .selectFrom("mail_outbox")
    .select("text")
    .where("to_address", "=", to)
    .orderBy("created_at", "desc")
    .executeTakeFirstOrThrow();
  const text = openMailText(service.ctx.config.devOutboxToken ?? "", row.text);
  if (text === null) throw new Error(`the outbox kept no readable body of the mail to ${to}`);
  return text;
}

/** The claim token mailed to ownerEmail, read from the outbox. */
export async function claimLinkFor(service: TestService, ownerEmail: string): Promise<string> {
  const match = /\/claim\/(\S+)/.exec(await mailTextFor(service, ownerEmail));
  if (!match) throw new Error("no claim link in the mail");
  return match[1]!;
}

export function jobInput(overrides: Record<string, unknown> = {}) {
  return {
    templateId: "custom-v1" as const,
    title: "Collect 50 B2B leads in fintech",
    description: "Find 50 decision makers at European fintech companies with verified emails.",
    acceptanceCriteria: ["A CSV with 50 rows", "Each row has a verified email"],
    inputData: { budgetType: "bid" as const },
    budget: "40",
    ...overrides,
  };
}
