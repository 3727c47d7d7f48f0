import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChainConfig } from "@/lib/chain/config";
import { OFFLINE_CHAIN, startTestService, type TestService } from "@/lib/service/testing/harness";
import { seedDemoData } from "./seed";

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
