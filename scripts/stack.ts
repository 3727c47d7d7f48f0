// Pieces of the local stack, shared by `npm start` (scripts/dev-stack.ts) and the browser tests
// (scripts/e2e-stack.ts): the chain, the build, the server.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { startAnvil } from "@/lib/chain/anvil";
import { ensureLocalStack } from "@/lib/chain/local-stack";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function waitForHttp(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
      lastError = new Error(`status ${response.status}`);
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms: ${String(lastError)}`);
}

export interface LocalChain {
  rpcUrl: string;
  stop(): Promise<void> | void;
}

/**
 * Starts anvil and makes sure the test USDC and escrow are deployed there, writing
 * `${dataDir}/chain.json` (read by lib/chain/config.ts). With a state file the chain survives
 * restarts, so that jobs funded before a restart stay funded on chain.
 */
export async function startLocalChain(options: { port: number; dataDir: string; persist: boolean }): Promise<LocalChain> {
  mkdirSync(options.dataDir, { recursive: true });
  const anvil = await startAnvil({
    port: options.port,
    ...(options.persist ? { statePath: path.resolve(options.dataDir, "anvil-state.json") } : {}),
  });
  await ensureLocalStack({ rpcUrl: anvil.rpcUrl, dataDir: options.dataDir });
  return anvil;
}

/** `next build` into distDir (skipped when a build exists and SKIP_BUILD=1). */
export function buildApp(distDir: string, env: Record<string, string | undefined> = {}): void {
  if (process.env.SKIP_BUILD === "1" && existsSync(path.join(distDir, "BUILD_ID"))) return;
  console.log(`[stack] building the app into ${distDir}…`);
  const result = spawnSync(process.execPath, [require_resolve_next(), "build"], {
    stdio: "inherit",
    env: { ...process.env, ...env, NEXT_DIST_DIR: distDir, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0) throw new Error("next build failed");
}

function require_resolve_next(): string {
  return path.resolve("node_modules/next/dist/bin/next");
}

export interface AppServer {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function startAppServer(options: { port: number; distDir: string; env: Record<string, string | undefined>; quiet?: boolean }): Promise<AppServer> {
  const child = spawn(process.execPath, ["scripts/server.mjs"], {
    stdio: options.quiet ? ["ignore", "ignore", "inherit"] : "inherit",
    env: { ...process.env, ...options.env, PORT: String(options.port), NEXT_DIST_DIR: options.distDir, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
  });
  const url = `http://127.0.0.1:${options.port}`;
  await waitForHttp(`${url}/v1/openapi.json`);
  return {
    url,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5000).unref();
      }),
  };
}
