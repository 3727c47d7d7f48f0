// Pieces of the local stack, shared by `npm start` (scripts/dev-stack.ts) and the browser tests
// (scripts/e2e-stack.ts): the chain, the build, the server.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { startAnvil } from "@/lib/chain/anvil";
import { ensureLocalStack } from "@/lib/chain/local-stack";
import { markServing } from "./build-cache";

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
export async function startLocalChain(options: {
  port: number;
  dataDir: string;
  persist: boolean;
}): Promise<LocalChain> {
  mkdirSync(options.dataDir, { recursive: true });
  const anvil = await startAnvil({
    port: options.port,
    ...(options.persist ? { statePath: path.resolve(options.dataDir, "anvil-state.json") } : {}),
  });
  await ensureLocalStack({ rpcUrl: anvil.rpcUrl, dataDir: options.dataDir });
  return anvil;
}

/**
 * The port a local service should listen on. An explicitly chosen port that is busy stops the start
 * with one line that says how to choose another; a default port that is busy (anvil's 8545 often
 * is, by another chain) gives way to a free one, and the line says which.
 */
export async function choosePort(options: { envName: string; defaultPort: number; what: string }): Promise<number> {
  const explicit = process.env[options.envName];
  const wanted = explicit ? Number(explicit) : options.defaultPort;
  if (!Number.isInteger(wanted) || wanted < 0 || wanted > 65535) {
    throw new PortError(`${options.envName}=${explicit} is not a port number`);
  }
  if (await portIsFree(wanted)) return wanted;
  if (explicit) {
    throw new PortError(
      `port ${wanted} (${options.what}, ${options.envName}) is in use by another program; choose another, e.g. ${options.envName}=${wanted + 1} npm start`,
    );
  }
  for (let port = wanted + 1; port <= wanted + 20; port++) {
    if (await portIsFree(port)) {
      console.log(
        `[stack] port ${wanted} is in use, so ${options.what} listens on ${port} (set ${options.envName} to choose)`,
      );
      return port;
    }
  }
  const port = await freePort();
  console.log(
    `[stack] port ${wanted} is in use, so ${options.what} listens on ${port} (set ${options.envName} to choose)`,
  );
  return port;
}

/** A start-up problem the user fixes with a setting: printed as one line, without a stack trace. */
export class PortError extends Error {}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

export interface AppServer {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function startAppServer(options: {
  port: number;
  distDir: string;
  env: Record<string, string | undefined>;
  quiet?: boolean;
  nodeArgs?: string[];
}): Promise<AppServer> {
  // nodeArgs (e.g. --cpu-prof, which NODE_OPTIONS refuses) reach the cluster's processes too: they fork with the primary's execArgv.
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), "scripts/server.mjs"], {
    stdio: options.quiet ? ["ignore", "ignore", "inherit"] : "inherit",
    env: {
      ...process.env,
      ...options.env,
      PORT: String(options.port),
      NEXT_DIST_DIR: options.distDir,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
  const unmark = markServing(options.distDir, child.pid!);
  child.once("exit", unmark);
  const url = `http://127.0.0.1:${options.port}`;
  await waitForHttp(`${url}/v1/openapi.json`);
  return {
    url,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        // Already gone (exited, or killed by a signal: exitCode stays null then).
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5000).unref();
      }),
  };
}
