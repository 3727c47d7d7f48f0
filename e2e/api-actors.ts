import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { expect } from "@playwright/test";
import { createApiClient, type ApiClient } from "@/lib/api";
import { loadChainConfig } from "@/lib/chain/config";

// Actors that act through the public API, as agents and scripts do, against the e2e stack. Each
// plays its own loopback address so that per-IP budgets of the test process do not collide.

let counter = 0;
const nextIp = () => `127.9.${Math.floor(++counter / 250)}.${(counter % 250) + 1}`;

export function apiClient(token?: string, baseUrl = process.env.E2E_BASE_URL!): ApiClient {
  return createApiClient({ baseUrl, token, headers: { "x-forwarded-for": nextIp() } });
}

/** A human signed in with SIWE from a fresh key (on the stack's app, or the app at `baseUrl`). */
export async function signedInHuman(
  privateKey = generatePrivateKey(),
  baseUrl = process.env.E2E_BASE_URL!,
): Promise<{ client: ApiClient; token: string; address: string }> {
  const anonymous = apiClient(undefined, baseUrl);
  const account = privateKeyToAccount(privateKey);
  const chainId = (await anonymous.getChain({})).data.chainId;
  const site = new URL(baseUrl);
  const { data } = await anonymous.createSiweNonce({});
  const message = createSiweMessage({
    address: account.address,
    chainId,
    domain: site.host,
    nonce: data.nonce,
    uri: site.origin,
    version: "1",
  });
  const verified = await anonymous.verifySiwe({ body: { message, signature: await account.signMessage({ message }) } });
  return {
    client: apiClient(verified.data.token, baseUrl),
    token: verified.data.token,
    address: account.address,
  };
}

/** The stack's chain configuration (its deployment in E2E_DATA_DIR), for deposits and balance reads. */
export function chainConfig() {
  return loadChainConfig({ ...process.env, DATA_DIR: process.env.E2E_DATA_DIR, RPC_URL: process.env.E2E_RPC_URL });
}

/** The development outbox's page, with the secret it needs. */
export function outboxPath(): string {
  expect(process.env.E2E_OUTBOX_TOKEN, "E2E_OUTBOX_TOKEN: the stack's outbox secret").toBeTruthy();
  return `/dev/outbox?token=${encodeURIComponent(process.env.E2E_OUTBOX_TOKEN!)}`;
}

/**
 * The mail the service kept (the built-in outbox), with its secret. The outbox refuses anything that
 * came through a proxy, so this read sends no X-Forwarded-For.
 */
export async function readOutbox() {
  const direct = createApiClient({ baseUrl: process.env.E2E_BASE_URL! });
  return (await direct.listOutbox({ query: { token: process.env.E2E_OUTBOX_TOKEN } })).data;
}

/** The owner claims an agent from the link the service mailed (the built-in outbox), as a person would. */
export async function claimAsOwner(owner: ApiClient, ownerEmail: string) {
  const mail = (await readOutbox()).find((m) => m.to === ownerEmail);
  const token = mail?.text?.match(/\/claim\/([^\s/]+)/)?.[1];
  expect(token, `a claim link mailed to ${ownerEmail}`).toBeTruthy();
  await owner.claimAgent({ params: { token: token! } });
}

/**
 * Data a spec file makes once for the stack and its tests share: kept in the stack's data folder,
 * so a worker that restarts after a failed test reads it back instead of making it again (which
 * would also run into the service's posting limits, such as three threads an hour).
 */
export async function madeOnce<T>(name: string, make: () => Promise<T>): Promise<T> {
  const dir =
    process.env.E2E_DATA_DIR ||
    path.join(
      os.tmpdir(),
      `awm-e2e-${createHash("sha256")
        .update(process.env.E2E_BASE_URL ?? "")
        .digest("hex")
        .slice(0, 12)}`,
    );
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `spec-data-${name}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as T;
  const data = await make();
  writeFileSync(file, JSON.stringify(data));
  return data;
}
