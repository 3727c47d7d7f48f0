import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BASE_SEPOLIA_USDC, BASE_USDC } from "./chains";
import { ChainConfigError, loadChainConfig, publicChainInfo } from "./config";
import { writeDeployment, type LocalDeployment } from "./deployment";

const KEY = `0x${"11".repeat(32)}`;
const ESCROW = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const dirs: string[] = [];

function dataDirWithDeployment(overrides: Partial<LocalDeployment> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), "chain-config-"));
  dirs.push(dir);
  const account = {
    address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" as const,
    privateKey: `0x${"22".repeat(32)}` as const,
  };
  writeDeployment(dir, {
    network: "local",
    chainId: 31337,
    rpcUrl: "http://127.0.0.1:18545",
    tokenAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    escrowAddress: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
    feeBps: 500,
    operator: account,
    feeRecipient: account.address,
    rewards: { ...account, privateKey: `0x${"33".repeat(32)}` },
    deployBlock: 0,
    deployedAt: new Date(0).toISOString(),
    accounts: [account],
    ...overrides,
  });
  return dir;
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("loadChainConfig", () => {
  it("local: reads addresses and keys from the deploy script's chain.json", () => {
    const dir = dataDirWithDeployment();
    const config = loadChainConfig({ DATA_DIR: dir });
    expect(config).toEqual({
      network: "local",
      chainId: 31337,
      rpcUrl: "http://127.0.0.1:18545", // the deployment's own RPC when neither RPC_URL nor ANVIL_PORT is set
      tokenAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      tokenSymbol: "USDC",
      tokenDecimals: 6,
      escrowAddress: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
      newDepositsEscrowVersion: 1,
      feeBps: 500,
      confirmations: 1,
      explorerUrl: null,
      operatorPrivateKey: `0x${"22".repeat(32)}`,
      rewardsPrivateKey: `0x${"33".repeat(32)}`,
      treasuryAddress: null, // a file written before the treasury existed (the deploy script then redeploys)
      identityRegistryAddress: null, // likewise before the ERC-8004 registries
      reputationRegistryAddress: null,
    });
    expect(loadChainConfig({ DATA_DIR: dir, ANVIL_PORT: "18501" }).rpcUrl).toBe("http://127.0.0.1:18501");
    expect(
      loadChainConfig({ DATA_DIR: dir, RPC_URL: "http://127.0.0.1:9999", CHAIN_CONFIRMATIONS: "2", FEE_BPS: "250" }),
    ).toMatchObject({
      rpcUrl: "http://127.0.0.1:9999",
      confirmations: 2,
      feeBps: 250,
    });
  });

  it("local: environment addresses need no deployment file and default to port 8545", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "chain-config-"));
    dirs.push(dir);
    const config = loadChainConfig({
      DATA_DIR: dir,
      ESCROW_ADDRESS: ESCROW,
      TOKEN_ADDRESS: ESCROW,
      OPERATOR_PRIVATE_KEY: KEY,
      CHAIN_ID: "1337",
    });
    expect(config).toMatchObject({
      chainId: 1337,
      rpcUrl: "http://127.0.0.1:8545",
      escrowAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      feeBps: 500,
    });
    expect(() => loadChainConfig({ DATA_DIR: dir })).toThrow(/no local deployment/);
  });

  it("the ERC-8004 registries: the deployment's, the environment's over them (both or neither), Base's published ones", () => {
    const identity = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
    const reputation = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
    const dir = dataDirWithDeployment({ identityRegistry: identity, reputationRegistry: reputation });
    expect(loadChainConfig({ DATA_DIR: dir })).toMatchObject({
      identityRegistryAddress: identity,
      reputationRegistryAddress: reputation,
    });
    expect(
      loadChainConfig({ DATA_DIR: dir, IDENTITY_REGISTRY_ADDRESS: reputation, REPUTATION_REGISTRY_ADDRESS: identity }),
    ).toMatchObject({
      identityRegistryAddress: reputation,
      reputationRegistryAddress: identity,
    });
    const bare = dataDirWithDeployment();
    expect(() => loadChainConfig({ DATA_DIR: bare, IDENTITY_REGISTRY_ADDRESS: identity })).toThrow(/go together/);
    expect(loadChainConfig({ CHAIN: "base", ESCROW_ADDRESS: ESCROW, OPERATOR_PRIVATE_KEY: KEY })).toMatchObject({
      identityRegistryAddress: "0x8004A169FB4a3325136EB29fA0ceB6D2e539a432",
      reputationRegistryAddress: "0x8004BAa17C55a88189AE136b182e5fdA19dE9b63",
    });
    expect(
      loadChainConfig({ CHAIN: "base-sepolia", ESCROW_ADDRESS: ESCROW, OPERATOR_PRIVATE_KEY: KEY })
        .identityRegistryAddress,
    ).toBe("0x8004A818BFB912233c491871b3d84c89A494BD9e");
  });

  it("EscrowV2: the deployment's, ESCROW_V2_ADDRESS over it, unset when neither names one, never the first escrow nor the treasury", () => {
    const v2 = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";
    const other = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
    const dir = dataDirWithDeployment({ escrowV2Address: v2 });
    expect(loadChainConfig({ DATA_DIR: dir }).escrowV2Address).toBe(v2);
    expect(loadChainConfig({ DATA_DIR: dir, ESCROW_V2_ADDRESS: other.toLowerCase() }).escrowV2Address).toBe(other);
    expect(loadChainConfig({ DATA_DIR: dataDirWithDeployment() })).not.toHaveProperty("escrowV2Address");
    expect(
      loadChainConfig({ CHAIN: "base", ESCROW_ADDRESS: ESCROW, OPERATOR_PRIVATE_KEY: KEY, ESCROW_V2_ADDRESS: v2 })
        .escrowV2Address,
    ).toBe(v2);
    expect(loadChainConfig({ CHAIN: "base", ESCROW_ADDRESS: ESCROW, OPERATOR_PRIVATE_KEY: KEY })).not.toHaveProperty(
      "escrowV2Address",
    );
    expect(() =>
      loadChainConfig({ CHAIN: "base", ESCROW_ADDRESS: ESCROW, OPERATOR_PRIVATE_KEY: KEY, ESCROW_V2_ADDRESS: ESCROW }),
    ).toThrow(/ESCROW_V2_ADDRESS must not be the first escrow/);
    expect(() =>
      loadChainConfig({ DATA_DIR: dir, ESCROW_V2_ADDRESS: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512" }),
    ).toThrow(/ESCROW_V2_ADDRESS must not be the first escrow/);
    expect(() => loadChainConfig({ DATA_DIR: dir, TREASURY_ADDRESS: v2 })).toThrow(
      /TREASURY_ADDRESS must not be the escrow/,
    );
    expect(() =>
      loadChainConfig({ CHAIN: "base", ESCROW_ADDRESS: ESCROW, OPERATOR_PRIVATE_KEY: KEY, ESCROW_V2_ADDRESS: "0x12" }),
    ).toThrow(/ESCROW_V2_ADDRESS/);
    // GET /v1/chain's public form names it when configured.
    expect(publicChainInfo(loadChainConfig({ DATA_DIR: dir })).escrowV2Address).toBe(v2);
    expect(publicChainInfo(loadChainConfig({ DATA_DIR: dataDirWithDeployment() }))).not.toHaveProperty(
      "escrowV2Address",
    );
  });

  it("NEW_DEPOSITS_ESCROW: new deposits go to EscrowV2 by default whenever it is configured, to the first escrow when pinned to 1 or without EscrowV2", () => {
    const v2 = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";
    const dir = dataDirWithDeployment({ escrowV2Address: v2 });
    const byDefault = loadChainConfig({ DATA_DIR: dir });
    expect(byDefault.newDepositsEscrowVersion).toBe(2);
    // The service still knows the first escrow (funded jobs settle there); GET /v1/chain names the new one.
    expect(byDefault.escrowAddress).toBe("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512");
    expect(publicChainInfo(byDefault)).toMatchObject({ escrowAddress: v2, escrowVersion: 2, escrowV2Address: v2 });
    expect(loadChainConfig({ DATA_DIR: dir, NEW_DEPOSITS_ESCROW: "2" }).newDepositsEscrowVersion).toBe(2);
    expect(loadChainConfig({ DATA_DIR: dir, NEW_DEPOSITS_ESCROW: "" }).newDepositsEscrowVersion).toBe(2);

    const pinned = loadChainConfig({ DATA_DIR: dir, NEW_DEPOSITS_ESCROW: "1" });
    expect(pinned.newDepositsEscrowVersion).toBe(1);
    expect(pinned.escrowV2Address).toBe(v2); // still known: deposits made into it register and settle there
    expect(publicChainInfo(pinned)).toMatchObject({
      escrowAddress: byDefault.escrowAddress,
      escrowVersion: 1,
      escrowV2Address: v2,
    });

    // Without EscrowV2 (a local file from before it, or Base without ESCROW_V2_ADDRESS): the first escrow.
    const withoutV2 = loadChainConfig({ DATA_DIR: dataDirWithDeployment() });
    expect(withoutV2.newDepositsEscrowVersion).toBe(1);
    expect(publicChainInfo(withoutV2)).toMatchObject({ escrowAddress: withoutV2.escrowAddress, escrowVersion: 1 });
    const base = { CHAIN: "base", ESCROW_ADDRESS: ESCROW, OPERATOR_PRIVATE_KEY: KEY };
    expect(loadChainConfig(base).newDepositsEscrowVersion).toBe(1);
    expect(loadChainConfig({ ...base, ESCROW_V2_ADDRESS: v2 }).newDepositsEscrowVersion).toBe(2);
    expect(publicChainInfo(loadChainConfig({ ...base, ESCROW_V2_ADDRESS: v2 }))).toMatchObject({
      escrowAddress: v2,
      escrowVersion: 2,
    });
    expect(loadChainConfig({ ...base, ESCROW_V2_ADDRESS: v2, NEW_DEPOSITS_ESCROW: "1" }).newDepositsEscrowVersion).toBe(
      1,
    );

    expect(() => loadChainConfig({ DATA_DIR: dataDirWithDeployment(), NEW_DEPOSITS_ESCROW: "2" })).toThrow(
      /NEW_DEPOSITS_ESCROW=2 needs EscrowV2/,
    );
    expect(() => loadChainConfig({ ...base, NEW_DEPOSITS_ESCROW: "2" })).toThrow(
      /NEW_DEPOSITS_ESCROW=2 needs EscrowV2/,
    );
    expect(() => loadChainConfig({ DATA_DIR: dir, NEW_DEPOSITS_ESCROW: "3" })).toThrow(/NEW_DEPOSITS_ESCROW/);
  });

  it("the pack treasury: the deployment's dedicated account, TREASURY_ADDRESS over it, never the escrow", () => {
    const treasury = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
    const dir = dataDirWithDeployment({ treasury });
    expect(loadChainConfig({ DATA_DIR: dir }).treasuryAddress).toBe(treasury);
    expect(
      loadChainConfig({ DATA_DIR: dir, TREASURY_ADDRESS: "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65" })
        .treasuryAddress,
    ).toBe("0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65");
    expect(() =>
      loadChainConfig({ DATA_DIR: dir, TREASURY_ADDRESS: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512" }),
    ).toThrow(/TREASURY_ADDRESS must not be the escrow/);
    expect(
      loadChainConfig({ CHAIN: "base", ESCROW_ADDRESS: ESCROW, OPERATOR_PRIVATE_KEY: KEY }).treasuryAddress,
    ).toBeNull();
    expect(() =>
      loadChainConfig({ CHAIN: "base", ESCROW_ADDRESS: ESCROW, OPERATOR_PRIVATE_KEY: KEY, TREASURY_ADDRESS: ESCROW }),
    ).toThrow(ChainConfigError);
  });

  it("local: a CHAIN_ID that contradicts the deployment file is an error", () => {
    expect(() => loadChainConfig({ DATA_DIR: dataDirWithDeployment(), CHAIN_ID: "1" })).toThrow(ChainConfigError);
  });

  it("base and base-sepolia: real USDC, explorer, 3 confirmations; escrow and operator key required", () => {
    const env = { ESCROW_ADDRESS: ESCROW, OPERATOR_PRIVATE_KEY: KEY };
    expect(loadChainConfig({ ...env, CHAIN: "base" })).toMatchObject({
      network: "base",
      chainId: 8453,
      tokenAddress: BASE_USDC,
      confirmations: 3,
      feeBps: 500,
      explorerUrl: "https://basescan.org",
      rpcUrl: "https://mainnet.base.org",
    });
    expect(loadChainConfig({ ...env, CHAIN: "base-sepolia", RPC_URL: "https://rpc.example.org" })).toMatchObject({
      chainId: 84532,
      tokenAddress: BASE_SEPOLIA_USDC,
      explorerUrl: "https://sepolia.basescan.org",
      rpcUrl: "https://rpc.example.org",
    });
    expect(() => loadChainConfig({ CHAIN: "base", OPERATOR_PRIVATE_KEY: KEY })).toThrow(/ESCROW_ADDRESS/);
    expect(() => loadChainConfig({ CHAIN: "base", ESCROW_ADDRESS: ESCROW })).toThrow(/OPERATOR_PRIVATE_KEY/);
    expect(() => loadChainConfig({ ...env, CHAIN: "base", CHAIN_ID: "84532" })).toThrow(/does not match/);
  });

  it("refuses malformed settings with the variable's name", () => {
    const env = { CHAIN: "base", ESCROW_ADDRESS: ESCROW, OPERATOR_PRIVATE_KEY: KEY };
    expect(() => loadChainConfig({ ...env, CHAIN: "mainnet" })).toThrow(/CHAIN/);
    expect(() => loadChainConfig({ ...env, ESCROW_ADDRESS: "0x1234" })).toThrow(/ESCROW_ADDRESS/);
    expect(() => loadChainConfig({ ...env, OPERATOR_PRIVATE_KEY: "abc" })).toThrow(/OPERATOR_PRIVATE_KEY/);
    expect(() => loadChainConfig({ ...env, FEE_BPS: "5%" })).toThrow(/FEE_BPS/);
    expect(() => loadChainConfig({ ...env, FEE_BPS: "1001" })).toThrow(/FEE_BPS/);
    expect(() => loadChainConfig({ ...env, CHAIN_CONFIRMATIONS: "0" })).toThrow(/CHAIN_CONFIRMATIONS/);
    expect(() => loadChainConfig({ ...env, RPC_URL: "ftp://x" })).toThrow(/RPC_URL/);
    // Empty variables count as unset.
    expect(loadChainConfig({ ...env, FEE_BPS: "", RPC_URL: "" }).feeBps).toBe(500);
  });

  it("publicChainInfo shows no keys, and the RPC only for the local chain", () => {
    const base = loadChainConfig({ CHAIN: "base", ESCROW_ADDRESS: ESCROW, OPERATOR_PRIVATE_KEY: KEY });
    const info = publicChainInfo(base);
    expect(info).not.toHaveProperty("rpcUrl");
    expect(JSON.stringify(info)).not.toContain("1111");
    expect(publicChainInfo(loadChainConfig({ DATA_DIR: dataDirWithDeployment() })).rpcUrl).toBe(
      "http://127.0.0.1:18545",
    );
  });
});
