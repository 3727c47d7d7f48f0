import { request as httpRequest } from "node:http";

// For tests of the body limit (lib/service/router.ts), over the harness or the real server.

export interface RawOutcome {
  status: number | null;
  body: any;
  /** Bytes of body the client had handed to the socket when the answer (or the close) came. */
  written: number;
  /** The connection failed (a reset, or closed before an answer): status is null then. */
  error: string | null;
}

/**
 * Sends a POST whose body never ends on its own: `chunk` after `chunk`, paced by the socket (and by
 * `delayMs`), until the server answers or drops the connection, or `maxBytes` were sent (then the
 * body ends). Raw node:http, so that we see how much the server let in before refusing. With
 * `expectContinue`, the request says `Expect: 100-continue` and sends its body only after the
 * server's 100 Continue, as curl does for large bodies.
 */
export function sendEndlessBody(
  baseUrl: string,
  path: string,
  options: {
    headers: Record<string, string>;
    chunk: Buffer;
    delayMs: number;
    maxBytes: number;
    expectContinue?: boolean;
  },
): Promise<RawOutcome> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve) => {
    let written = 0;
    let settled = false;
    let writtenAtAnswer = 0;
    const finish = (status: number | null, body: any, error: string | null = null) => {
      if (settled) return;
      settled = true;
      req.destroy();
      resolve({ status, body, written: writtenAtAnswer || written, error });
    };
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { ...options.headers, ...(options.expectContinue ? { expect: "100-continue" } : {}) },
      },
      (res) => {
        writtenAtAnswer = written;
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => finish(res.statusCode ?? null, parseJson(text)));
        res.on("error", () => finish(res.statusCode ?? null, text || null));
      },
    );
    req.on("error", (error) => finish(null, null, (error as NodeJS.ErrnoException).code ?? error.message));
    const pump = () => {
      if (settled || writtenAtAnswer) return;
      if (written >= options.maxBytes) {
        req.end();
        return;
      }
      written += options.chunk.length;
      const more = req.write(options.chunk);
      if (more) setTimeout(pump, options.delayMs);
      else req.once("drain", () => setTimeout(pump, options.delayMs));
    };
    if (options.expectContinue) {
      // The headers go alone; the body waits for the go-ahead.
      req.flushHeaders();
      req.once("continue", pump);
    } else pump();
  });
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}
