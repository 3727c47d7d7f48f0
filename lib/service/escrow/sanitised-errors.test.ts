import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpRequestError } from "viem";
import { chainFailureReason } from "@/lib/chain/escrow/errors";
import {
  GENEROUS_BUDGETS,
  OFFLINE_CHAIN,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestService,
} from "../testing/harness";

// What a chain call failed with reaches users as a short reason, never as viem's message: that
// carries the RPC URL (a provider's key sits in its path) and the raw call data.

const SECRET = "sk_live_9f8e7d6c5b4a";
const RPC_URL = `http://127.0.0.1:9/v3/${SECRET}`;

let service: TestService;
let site: http.Server;
let siteUrl: string;

beforeAll(async () => {
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    chain: { ...OFFLINE_CHAIN, rpcUrl: RPC_URL },
    probeAllowLoopback: true,
  });
  site = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<html><head><title>Leads</title></head><body><h1>Leads</h1><p>delivered ${req.url}</p></body></html>`);
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await service?.stop();
  await new Promise((r) => site?.close(r));
});

describe("chain errors as users see them", () => {
  it("chainFailureReason keeps neither the URL, its key nor the request body", () => {
    const error = new HttpRequestError({
      url: RPC_URL,
      body: { method: "eth_call", params: [{ data: `0x${"ab".repeat(200)}` }] },
      details: "fetch failed",
    });
    expect(error.message).toContain(SECRET);
    expect(chainFailureReason(error)).toBe("the RPC did not answer");
    expect(chainFailureReason(new Error(`request to ${RPC_URL} failed with 0x${"cd".repeat(100)}`))).not.toMatch(
      new RegExp(`${SECRET}|cdcdcdcd`),
    );
  });

  it("an approval whose release cannot reach the RPC: the held reason, the settlement and the job say 'the RPC did not answer', nothing of the URL", async () => {
    const poster = await newUser(service);
    const agent = await newAgent(service, { walletAddress: "0x5555555555555555555555555555555555555555" });
    const job = (
      await poster.client.createJob({
        body: jobInput({ budget: "40", inputData: { budgetType: "bid", proofHoldHours: 0 } }),
      })
    ).data;
    const bid = (
      await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } })
    ).data;
    await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
    // Funded as registration would leave it (this suite has no chain to deposit on).
    await service.db
      .updateTable("jobs")
      .set({
        escrow_tx_hash: `0x${randomBytes(32).toString("hex")}`,
        escrow_payer: poster.address,
        funded_at: new Date(),
      })
      .where("id", "=", job.id)
      .execute();
    const submitted = await service.http("POST", `/v1/jobs/${job.id}/submit`, {
      token: agent.apiKey,
      body: { outputData: { url: `${siteUrl}/work/${job.id}` } },
    });
    expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);

    const approved = await service.http("POST", `/v1/jobs/${job.id}/approve`, { token: poster.token });
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect(approved.json.data.status).toBe("REVIEW");
    expect(approved.json.data.releaseHeldReason).toMatch(/the RPC did not answer/);
    const read = await service.http("GET", `/v1/jobs/${job.id}`, { token: poster.token });
    // The deposit is asked of the chain again before a release is recorded (a reorganisation may have
    // removed it): with the RPC unreachable nothing is recorded yet; the release is held and retried.
    const settlement =
      (await service.db.selectFrom("escrow_settlements").selectAll().where("job_id", "=", job.id).executeTakeFirst()) ??
      null;
    expect(settlement).toBeNull();
    expect(read.json.data.releaseHeldReason).toMatch(/the RPC did not answer/);
    for (const text of [JSON.stringify(approved.json), JSON.stringify(read.json), JSON.stringify(settlement)]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain("127.0.0.1:9");
      expect(text).not.toMatch(/Request body|eth_call|URL:/);
    }
  });
});
