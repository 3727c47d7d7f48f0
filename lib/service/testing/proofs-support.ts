/**
 * Loopback fixtures shared by the prober's tests. Nothing here is used by the service itself.
 *
 * Every test passes `guardDial` as the dial seam: the one made-up public address goes to the
 * test origin, loopback stays loopback, and ANY other address that wrongly passed the policy is
 * sent to the trap. So a policy bug shows up as a trap hit, and no test can ever put a packet on
 * a non-loopback address.
 */
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";

import type { DialTarget } from "../proofs/safe-fetch";

/** A public address that tests pretend names resolve to; never contacted (see guardDial). */
export const FAKE_PUBLIC_IP = "93.184.215.14";

export interface Trap {
  port: number;
  port6: number;
  hits: () => number;
  close: () => Promise<void>;
}

/** TCP listeners on 127.0.0.1 and ::1 that count connections and never answer. */
export async function startTrap(): Promise<Trap> {
  let hits = 0;
  const sockets = new Set<net.Socket>();
  const make = () =>
    net.createServer((socket) => {
      hits += 1;
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
  const v4 = make();
  const v6 = make();
  await new Promise<void>((resolve) => v4.listen(0, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => v6.listen(0, "::1", resolve));
  return {
    port: (v4.address() as AddressInfo).port,
    port6: (v6.address() as AddressInfo).port,
    hits: () => hits,
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all([v4, v6].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}

export interface Origin {
  port: number;
  url: (path: string) => string;
  requests: () => string[];
  reset: () => void;
  close: () => Promise<void>;
}

export async function startOrigin(handler: http.RequestListener): Promise<Origin> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? "");
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests: () => [...seen],
    reset: () => {
      seen.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function guardDial(origin: { port: number }, trap: { port: number }) {
  return (target: DialTarget): { address: string; port: number } => {
    if (target.address === FAKE_PUBLIC_IP) return { address: "127.0.0.1", port: origin.port };
    if (target.address === "::1" || target.address.startsWith("127.")) {
      return { address: target.address, port: target.port };
    }
    return { address: "127.0.0.1", port: trap.port };
  };
}

/** A resolver from a fixed table that records every question; unknown names fail like NXDOMAIN. */
export function tableResolver(table: Record<string, string[] | (() => string[])>) {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<string[]> => {
    calls.push(hostname);
    const entry = table[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return typeof entry === "function" ? entry() : entry;
  };
  return { resolve, calls };
}
