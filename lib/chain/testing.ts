// A real chain for test suites: a fresh anvil on a port the OS picks, with the local stack
// deployed. Start it once per test file (beforeAll) and stop it in afterAll; tests isolate
// themselves by using fresh escrow job ids rather than a fresh chain.
//
// Deploying costs seconds (a dozen transactions and their receipts), loading a saved state a tenth
// of one: under vitest the first file of a run deploys and saves the chain's state
// (anvil_dumpState) in the run's folder (TEST_CHAIN_STATE_DIR, lib/testing/chain-state-setup.ts),
// and every later file loads it into its own fresh anvil. Each file still has a node of its own,
// with the chain id it asks for, so no file sees another's transactions.
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
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
import { writeDeployment, type LocalAccount, type LocalDeployment } from "./deployment";
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
    const deployment = await deployedStack(anvil, dataDir, options.feeBps);
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

/** A saved deployment and the chain state it left, for a run's later files. */
interface SavedStack {
  deployment: LocalDeployment;
  state: string;
}

/** The local stack on this fresh node: loaded from the run's saved state when there is one, else deployed (and saved). */
async function deployedStack(anvil: AnvilHandle, dataDir: string, feeBps?: number): Promise<LocalDeployment> {
  const folder = process.env.TEST_CHAIN_STATE_DIR;
  const saved = folder ? path.join(folder, `stack-fee-${feeBps ?? "default"}.json`) : null;
  if (saved && existsSync(saved)) {
    const { deployment, state } = JSON.parse(readFileSync(saved, "utf8")) as SavedStack;
    await rpc(anvil.rpcUrl, "anvil_loadState", [state]);
    const loaded = { ...deployment, chainId: anvil.chainId, rpcUrl: anvil.rpcUrl };
    writeDeployment(dataDir, loaded);
    return loaded;
  }
  const deployment = await deployLocalStack({ rpcUrl: anvil.rpcUrl, dataDir, feeBps });
  if (saved) {
    const state = (await rpc(anvil.rpcUrl, "anvil_dumpState")) as string;
    // Written then renamed: a file starting in another worker never reads half of it.
    const partial = `${saved}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify({ deployment, state } satisfies SavedStack));
    renameSync(partial, saved);
  }
  return deployment;
}

async function rpc(rpcUrl: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message?: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message ?? JSON.stringify(body.error)}`);
  return body.result;
}
