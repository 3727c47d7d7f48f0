// `npm start`: install what a fresh clone lacks, then start the whole local stack (anvil with the
// test USDC and escrow, the app with the built-in service, demo data). Plain Node so that it runs
// before any dependency is installed.
import { existsSync } from "node:fs";
import { spawnSync, spawn } from "node:child_process";

function run(command, args, { quiet = false } = {}) {
  const result = spawnSync(command, args, { stdio: quiet ? "ignore" : "inherit" });
  return result.status === 0;
}

if (!existsSync("node_modules/.package-lock.json") || !existsSync("node_modules/next")) {
  console.log("[start] installing dependencies (npm ci)…");
  // npm ci alone: the lock is complete for every platform, and a fallback to npm install would
  // rewrite it and hide a stale one.
  if (!run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"])) {
    console.error("[start] npm ci failed: the lock does not match package.json (see the error above)");
    process.exit(1);
  }
}

const child = spawn(process.execPath, ["--import", "tsx", "scripts/dev-stack.ts", ...process.argv.slice(2)], {
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
