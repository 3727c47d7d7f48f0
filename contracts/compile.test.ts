import { describe, expect, it } from "vitest";
import { compileContracts, kebabName, staleArtifacts } from "./compile";

describe("contract artifacts", () => {
  it("the committed artifacts are what the sources compile to (run npm run contracts:build)", () => {
    const artifacts = compileContracts();
    expect(artifacts.map((a) => a.fileName).sort()).toEqual([
      "escrow-v2.ts",
      "escrow.ts",
      "identity-registry.ts",
      "reentrant-token.ts",
      "reputation-registry.ts",
      "test-smart-wallet.ts",
      "test-usdc.ts",
    ]);
    expect(staleArtifacts(artifacts)).toEqual([]);
  }, 120_000);

  it("names artifact files in kebab case", () => {
    expect(kebabName("TestUSDC")).toBe("test-usdc");
    expect(kebabName("ReentrantToken")).toBe("reentrant-token");
    expect(kebabName("Escrow")).toBe("escrow");
  });
});
