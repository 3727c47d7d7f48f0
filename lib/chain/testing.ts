// A real chain for test suites: a fresh anvil on a port the OS picks, with the local stack
// deployed. Start it once per test file (beforeAll) and stop it in afterAll; tests isolate
// themselves by using fresh escrow job ids rather than a fresh chain.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  type Account,
  type Chain,
  type PublicClient,
  type TestClient,
  type Transport,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { startAnvil, type AnvilHandle } from "./anvil";
import { localChain } from "./chains";
import { loadChainConfig, type ChainConfig } from "./config";
import type { LocalAccount, LocalDeployment } from "./deployment";
import { deployLocalStack } from "./local-stack";

export interface TestChain {
  config: ChainConfig;
  rpcUrl: string;
  /** anvil's ten funded accounts (each with 10,000 test USDC); [0] is the operator and fee recipient. */
  accounts: LocalAccount[];
  deployment: LocalDeployment;
  /** Where chain.json was written (DATA_DIR for code that calls loadChainConfig itself). */
  dataDir: string;
  anvil: AnvilHandle;
  publicClient: PublicClient<Transport, Chain>;
  /** anvil's cheat codes: mine, snapshot/revert, automine, setBalance. */
  testClient: TestClient<"anvil", Transport, Chain>;
  /** A wallet client signing with accounts[index]. */
  wallet(index: number): WalletClient<Transport, Chain, Account>;
  stop(): Promise<void>;
}

export async function startTestChain(
  options: { chainId?: number; feeBps?: number; confirmations?: number } = {},
): Promise<TestChain> {
  const anvil = await startAnvil({ port: 0, chainId: options.chainId ?? 31337 });
  const dataDir = mkdtempSync(path.join(tmpdir(), "test-chain-"));
  try {
    const deployment = await deployLocalStack({ rpcUrl: anvil.rpcUrl, dataDir, feeBps: options.feeBps });
    // Through the real loader, so tests also cover reading the deploy script's file.
    const config = loadChainConfig({
      CHAIN: "local",
      DATA_DIR: dataDir,
      RPC_URL: anvil.rpcUrl,
      CHAIN_CONFIRMATIONS: options.confirmations ? String(options.confirmations) : undefined,
    });
    const chain = localChain(config.chainId, anvil.rpcUrl);
    const transport = http(anvil.rpcUrl);
    const wallets = new Map<number, WalletClient<Transport, Chain, Account>>();
    return {
      config,
      rpcUrl: anvil.rpcUrl,
      accounts: deployment.accounts,
      deployment,
      dataDir,
      anvil,
      publicClient: createPublicClient({ chain, transport, pollingInterval: 50 }),
      testClient: createTestClient({ chain, mode: "anvil", transport }),
      wallet(index) {
        let w = wallets.get(index);
        if (!w) {
          const account = deployment.accounts[index];
          if (!account) throw new Error(`no test account ${index}`);
          w = createWalletClient({
            account: privateKeyToAccount(account.privateKey),
            chain,
            transport,
            pollingInterval: 50,
          });
          wallets.set(index, w);
        }
        return w;
      },
      stop: async () => {
        await anvil.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await anvil.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}
