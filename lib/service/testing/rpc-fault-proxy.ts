import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A JSON-RPC proxy for fault tests: it listens on loopback (a port the OS picks) in front of a
 * node (anvil) and can lose replies. A lost reply is lost the way a network loses it: the request
 * still reaches the node (a sent transaction is still mined), and the caller's connection is cut
 * before any answer. Which calls lose their reply is chosen per JSON-RPC method, always or every
 * other time (half the replies). It can also answer an error after the node took the request, as an
 * RPC gateway does when its upstream connection breaks after forwarding (-32603 "upstream connect
 * error", -32000).
 */
export interface RpcFaultProxy {
  /** The URL to give the code under test as its RPC URL. */
  url: string;
  /** Lose every reply to these methods from now on. */
  drop(methods: string[], options?: { everyOther?: boolean }): void;
  /** Hold requests of these methods this long before forwarding them (a slow node or gateway). */
  slow(methods: string[], ms: number): void;
  /** Forward these methods to the node, then answer this JSON-RPC error instead of its reply. */
  failAfterForwarding(methods: string[], error: { code: number; message: string }): void;
  /** The node is down: every request is refused (its connection closed), nothing is forwarded. */
  down(): void;
  /** Forward these methods to the node twice (a gateway retrying a request), and answer the second reply. */
  duplicate(methods: string[]): void;
  /** Answer everything again. */
  heal(): void;
  /** Replies lost so far, per method. */
  dropped: Record<string, number>;
  /** Requests seen so far, per method. */
  seen: Record<string, number>;
  stop(): Promise<void>;
}

export async function startRpcFaultProxy(targetUrl: string): Promise<RpcFaultProxy> {
  const target = new URL(targetUrl);
  let rule: {
    methods: Set<string>;
    everyOther: boolean;
    answer?: { code: number; message: string };
  } | null = null;
  let toggle = 0;
  const dropped: Record<string, number> = {};
  let slowness: { methods: Set<string>; ms: number } | null = null;
  let isDown = false;
  let duplicated: Set<string> | null = null;
  const seen: Record<string, number> = {};

  const methodsOf = (body: string): string[] => {
    try {
      const parsed = JSON.parse(body) as { method?: string } | Array<{ method?: string }>;
      return (Array.isArray(parsed) ? parsed : [parsed]).map((m) => m.method ?? "");
    } catch {
      return [];
    }
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const methods = methodsOf(body.toString("utf8"));
      for (const m of methods) seen[m] = (seen[m] ?? 0) + 1;
      if (isDown) {
        req.socket.destroy();
        return;
      }
      const matched = rule !== null && methods.some((m) => rule!.methods.has(m));
      const twice = duplicated !== null && methods.some((m) => duplicated!.has(m));
      const lose = matched && (!rule!.everyOther || toggle++ % 2 === 0);
      const delay = slowness && methods.some((m) => slowness!.methods.has(m)) ? slowness.ms : 0;
      setTimeout(async () => {
        // The first of two forwards: its reply is lost, as a gateway retrying the request loses it.
        if (twice) await forward(body).catch(() => undefined);
        const upstream = httpRequest(
          {
            hostname: target.hostname,
            port: target.port,
            path: target.pathname + target.search,
            method: req.method,
            headers: { "content-type": "application/json", "content-length": body.length },
          },
          (answer) => {
            const reply: Buffer[] = [];
            answer.on("data", (c: Buffer) => reply.push(c));
            answer.on("end", () => {
              if (lose && rule?.answer) {
                for (const m of methods) dropped[m] = (dropped[m] ?? 0) + 1;
                res.writeHead(200, { "content-type": "application/json" });
                res.end(JSON.stringify(errorReplies(body.toString("utf8"), rule.answer)));
                return;
              }
              if (lose) {
                for (const m of methods) dropped[m] = (dropped[m] ?? 0) + 1;
                req.socket.destroy();
                return;
              }
              res.writeHead(answer.statusCode ?? 502, {
                "content-type": answer.headers["content-type"] ?? "application/json",
              });
              res.end(Buffer.concat(reply));
            });
          },
        );
        upstream.on("error", () => req.socket.destroy());
        upstream.end(body);
      }, delay);
    });
  });
  /** One request to the node, its reply read and dropped. */
  const forward = (body: Buffer) =>
    new Promise<void>((resolve, reject) => {
      const upstream = httpRequest(
        {
          hostname: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method: "POST",
          headers: { "content-type": "application/json", "content-length": body.length },
        },
        (answer) => {
          answer.resume();
          answer.on("end", () => resolve());
        },
      );
      upstream.on("error", reject);
      upstream.end(body);
    });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    drop(methods, options = {}) {
      rule = { methods: new Set(methods), everyOther: options.everyOther ?? false };
      toggle = 0;
    },
    failAfterForwarding(methods, error) {
      rule = { methods: new Set(methods), everyOther: false, answer: error };
    },
    slow(methods, ms) {
      slowness = { methods: new Set(methods), ms };
    },
    down() {
      isDown = true;
    },
    duplicate(methods) {
      duplicated = new Set(methods);
    },
    heal() {
      rule = null;
      slowness = null;
      isDown = false;
      duplicated = null;
    },
    dropped,
    seen,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The JSON-RPC error answer to a request (or to each request of a batch). */
function errorReplies(body: string, error: { code: number; message: string }): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = {};
  }
  const one = (request: unknown) => ({ jsonrpc: "2.0", id: (request as { id?: unknown })?.id ?? null, error });
  return Array.isArray(parsed) ? parsed.map(one) : one(parsed);
}
