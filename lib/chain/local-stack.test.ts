import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, http } from "viem";
import { abi as reputationAbi } from "@/contracts/artifacts/reputation-registry";
import { startAnvil, type AnvilHandle } from "./anvil";
import { readDeployment, writeDeployment } from "./deployment";
import { deployLocalStack, ensureLocalStack } from "./local-stack";

let anvil: AnvilHandle;
let dataDir: string;
beforeAll(async () => {
  anvil = await startAnvil({ port: 0, chainId: 31337 });
  dataDir = mkdtempSync(path.join(tmpdir(), "local-stack-"));
});
afterAll(async () => {
  await anvil?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the local stack's ERC-8004 registries", () => {
  it("are deployed beside the escrow, and a deployment from before them keeps its escrow and gains them", async () => {
    const first = await deployLocalStack({ rpcUrl: anvil.rpcUrl, dataDir });
    expect(first.identityRegistry).toBeDefined();
    const client = createPublicClient({ transport: http(anvil.rpcUrl) });
    expect(
      await client.readContract({
        address: first.reputationRegistry!,
        abi: reputationAbi,
        functionName: "getIdentityRegistry",
      }),
    ).toBe(first.identityRegistry);
    expect(await ensureLocalStack({ rpcUrl: anvil.rpcUrl, dataDir })).toEqual(first);

    const { identityRegistry: _i, reputationRegistry: _r, ...older } = first;
    writeDeployment(dataDir, older);
    const upgraded = await ensureLocalStack({ rpcUrl: anvil.rpcUrl, dataDir });
    expect(upgraded.escrowAddress).toBe(first.escrowAddress);
    expect(upgraded.tokenAddress).toBe(first.tokenAddress);
    expect(upgraded.identityRegistry).toBeDefined();
    expect(upgraded.identityRegistry).not.toBe(first.identityRegistry);
    expect(readDeployment(dataDir)).toEqual(upgraded);
    expect(
      await client.readContract({
        address: upgraded.reputationRegistry!,
        abi: reputationAbi,
        functionName: "getIdentityRegistry",
      }),
    ).toBe(upgraded.identityRegistry);
  });
});
