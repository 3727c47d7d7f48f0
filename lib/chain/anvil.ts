// Starts a local anvil node from the npm package @foundry-rs/anvil: the library half, used by the
// dev stack (scripts/stack.ts), its CLI (scripts/chain/anvil.ts) and test suites (lib/chain/testing.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export interface StartAnvilOptions {
  /** 0 (default) lets the OS choose a free port; the real one is read from anvil's output. */
  port?: number;
  chainId?: number;
  /** Seconds between blocks; unset: a block per transaction (automine). */
  blockTime?: number;
  /** Load the chain from this file if it exists and write it back periodically and on exit. */
  statePath?: string;
  /** Pass anvil's own output through to this process's (CLI use). */
  verbose?: boolean;
  /** How long to wait for the RPC to answer. */
  timeoutMs?: number;
}

export interface AnvilHandle {
  rpcUrl: string;
  port: number;
  chainId: number;
  pid: number;
  stop(): Promise<void>;
}

/**
 * The anvil binary. npm does not run install scripts here, so @foundry-rs/anvil's own
 * postinstall never ran; the binary comes from its per-platform optional dependency
 * (@foundry-rs/anvil-linux-amd64 and so on), which is what the package's bin.mjs runs too.
 * ANVIL_BIN overrides it.
 */
export function anvilBinary(): string {
  if (process.env.ANVIL_BIN) return process.env.ANVIL_BIN;
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const name = process.platform === "win32" ? "anvil.exe" : "anvil";
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    const bin = require.resolve(`${pkg}/bin/${name}`);
    if (existsSync(bin)) return bin;
  } catch {
    // fall through
  }
  throw new Error(`anvil binary not found: install @foundry-rs/anvil (needs ${pkg}) or set ANVIL_BIN`);
}

export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilHandle> {
  const chainId = options.chainId ?? 31337;
  const args = ["--host", "127.0.0.1", "--port", String(options.port ?? 0), "--chain-id", String(chainId)];
  if (options.blockTime) args.push("--block-time", String(options.blockTime));
  if (options.statePath) args.push("--state", options.statePath, "--state-interval", "5");

  const child = spawn(anvilBinary(), args, { stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // Do not leave a node behind when the parent ends without calling stop().
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`anvil did not start within ${options.timeoutMs ?? 15_000} ms:\n${output.slice(-2000)}`));
    }, options.timeoutMs ?? 15_000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      if (options.verbose) process.stdout.write(text);
      output += text;
      const m = /Listening on [\d.]+:(\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk: Buffer) => {
      if (options.verbose) process.stderr.write(chunk);
      output += chunk.toString();
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited with code ${code}:\n${output.slice(-2000)}`));
    });
  });
  // Past start-up, stop buffering what anvil says (it logs every call), but keep draining the
  // pipes so a chatty node never blocks on a full pipe.
  child.stdout.removeAllListeners("data");
  child.stderr.removeAllListeners("data");
  if (options.verbose) {
    child.stdout.pipe(process.stdout);
    child.stderr.pipe(process.stderr);
  } else {
    child.stdout.resume();
    child.stderr.resume();
  }

  const rpcUrl = `http://127.0.0.1:${port}`;
  await waitForRpc(rpcUrl, chainId, options.timeoutMs ?? 15_000);

  return {
    rpcUrl,
    port,
    chainId,
    pid: child.pid as number,
    stop: () => stopChild(child, exited, killOnExit),
  };
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>, killOnExit: () => void): Promise<void> {
  process.off("exit", killOnExit);
  if (child.exitCode !== null || child.signalCode !== null) return;
  // SIGTERM lets anvil write its state file; SIGKILL if it does not go.
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Polls eth_chainId until the node answers with the expected id. */
export async function waitForRpc(rpcUrl: string, chainId: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = "";
  while (Date.now() < deadline) {
    try {
      const res = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      });
      const body = (await res.json()) as { result?: string };
      if (body.result && Number(body.result) === chainId) return;
      lastError = `answered ${JSON.stringify(body)}`;
    } catch (err) {
      lastError = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`RPC ${rpcUrl} did not answer chain ${chainId}: ${lastError}`);
}
