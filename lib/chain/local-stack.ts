// Deploys the local stack's contracts (test USDC, the escrow and EscrowV2 beside it, the ERC-8004
// registries) to an anvil node, mints demo USDC, and records everything in ${dataDir}/chain.json
// for loadChainConfig. The library half:
// the CLI is scripts/chain/deploy.ts; the dev stack and lib/chain/testing.ts call it directly.
import {
  bytesToHex,
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  http,
  keccak256,
  parseEther,
  stringToBytes,
  type Address,
  type Hex,
} from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { abi as escrowAbi, bytecode as escrowBytecode } from "@/contracts/artifacts/escrow";
import { abi as escrowV2Abi, bytecode as escrowV2Bytecode } from "@/contracts/artifacts/escrow-v2";
import { bytecode as identityRegistryBytecode } from "@/contracts/artifacts/identity-registry";
import {
  abi as reputationRegistryAbi,
  bytecode as reputationRegistryBytecode,
} from "@/contracts/artifacts/reputation-registry";
import { abi as testUsdcAbi, bytecode as testUsdcBytecode } from "@/contracts/artifacts/test-usdc";
import { localChain } from "@/lib/chain/chains";
import { readDeployment, writeDeployment, type LocalAccount, type LocalDeployment } from "@/lib/chain/deployment";

/** anvil's public test mnemonic: its ten default accounts, pre-funded with 10,000 ETH each. */
export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";

/** Demo USDC each account gets: 10,000.00. */
export const DEMO_USDC_UNITS = 10_000_000_000n;

export function anvilAccounts(count = 10): LocalAccount[] {
  return Array.from({ length: count }, (_, i) => {
    const account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: i });
    const key = account.getHdKey().privateKey;
    if (!key) throw new Error("HD key without a private key");
    return { address: account.address, privateKey: bytesToHex(key) };
  });
}

/**
 * The pack treasury: an address of its own (not a user's account, not the operator, not the
 * escrow), so pack revenue is never confused with other movements of USDC.
 */
export function localTreasuryAccount(): LocalAccount {
  const privateKey = keccak256(stringToBytes("agent-work-marketplace/local-pack-treasury"));
  return { address: privateKeyToAccount(privateKey).address, privateKey };
}

/** A rewards wallet apart from the users' accounts, so payouts do not blur their balances. */
export function localRewardsAccount(): LocalAccount {
  const privateKey = keccak256(stringToBytes("agent-work-marketplace/local-rewards-wallet"));
  return { address: privateKeyToAccount(privateKey).address, privateKey };
}

/**
 * EscrowV2's owner (it may replace the operator and pause: docs/escrow-v2.md): a key apart from the
 * operator and from the ten user accounts, so no demo user and not the service's hot key holds it.
 * The next account of anvil's public mnemonic (index 10), which anvil does not fund by itself.
 */
export function localEscrowV2OwnerAccount(): LocalAccount {
  const account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 10 });
  const key = account.getHdKey().privateKey;
  if (!key) throw new Error("HD key without a private key");
  return { address: account.address, privateKey: bytesToHex(key) };
}

export interface DeployOptions {
  rpcUrl: string;
  dataDir: string;
  feeBps?: number;
  /** Write chain.json (default true). */
  write?: boolean;
}

export async function deployLocalStack(options: DeployOptions): Promise<LocalDeployment> {
  const { rpcUrl } = options;
  const feeBps = options.feeBps ?? 500;
  const probe = createPublicClient({ transport: http(rpcUrl) });
  const chainId = await probe.getChainId();
  const chain = localChain(chainId, rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 50 });
  const testClient = createTestClient({ chain, mode: "anvil", transport: http(rpcUrl) });

  const accounts = anvilAccounts();
  const operator = accounts[0];
  const rewards = localRewardsAccount();
  const wallet = createWalletClient({
    account: privateKeyToAccount(operator.privateKey),
    chain,
    transport: http(rpcUrl),
  });

  const deployBlock = await publicClient.getBlockNumber();
  const tokenHash = await wallet.deployContract({ abi: testUsdcAbi, bytecode: testUsdcBytecode, args: [] });
  const tokenReceipt = await publicClient.waitForTransactionReceipt({ hash: tokenHash });
  const tokenAddress = getAddress(tokenReceipt.contractAddress as Address);
  const escrowHash = await wallet.deployContract({
    abi: escrowAbi,
    bytecode: escrowBytecode,
    args: [tokenAddress, operator.address, operator.address, feeBps],
  });
  const escrowReceipt = await publicClient.waitForTransactionReceipt({ hash: escrowHash });
  const escrowAddress = getAddress(escrowReceipt.contractAddress as Address);
  if (tokenReceipt.status !== "success" || escrowReceipt.status !== "success")
    throw new Error("contract deployment reverted");
  const registries = await deployRegistries(wallet, publicClient);
  // After the registries, so the contracts deployed before it keep the addresses they had.
  const escrowV2 = await deployEscrowV2(wallet, publicClient, testClient, {
    tokenAddress,
    operator: operator.address,
    feeRecipient: operator.address,
    feeBps,
  });

  // The rewards wallet is not one of anvil's funded accounts: give it gas money.
  await testClient.setBalance({ address: rewards.address, value: parseEther("1000") });

  // Mint with explicit consecutive nonces and wait once, instead of a round trip per mint.
  let nonce = await publicClient.getTransactionCount({ address: operator.address, blockTag: "pending" });
  const mintHashes: Hex[] = [];
  for (const to of [...accounts.map((a) => a.address), rewards.address]) {
    mintHashes.push(
      await wallet.writeContract({
        address: tokenAddress,
        abi: testUsdcAbi,
        functionName: "mint",
        args: [to, DEMO_USDC_UNITS],
        nonce: nonce++,
        gas: 100_000n,
      }),
    );
  }
  for (const hash of mintHashes) {
    const r = await publicClient.waitForTransactionReceipt({ hash });
    if (r.status !== "success") throw new Error(`mint ${hash} reverted`);
  }

  const deployment: LocalDeployment = {
    network: "local",
    chainId,
    rpcUrl,
    tokenAddress,
    escrowAddress,
    feeBps,
    operator,
    feeRecipient: operator.address,
    rewards,
    treasury: localTreasuryAccount().address,
    identityRegistry: registries.identity,
    reputationRegistry: registries.reputation,
    ...escrowV2,
    escrowBytecodeHash: keccak256(escrowBytecode),
    tokenBytecodeHash: keccak256(testUsdcBytecode),
    deployBlock: Number(deployBlock),
    deployedAt: new Date().toISOString(),
    accounts,
  };
  if (options.write !== false) writeDeployment(options.dataDir, deployment);
  return deployment;
}

/**
 * EscrowV2 beside the first escrow: the same token, operator, fee recipient and fee (what
 * checkEscrowDeployment holds it to), owned by localEscrowV2OwnerAccount, which gets gas money so
 * it can pause or replace the operator in a test.
 */
async function deployEscrowV2(
  wallet: ReturnType<typeof createWalletClient>,
  publicClient: ReturnType<typeof createPublicClient>,
  testClient: ReturnType<typeof createTestClient>,
  first: { tokenAddress: Address; operator: Address; feeRecipient: Address; feeBps: number },
): Promise<Required<Pick<LocalDeployment, "escrowV2Address" | "escrowV2Owner" | "escrowV2BytecodeHash">>> {
  const account = wallet.account;
  if (!account) throw new Error("deployer wallet without an account");
  const owner = localEscrowV2OwnerAccount();
  const hash = await wallet.deployContract({
    abi: escrowV2Abi,
    bytecode: escrowV2Bytecode,
    args: [first.tokenAddress, first.operator, first.feeRecipient, first.feeBps, owner.address],
    account,
    chain: wallet.chain,
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error("EscrowV2 deployment reverted");
  await testClient.setBalance({ address: owner.address, value: parseEther("1000") });
  return {
    escrowV2Address: getAddress(receipt.contractAddress),
    escrowV2Owner: owner,
    escrowV2BytecodeHash: keccak256(escrowV2Bytecode),
  };
}

/** The deployment's EscrowV2 when it is on the chain and current, else a new one beside the first escrow. */
async function escrowV2Of(
  existing: LocalDeployment,
  rpcUrl: string,
): Promise<Required<Pick<LocalDeployment, "escrowV2Address" | "escrowV2Owner" | "escrowV2BytecodeHash">>> {
  if (
    existing.escrowV2Address &&
    existing.escrowV2Owner &&
    existing.escrowV2BytecodeHash === keccak256(escrowV2Bytecode)
  ) {
    const code = await createPublicClient({ transport: http(rpcUrl) }).getCode({ address: existing.escrowV2Address });
    if (code && code !== "0x")
      return {
        escrowV2Address: existing.escrowV2Address,
        escrowV2Owner: existing.escrowV2Owner,
        escrowV2BytecodeHash: existing.escrowV2BytecodeHash,
      };
  }
  const chain = localChain(existing.chainId, rpcUrl);
  return deployEscrowV2(
    createWalletClient({ account: privateKeyToAccount(existing.operator.privateKey), chain, transport: http(rpcUrl) }),
    createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 50 }),
    createTestClient({ chain, mode: "anvil", transport: http(rpcUrl) }),
    {
      tokenAddress: existing.tokenAddress,
      operator: existing.operator.address,
      feeRecipient: existing.feeRecipient,
      feeBps: existing.feeBps,
    },
  );
}

/** The ERC-8004 Identity Registry, then the Reputation Registry bound to it. */
async function deployRegistries(
  wallet: ReturnType<typeof createWalletClient>,
  publicClient: ReturnType<typeof createPublicClient>,
): Promise<{ identity: Address; reputation: Address }> {
  const deployed = async (hash: Hex): Promise<Address> => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success" || !receipt.contractAddress) throw new Error("registry deployment reverted");
    return getAddress(receipt.contractAddress);
  };
  const account = wallet.account;
  if (!account) throw new Error("deployer wallet without an account");
  const identity = await deployed(
    await wallet.deployContract({ abi: [], bytecode: identityRegistryBytecode, account, chain: wallet.chain }),
  );
  const reputation = await deployed(
    await wallet.deployContract({
      abi: reputationRegistryAbi,
      bytecode: reputationRegistryBytecode,
      args: [identity],
      account,
      chain: wallet.chain,
    }),
  );
  return { identity, reputation };
}

/** The deployment's registries when they are on the chain, else new ones. */
async function registriesOf(
  existing: LocalDeployment,
  rpcUrl: string,
): Promise<{ identity: Address; reputation: Address }> {
  const probe = createPublicClient({ transport: http(rpcUrl) });
  if (existing.identityRegistry && existing.reputationRegistry) {
    const [a, b] = await Promise.all([
      probe.getCode({ address: existing.identityRegistry }),
      probe.getCode({ address: existing.reputationRegistry }),
    ]);
    if (a && a !== "0x" && b && b !== "0x")
      return { identity: existing.identityRegistry, reputation: existing.reputationRegistry };
  }
  const chain = localChain(existing.chainId, rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 50 });
  const wallet = createWalletClient({
    account: privateKeyToAccount(existing.operator.privateKey),
    chain,
    transport: http(rpcUrl),
  });
  return deployRegistries(wallet, publicClient);
}

/** The recorded deployment if it is still on this chain (the dev stack restarted), else a new one. */
export async function ensureLocalStack(options: DeployOptions & { force?: boolean }): Promise<LocalDeployment> {
  const existing = options.force ? null : readDeployment(options.dataDir);
  if (existing) {
    const client = createPublicClient({ transport: http(options.rpcUrl) });
    const [chainId, escrowCode, tokenCode] = await Promise.all([
      client.getChainId(),
      client.getCode({ address: existing.escrowAddress }),
      client.getCode({ address: existing.tokenAddress }),
    ]);
    // A deployment of an older escrow or test USDC (a state file kept across an upgrade) is replaced:
    // the service would talk to it with the current ABI (the x402 payments need the token's EIP-3009).
    const current =
      existing.escrowBytecodeHash === keccak256(escrowBytecode) &&
      existing.tokenBytecodeHash === keccak256(testUsdcBytecode) &&
      existing.treasury !== undefined;
    if (
      current &&
      chainId === existing.chainId &&
      escrowCode &&
      escrowCode !== "0x" &&
      tokenCode &&
      tokenCode !== "0x"
    ) {
      // A deployment from before the ERC-8004 registries, or before EscrowV2 (or of an older
      // EscrowV2), keeps its escrow (and the jobs it holds) and gains what it lacks.
      const registries = await registriesOf(existing, options.rpcUrl);
      const escrowV2 = await escrowV2Of(existing, options.rpcUrl);
      if (
        existing.rpcUrl === options.rpcUrl &&
        registries.identity === existing.identityRegistry &&
        escrowV2.escrowV2Address === existing.escrowV2Address
      )
        return existing;
      const moved = {
        ...existing,
        rpcUrl: options.rpcUrl,
        identityRegistry: registries.identity,
        reputationRegistry: registries.reputation,
        ...escrowV2,
      };
      if (options.write !== false) writeDeployment(options.dataDir, moved);
      return moved;
    }
  }
  return deployLocalStack(options);
}
