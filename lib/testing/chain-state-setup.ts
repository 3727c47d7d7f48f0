import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * A folder for this vitest run where the first test file that starts a chain saves the deployed
 * stack's state, which every later file loads into its own fresh anvil instead of deploying again
 * (lib/chain/testing.ts). The workers inherit TEST_CHAIN_STATE_DIR; the folder goes with the run.
 */
export default function setup() {
  if (process.env.TEST_CHAIN_STATE_DIR) return;
  const folder = mkdtempSync(path.join(tmpdir(), "test-chain-state-"));
  process.env.TEST_CHAIN_STATE_DIR = folder;
  return () => {
    rmSync(folder, { recursive: true, force: true });
    delete process.env.TEST_CHAIN_STATE_DIR;
  };
}
