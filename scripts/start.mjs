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
  if (!run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { quiet: true })) {
    // Some registries serve only this platform's optional packages; the lock still pins every version.
    console.log("[start] npm ci failed; installing from the same lock with npm install…");
    if (!run("npm", ["install", "--no-audit", "--no-fund"])) process.exit(1);
  }
}

const child = spawn(process.execPath, ["--import", "tsx", "scripts/dev-stack.ts", ...process.argv.slice(2)], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
