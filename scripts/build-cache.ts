// Builds the app only when its sources changed since the last build, and never into a folder that a
// running server serves: rebuilding `.next` under a live server breaks its pages (ChunkLoadError,
// 404 chunks, "This page couldn't load").
//
// Each caller names its build folders ("slots"). A slot holds a complete build when it has
// `.source-fingerprint`, written only after `next build` succeeded; a server that serves a slot
// leaves `.serving/<pid>` there while it lives. `npm start` has two slots, so a new build goes into
// the one no live server uses, and the other keeps serving until it stops.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const FINGERPRINT_FILE = ".source-fingerprint";
const SERVING_DIR = ".serving";

/** What `next build` reads: the app's sources, styles, public files, contract artifacts and configuration. */
const SOURCE_DIRS = ["app", "components", "lib", "public", "contracts/artifacts"];
const SOURCE_FILES = [
  "next.config.mjs",
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "postcss.config.mjs",
  "tailwind.config.ts",
];
// Tests are never bundled, so editing one does not call for a new build.
const NOT_BUILT = /\.(test|spec)\.(ts|tsx|mts|js)$/;

function walk(dir: string, out: string[]): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (entry.isFile() && !NOT_BUILT.test(entry.name)) out.push(full);
  }
}

/** A hash of every file the build reads, with the toolchain that builds it. */
export function sourceFingerprint(root = process.cwd()): string {
  const files: string[] = [];
  for (const dir of SOURCE_DIRS) walk(path.join(root, dir), files);
  for (const file of SOURCE_FILES) if (existsSync(path.join(root, file))) files.push(path.join(root, file));
  files.sort();
  const hash = createHash("sha256");
  hash.update(`node ${process.version} ${process.platform} ${process.arch}\n`);
  for (const file of files) {
    hash.update(path.relative(root, file));
    hash.update("\0");
    hash.update(readFileSync(file));
    hash.update("\0");
  }
  return hash.digest("hex").slice(0, 32);
}

function completedFingerprint(slot: string): string | null {
  const file = path.join(slot, FINGERPRINT_FILE);
  return existsSync(file) && existsSync(path.join(slot, "BUILD_ID")) ? readFileSync(file, "utf8").trim() : null;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether a live server serves this slot (markers of servers that died are ignored). */
export function isServed(slot: string): boolean {
  const dir = path.join(slot, SERVING_DIR);
  if (!existsSync(dir)) return false;
  return readdirSync(dir).some((name) => /^\d+$/.test(name) && isAlive(Number(name)));
}

/** Marks the slot as served by this process id; returns the function that removes the mark. */
export function markServing(slot: string, pid: number): () => void {
  const dir = path.join(slot, SERVING_DIR);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, String(pid));
  writeFileSync(file, new Date().toISOString());
  return () => rmSync(file, { force: true });
}

function nextBuild(distDir: string): void {
  const result = spawnSync(process.execPath, [path.resolve("node_modules/next/dist/bin/next"), "build"], {
    stdio: "inherit",
    env: { ...process.env, NEXT_DIST_DIR: path.relative(process.cwd(), distDir) || ".", NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0) throw new Error("next build failed");
}

/**
 * Returns the slot to serve: one whose complete build matches the sources, else a fresh build in a
 * slot that no live server uses (the one without a complete build first, then the oldest).
 */
export function ensureBuild(slots: string[], options: { root?: string; build?: (slot: string) => void } = {}): string {
  if (slots.length === 0) throw new Error("ensureBuild needs at least one build folder");
  const root = options.root ?? process.cwd();
  slots = slots.map((slot) => path.resolve(root, slot));
  const fingerprint = sourceFingerprint(root);
  const current = slots.find((slot) => completedFingerprint(slot) === fingerprint);
  if (current) {
    console.log(`[stack] the build in ${path.relative(root, current)} is up to date`);
    return path.relative(root, current);
  }
  const free = slots.filter((slot) => !isServed(slot));
  if (free.length === 0) {
    throw new Error(
      `every build folder (${slots.map((slot) => path.relative(root, slot)).join(", ")}) is served by a running server; stop it first, or set NEXT_DIST_DIR to another folder`,
    );
  }
  const builtAt = (slot: string) =>
    completedFingerprint(slot) ? statSync(path.join(slot, FINGERPRINT_FILE)).mtimeMs : -1;
  const target = [...free].sort((a, b) => builtAt(a) - builtAt(b))[0]!;
  console.log(`[stack] the sources changed since the last build; building into ${path.relative(root, target)}…`);
  // A build that stops halfway must never look complete.
  rmSync(path.join(target, FINGERPRINT_FILE), { force: true });
  (options.build ?? nextBuild)(target);
  writeFileSync(path.join(target, FINGERPRINT_FILE), fingerprint);
  return path.relative(root, target);
}
