import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureBuild } from "./build-cache";
import { freePort, startAppServer, type AppServer } from "./stack";

// SIGTERM (a deploy, the orchestrator, the cluster's primary) stops the production server
// gracefully: it takes no new connection, answers the request in flight, then exits 0.
// Run in the PostgreSQL pass of `npm test`, which builds the app first (scripts/test.mjs): a build
// inside a test worker would miss vitest's deadlines.
describe.runIf(Boolean(process.env.TEST_DATABASE_URL))("scripts/server.mjs on SIGTERM", () => {
  let server: AppServer | undefined;
  let dataDir: string | undefined;
  afterAll(async () => {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers the request in flight, refuses new connections, and exits 0", async () => {
    const distDir = ensureBuild([process.env.SERVER_TEST_DIST_DIR || ".next-e2e"]);
    dataDir = mkdtempSync(path.join(os.tmpdir(), "awm-shutdown-"));
    const port = await freePort();
    server = await startAppServer({
      port,
      distDir,
      quiet: true,
      env: { DATA_DIR: dataDir, WORKERS: "on", SHUTDOWN_TIMEOUT_MS: "10000", SITE_URL: `http://127.0.0.1:${port}` },
    });
    const exited = new Promise<number | null>((resolve) => server!.process.once("exit", (code) => resolve(code)));

    // A request whose body is still arriving when SIGTERM comes: the service is waiting to read it.
    const body = JSON.stringify({ message: "not a SIWE message", signature: "0x00" });
    const socket = net.connect(port, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString("utf8")));
    const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.write(
      `POST /v1/auth/siwe/verify HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 300));
    server.process.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 700));

    // No longer accepting: a new connection is refused.
    const refused = await new Promise<boolean>((resolve) => {
      const probe = net.connect(port, "127.0.0.1");
      probe.once("connect", () => {
        probe.destroy();
        resolve(false);
      });
      probe.once("error", () => resolve(true));
    });
    expect(refused).toBe(true);
    expect(answer).toBe("");

    // The rest of the body: the request in flight gets its answer (the service's, not a cut socket).
    socket.write(body.slice(10));
    await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /);
    expect(answer.toLowerCase()).toContain("connection: close");
    expect(answer).toContain('"statusCode"');
    expect(await exited).toBe(0);
  }, 900_000);
});
