import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  http,
  isAddressEqual,
  type Address,
  type Hex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { abi as reputationAbi } from "@/contracts/artifacts/reputation-registry";
import { escrowAbi, escrowV2Abi, escrowV2Bytecode } from "./abi";
import { startAnvil, type AnvilHandle } from "./anvil";
import { loadChainConfig } from "./config";
import { readDeployment, writeDeployment, type LocalDeployment } from "./deployment";
import { checkEscrowDeployment } from "./escrow/reads";
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

describe("EscrowV2 beside the first escrow", () => {
  const client = () => createPublicClient({ transport: http(anvil.rpcUrl) });
  /** EscrowV2 deployed by `deployer` with these constructor arguments, apart from the local stack's. */
  async function deployV2(
    deployment: LocalDeployment,
    deployerKey: Hex,
    args: { operator: Address; feeRecipient: Address; feeBps: number; owner: Address },
  ): Promise<Address> {
    const wallet = createWalletClient({ account: privateKeyToAccount(deployerKey), transport: http(anvil.rpcUrl) });
    const hash = await wallet.deployContract({
      abi: escrowV2Abi,
      bytecode: escrowV2Bytecode,
      args: [deployment.tokenAddress, args.operator, args.feeRecipient, args.feeBps, args.owner],
      chain: null,
    });
    const receipt = await client().waitForTransactionReceipt({ hash, pollingInterval: 50 });
    return getAddress(receipt.contractAddress!);
  }

  it("is deployed with the first escrow's token, operator, fee recipient and fee, owned by a key apart from the operator and the users", async () => {
    const deployment = await ensureLocalStack({ rpcUrl: anvil.rpcUrl, dataDir });
    const v2 = deployment.escrowV2Address!;
    expect(v2).toBeDefined();
    expect(v2).not.toBe(deployment.escrowAddress);
    const read = <F extends "token" | "operator" | "feeRecipient" | "feeBps" | "owner">(functionName: F) =>
      client().readContract({ address: v2, abi: escrowV2Abi, functionName });
    expect(await read("token")).toBe(deployment.tokenAddress);
    expect(await read("operator")).toBe(deployment.operator.address);
    expect(await read("feeRecipient")).toBe(
      await client().readContract({ address: deployment.escrowAddress, abi: escrowAbi, functionName: "feeRecipient" }),
    );
    expect(await read("feeBps")).toBe(deployment.feeBps);
    const owner = await read("owner");
    expect(owner).toBe(deployment.escrowV2Owner!.address);
    expect(privateKeyToAccount(deployment.escrowV2Owner!.privateKey).address).toBe(owner);
    expect(isAddressEqual(owner, deployment.operator.address)).toBe(false);
    expect(deployment.accounts.some((a) => isAddressEqual(a.address, owner))).toBe(false);
    // The owner can act (it has gas): it pauses and unpauses, which the operator cannot.
    const ownerWallet = createWalletClient({
      account: privateKeyToAccount(deployment.escrowV2Owner!.privateKey),
      transport: http(anvil.rpcUrl),
    });
    await expect(
      createWalletClient({
        account: privateKeyToAccount(deployment.operator.privateKey),
        transport: http(anvil.rpcUrl),
      }).writeContract({ address: v2, abi: escrowV2Abi, functionName: "pause", chain: null }),
    ).rejects.toThrow(/OwnableUnauthorizedAccount/);
    await client().waitForTransactionReceipt({
      hash: await ownerWallet.writeContract({ address: v2, abi: escrowV2Abi, functionName: "pause", chain: null }),
    });
    await client().waitForTransactionReceipt({
      hash: await ownerWallet.writeContract({ address: v2, abi: escrowV2Abi, functionName: "unpause", chain: null }),
    });

    // The configuration names it, and the deployment check finds nothing wrong.
    const config = loadChainConfig({ DATA_DIR: dataDir });
    expect(config.escrowV2Address).toBe(v2);
    expect(await checkEscrowDeployment(config)).toEqual([]);
  });

  it("a chain.json from before it keeps its escrow (and the jobs it holds) and gains EscrowV2 on the next start", async () => {
    const current = await ensureLocalStack({ rpcUrl: anvil.rpcUrl, dataDir });
    const { escrowV2Address: _a, escrowV2Owner: _o, escrowV2BytecodeHash: _h, ...older } = current;
    writeDeployment(dataDir, older);
    const upgraded = await ensureLocalStack({ rpcUrl: anvil.rpcUrl, dataDir });
    expect(upgraded.escrowAddress).toBe(current.escrowAddress);
    expect(upgraded.tokenAddress).toBe(current.tokenAddress);
    expect(upgraded.identityRegistry).toBe(current.identityRegistry);
    expect(upgraded.escrowV2Address).toBeDefined();
    expect(upgraded.escrowV2Address).not.toBe(current.escrowV2Address);
    expect(upgraded.escrowV2Owner).toEqual(current.escrowV2Owner);
    expect(readDeployment(dataDir)).toEqual(upgraded);
    expect(await checkEscrowDeployment(loadChainConfig({ DATA_DIR: dataDir }))).toEqual([]);
    // And the start after that keeps it.
    expect(await ensureLocalStack({ rpcUrl: anvil.rpcUrl, dataDir })).toEqual(upgraded);
  });

  it("the deployment check refuses an EscrowV2 with another operator, fee, fee recipient or EIP-712 domain", async () => {
    const deployment = await ensureLocalStack({ rpcUrl: anvil.rpcUrl, dataDir });
    const config = loadChainConfig({ DATA_DIR: dataDir });
    const [, , stranger] = deployment.accounts;
    const owner = deployment.escrowV2Owner!.address;
    const operator = deployment.operator.address;
    const problemsWith = (escrowV2Address: Address) => checkEscrowDeployment({ ...config, escrowV2Address });

    const otherOperatorAndFee = await deployV2(deployment, deployment.operator.privateKey, {
      operator: stranger!.address,
      feeRecipient: deployment.feeRecipient,
      feeBps: 250,
      owner,
    });
    expect(await problemsWith(otherOperatorAndFee)).toEqual([
      `escrow v2 feeBps is 250, configured ${config.feeBps}`,
      `escrow v2 operator is ${stranger!.address}, the configured key is ${operator}`,
    ]);

    const otherFeeRecipient = await deployV2(deployment, deployment.operator.privateKey, {
      operator,
      feeRecipient: stranger!.address,
      feeBps: config.feeBps,
      owner,
    });
    expect(await problemsWith(otherFeeRecipient)).toEqual([
      `escrow v2 fee recipient is ${stranger!.address}, the first escrow's is ${deployment.feeRecipient}`,
    ]);

    // The first escrow's address given as EscrowV2's: it has no EIP-712 domain to read.
    expect(await problemsWith(deployment.escrowAddress)).toEqual([
      `the contract at the escrow v2 address ${deployment.escrowAddress} does not answer as EscrowV2 (contracts/EscrowV2.sol)`,
    ]);
    expect(await problemsWith(stranger!.address)).toEqual([
      `no contract at the escrow v2 address ${stranger!.address}`,
    ]);

    // A contract whose domain names another name: EscrowV2's own code with its name (an immutable
    // short string in the runtime code) rewritten, so its state and every other answer are right.
    const renamed = await deployV2(deployment, deployment.operator.privateKey, {
      operator,
      feeRecipient: deployment.feeRecipient,
      feeBps: config.feeBps,
      owner,
    });
    expect(await problemsWith(renamed)).toEqual([]);
    const code = (await client().getCode({ address: renamed }))!;
    const name = Buffer.from("AgentWorkEscrow").toString("hex");
    const shortString = `${name}${"00".repeat(16)}0f`;
    expect(code).toContain(shortString);
    const otherName = Buffer.from("OtherWorkEscrow").toString("hex");
    await createTestClient({ mode: "anvil", transport: http(anvil.rpcUrl) }).setCode({
      address: renamed,
      bytecode: code.replaceAll(shortString, `${otherName}${"00".repeat(16)}0f`) as Hex,
    });
    expect(await problemsWith(renamed)).toEqual([
      `escrow v2 EIP-712 domain is "OtherWorkEscrow" version "2" on chain ${config.chainId} at ${renamed}, expected "AgentWorkEscrow" version "2" on chain ${config.chainId} at ${renamed}`,
    ]);
  });
});
