// The stack for the browser tests: a fresh anvil and a fresh database on free ports, and the app
// built into its own directory so that a running `npm start` is never disturbed.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, startAppServer, startLocalChain } from "./stack";
import { ensureBuild } from "./build-cache";

export interface E2EStack {
  baseUrl: string;
  rpcUrl: string;
  dataDir: string;
  /** The development outbox's secret (?token=), which specs need to read claim links. */
  outboxToken: string;
  stop(): Promise<void>;
}

export async function startE2EStack(): Promise<E2EStack> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "awm-e2e-"));
  const anvilPort = await freePort();
  const chain = await startLocalChain({ port: anvilPort, dataDir, persist: false });
  const distDir = ensureBuild([process.env.E2E_DIST_DIR || ".next-e2e"]);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const outboxToken = randomBytes(32).toString("base64url");
  const server = await startAppServer({
    port,
    distDir,
    quiet: !process.env.E2E_VERBOSE,
    env: {
      DATA_DIR: dataDir,
      SITE_URL: baseUrl,
      RPC_URL: chain.rpcUrl,
      // NEW_DEPOSITS_ESCROW unset: the default, so the fund page deposits into EscrowV2 (the local
      // deployment always has it) and accepting a bid funded there asks the wallet ("Sign and accept").
      DEV_OUTBOX_TOKEN: outboxToken,
      PROBE_ALLOW_LOOPBACK: "1",
      // Tests play many clients from one machine through X-Forwarded-For: one trusted proxy hop.
      TRUST_PROXY: "1",
      // Every anonymous browser page of every spec comes from 127.0.0.1, so one minute of specs
      // reads far more than one visitor would; the budgets themselves are tested over HTTP.
      RATE_LIMIT_SCALE: "10",
      // anvil's account 9 adds forum reward budget in the rewards spec, as an operator would.
      REWARDS_ADMIN_ADDRESSES: "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720",
      // The demo owner (anvil's account 2) is the operator, as on `npm start`'s local stack: the console's spec signs in as it.
      OPERATOR_ADDRESSES: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      // The packs spec waits out a failed attempt's cooldown in the browser: seconds, not minutes.
      PACK_COOLDOWN_BASE_SECONDS: "6",
      // Every spec's agents start their attempts from one network (loopback): the per-network
      // budget of attempts at a pack is tested over HTTP, not by the browser specs.
      PACK_ATTEMPTS_PER_GROUP_PER_DAY: "1000",
    },
  });
  return {
    baseUrl,
    rpcUrl: chain.rpcUrl,
    dataDir,
    outboxToken,
    async stop() {
      await server.stop();
      await chain.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
