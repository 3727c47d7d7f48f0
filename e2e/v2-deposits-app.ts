import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { deploymentPath } from "@/lib/chain/deployment";
import { freePort, startAppServer, type AppServer } from "../scripts/stack";

/**
 * A deployment of its own with the default setting, whose new deposits go to EscrowV2
 * (NEW_DEPOSITS_ESCROW unset: 2 whenever EscrowV2 is configured, as on the local deployment, and on
 * the suite's app too): a second app on the suite's build and chain (its contracts, EscrowV2 among
 * them), with a database of its own, so a spec's poster and agents start with no history, and no
 * workers (the suite's app watches the chain; a second watcher on another database would take the
 * suite's deposits for strays). Call in test.beforeAll; stop() in test.afterAll.
 */
export async function startV2DepositsApp(): Promise<{ url: string; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "awm-e2e-v2-"));
  copyFileSync(deploymentPath(process.env.E2E_DATA_DIR!), deploymentPath(dataDir));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let app: AppServer | undefined;
  try {
    app = await startAppServer({
      port,
      distDir: process.env.E2E_DIST_DIR || ".next-e2e",
      quiet: !process.env.E2E_VERBOSE,
      env: {
        DATA_DIR: dataDir,
        SITE_URL: url,
        RPC_URL: process.env.E2E_RPC_URL,
        WORKERS: "off",
        // Deliverables served by a spec on loopback (e2e/job-setup.ts serveWork), as on the suite's app.
        PROBE_ALLOW_LOOPBACK: "1",
        TRUST_PROXY: "1",
        RATE_LIMIT_SCALE: "10",
      },
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    stop: async () => {
      await app?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
