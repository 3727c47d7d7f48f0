import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  /** Statuses to answer, in order; once used up, `fallback` (200 by default). */
  answers: number[];
  fallback: number;
  close(): Promise<void>;
}

/** A webhook receiver on loopback (node:http): records every request and answers as told. */
export async function startReceiver(path = "/hook"): Promise<Receiver> {
  const receiver: Omit<Receiver, "url" | "close"> = { received: [], answers: [], fallback: 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      receiver.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      const status = receiver.answers.shift() ?? receiver.fallback;
      // A redirect points elsewhere: a sender that followed it would show up at /elsewhere.
      res.writeHead(status, {
        "content-type": "text/plain",
        ...(status >= 300 && status < 400 ? { location: "/elsewhere" } : {}),
      });
      res.end(status >= 200 && status < 300 ? "ok thanks" : `failure ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}${path}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
