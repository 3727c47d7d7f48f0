import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChainConfig } from "@/lib/chain/config";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { formatUsdc, parseUsdc } from "@/lib/chain/units";
import { openDatabase, type Db } from "@/lib/service/db/connection";
import {
  GENEROUS_BUDGETS,
  newAgent,
  newUser,
  OFFLINE_CHAIN,
  startTestService,
  type TestService,
} from "@/lib/service/testing/harness";
import { DEMO_KEYS, seedDemoData } from "./seed";

// npm start's demo data signs in with anvil's public development keys: on a real network those
// accounts are anyone's, so the demo data must never appear there.
describe("demo data on a real network", () => {
  let service: TestService;
  beforeAll(async () => {
    const base = {
      ...OFFLINE_CHAIN,
      network: "base",
      chainId: 8453,
      explorerUrl: "https://basescan.org",
    } as unknown as ChainConfig;
    service = await startTestService({ chain: base });
  });
  afterAll(() => service.stop());

  it("is not added: no demo agent and no demo job", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "awm-seed-"));
    const result = await seedDemoData({ baseUrl: service.baseUrl, siteUrl: service.baseUrl, dataDir });
    expect(result).toEqual({ seeded: false });
    // Only the seed uses these (other suites share the database and sign in with anvil's keys too).
    const demoAgents = await service.db
      .selectFrom("agents")
      .select("id")
      .where("owner_email", "=", "owner@demo.local")
      .execute();
    expect(demoAgents).toEqual([]);
    const demoJobs = await service.db
      .selectFrom("jobs")
      .select("id")
      .where("title", "=", "Collect 50 B2B leads in European fintech")
      .execute();
    expect(demoJobs).toEqual([]);
  });
});

// On the local chain, the demo data is where a newcomer earns a first payment: its funded jobs pay at
// approval (no proof hold), so following skill.md on a fresh `npm start` pays within the hour.
describe("demo data on the local chain", () => {
  let chain: TestChain;
  let service: TestService;
  let db: Db;
  let site: http.Server;
  const outboxToken = randomBytes(24).toString("base64url");
  beforeAll(async () => {
    chain = await startTestChain();
    // A database of its own: the demo data is added once per database, and other suites sign in
    // with the same anvil keys.
    db = await openDatabase({ dataDir: "memory://" });
    service = await startTestService(
      { chain: chain.config, rateBudgets: GENEROUS_BUDGETS, devOutboxToken: outboxToken, probeAllowLoopback: true },
      { db },
    );
    site = http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(PAGE));
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    site?.close();
    await service?.stop();
    await db?.destroy();
    await chain?.stop();
  });
  const PAGE = "<html><head><title>Leads</title></head><body><h1>50 fintech leads</h1><p>Delivered.</p></body></html>";

  it("its funded jobs pay at approval: a newcomer finds them with maxProofHoldHours=1, is accepted, delivers and is paid on chain at once", async () => {
    const previous = process.env.DEV_OUTBOX_TOKEN;
    process.env.DEV_OUTBOX_TOKEN = outboxToken;
    try {
      const seeded = await seedDemoData({ baseUrl: service.baseUrl, siteUrl: service.baseUrl, dataDir: chain.dataDir });
      expect(seeded).toEqual({ seeded: true });
    } finally {
      if (previous === undefined) delete process.env.DEV_OUTBOX_TOKEN;
      else process.env.DEV_OUTBOX_TOKEN = previous;
    }
    const started = performance.now();
    const poster = await newUser(service, DEMO_KEYS.poster);
    const board = await service.http("GET", `/v1/jobs?posterId=${poster.id}`);
    const holds = (board.json.data as Array<{ funded: boolean; proofHoldHours: number }>).map((j) => [
      j.funded,
      j.proofHoldHours,
    ]);
    // Every funded demo job pays at approval; the unfunded ones show longer holds.
    expect(holds.filter(([funded]) => funded)).toEqual([
      [true, 0],
      [true, 0],
    ]);

    const wallet = chain.accounts[7]!.address;
    const agent = await newAgent(service, { walletAddress: wallet });
    const found = await service.http(
      "GET",
      "/v1/jobs?status=OPEN&funded=true&participationMode=BID&excludeBidBy=me&maxProofHoldHours=1",
      { token: agent.apiKey },
    );
    const job = (found.json.data as Array<{ id: string; budgetUsdc: string; posterId: string }>).find(
      (j) => j.posterId === poster.id,
    )!;
    expect(job).toBeDefined();
    const before = await erc20BalanceOf({ config: chain.config, address: wallet });
    const bid = await agent.client.placeBid({
      params: { id: job.id },
      body: { agentId: agent.id, proposedUsdc: job.budgetUsdc },
    });
    // The demo jobs are funded where new deposits go, EscrowV2 by default: accepting asks for the
    // poster's Assign (as the dashboard's "Sign and accept" does), then assigns the agent on chain.
    expect((await poster.client.getJob({ params: { id: job.id } })).data.escrowVersion).toBe(2);
    const accept = (body?: Record<string, unknown>) =>
      service.http("POST", `/v1/jobs/${job.id}/bids/${bid.data.id}/accept`, {
        token: poster.token,
        ...(body ? { body } : {}),
      });
    const asked = await accept();
    expect(asked.status, JSON.stringify(asked.json)).toBe(409);
    expect(asked.json.code).toBe("ASSIGNMENT_SIGNATURE_REQUIRED");
    const { domain, types, message } = asked.json.assignment;
    const assignmentSignature = await privateKeyToAccount(DEMO_KEYS.poster).signTypedData({
      domain,
      types,
      primaryType: "Assign",
      message: { ...message, deadline: BigInt(message.deadline) },
    });
    const accepted = await accept({ assignmentSignature });
    expect(accepted.status, JSON.stringify(accepted.json)).toBe(200);
    const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/leads`;
    expect(
      (await agent.client.submitDeliverable({ params: { id: job.id }, body: { outputData: { url } } })).data.status,
    ).toBe("REVIEW");
    const approved = (await poster.client.approveJob({ params: { id: job.id } })).data;
    expect(approved).toMatchObject({ status: "COMPLETED", releaseTxHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const after = await erc20BalanceOf({ config: chain.config, address: wallet });
    expect(after - before).toBe((parseUsdc(job.budgetUsdc) * 95n) / 100n);
    console.info(
      `demo job "${job.id}": from the search to ${formatUsdc(after - before)} USDC in the wallet in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});
