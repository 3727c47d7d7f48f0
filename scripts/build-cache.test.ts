import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureBuild, isServed, markServing, sourceFingerprint } from "./build-cache";
import { choosePort, PortError } from "./stack";

function checkout(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "awm-build-cache-"));
  mkdirSync(path.join(root, "app"), { recursive: true });
  writeFileSync(path.join(root, "app/page.tsx"), "export default function Page() { return null; }\n");
  writeFileSync(path.join(root, "package-lock.json"), "{}\n");
  return root;
}

/** Stands in for `next build`: what matters here is whether, and where, a build runs. */
function recordingBuild(log: string[]) {
  return (slot: string) => {
    log.push(path.basename(slot));
    mkdirSync(slot, { recursive: true });
    writeFileSync(path.join(slot, "BUILD_ID"), "test");
  };
}

describe("building only when the sources changed", () => {
  it("builds once, then serves the same build while nothing the build reads has changed", () => {
    const root = checkout();
    const builds: string[] = [];
    expect(ensureBuild([".next", ".next-alt"], { root, build: recordingBuild(builds) })).toBe(".next");
    expect(ensureBuild([".next", ".next-alt"], { root, build: recordingBuild(builds) })).toBe(".next");
    // A test file is never bundled, so it does not call for a build either.
    writeFileSync(path.join(root, "app/page.test.tsx"), "// a test\n");
    expect(ensureBuild([".next", ".next-alt"], { root, build: recordingBuild(builds) })).toBe(".next");
    expect(builds).toEqual([".next"]);
  });

  it("builds again when a source or the lock changes", () => {
    const root = checkout();
    const before = sourceFingerprint(root);
    writeFileSync(path.join(root, "app/page.tsx"), "export default function Page() { return 1; }\n");
    const afterSource = sourceFingerprint(root);
    writeFileSync(path.join(root, "package-lock.json"), '{"lockfileVersion":3}\n');
    expect(new Set([before, afterSource, sourceFingerprint(root)]).size).toBe(3);
  });

  it("never builds into the folder a live server serves, and uses the other one", () => {
    const root = checkout();
    const builds: string[] = [];
    ensureBuild([".next", ".next-alt"], { root, build: recordingBuild(builds) });
    const unmark = markServing(path.join(root, ".next"), process.pid);
    writeFileSync(path.join(root, "app/page.tsx"), "export default function Page() { return 2; }\n");
    expect(ensureBuild([".next", ".next-alt"], { root, build: recordingBuild(builds) })).toBe(".next-alt");
    expect(builds).toEqual([".next", ".next-alt"]);
    // With both folders served, a build refuses rather than break a running server.
    const unmarkAlt = markServing(path.join(root, ".next-alt"), process.pid);
    writeFileSync(path.join(root, "app/page.tsx"), "export default function Page() { return 3; }\n");
    expect(() => ensureBuild([".next", ".next-alt"], { root, build: recordingBuild(builds) })).toThrow(
      /served by a running server/,
    );
    unmark();
    unmarkAlt();
  });

  it("ignores the marks of servers that are gone", async () => {
    const root = checkout();
    const slot = path.join(root, ".next");
    const child = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => child.once("exit", resolve));
    markServing(slot, child.pid!);
    expect(isServed(slot)).toBe(false);
  });

  it("a build that stopped halfway is not taken for a complete one", () => {
    const root = checkout();
    const failing = () => {
      mkdirSync(path.join(root, ".next"), { recursive: true });
      writeFileSync(path.join(root, ".next/BUILD_ID"), "half");
      throw new Error("next build failed");
    };
    expect(() => ensureBuild([".next"], { root, build: failing })).toThrow("next build failed");
    const builds: string[] = [];
    ensureBuild([".next"], { root, build: recordingBuild(builds) });
    expect(builds).toEqual([".next"]);
    expect(existsSync(path.join(root, ".next/.source-fingerprint"))).toBe(true);
  });
});

describe("busy ports at start", () => {
  const servers: net.Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
    delete process.env.AWM_TEST_PORT;
  });
  async function occupy(): Promise<number> {
    const server = net.createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return (server.address() as net.AddressInfo).port;
  }

  it("a busy port that was chosen explicitly stops the start with one line naming it and the setting", async () => {
    const busy = await occupy();
    process.env.AWM_TEST_PORT = String(busy);
    const error = await choosePort({ envName: "AWM_TEST_PORT", defaultPort: 3000, what: "the app" }).catch((e) => e);
    expect(error).toBeInstanceOf(PortError);
    expect(error.message).toBe(
      `port ${busy} (the app, AWM_TEST_PORT) is in use by another program; choose another, e.g. AWM_TEST_PORT=${busy + 1} npm start`,
    );
  });

  it("a busy default port gives way to a free one", async () => {
    const busy = await occupy();
    const chosen = await choosePort({ envName: "AWM_TEST_PORT", defaultPort: busy, what: "anvil" });
    expect(chosen).not.toBe(busy);
    const probe = net.createServer();
    await new Promise<void>((resolve, reject) => probe.once("error", reject).listen(chosen, "127.0.0.1", resolve));
    probe.close();
  });
});
