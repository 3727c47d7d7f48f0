// `npm test`: the linter (layering and import cycles, eslint.config.mjs), then every test. The
// service suite runs on PGlite, and also on PostgreSQL when TEST_DATABASE_URL is set (CI sets it;
// the concurrency tests need it); then the browser tests run in Debian's Chromium against the real
// local stack. `node scripts/test.mjs lint|unit|e2e` runs one part.
import { spawnSync } from "node:child_process";

function step(name, command, args, env = {}) {
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  console.log(
    `=== ${name}: ${result.status === 0 ? "passed" : "FAILED"} in ${Math.round((Date.now() - started) / 1000)} s ===`,
  );
  return result.status === 0;
}

const only = process.argv[2];
let ok = true;
if (!only || only === "lint") {
  // First, and a gate like the others: the layering (the dashboard never imports lib/service,
  // components never import app/, lib never imports scripts) and no import cycles.
  ok = step("eslint (layering, import cycles)", "npm", ["run", "--silent", "lint"]) && ok;
}
if (!only || only === "unit") {
  ok = step("vitest (PGlite)", "npx", ["vitest", "run"], { TEST_DATABASE_URL: "" }) && ok;
  if (process.env.TEST_DATABASE_URL) {
    // The build that scripts/server.test.ts and the browser tests serve, made here rather than
    // inside a test worker (a worker blocked for minutes on `next build` misses vitest's RPC deadline).
    ok =
      step("next build (for the server and browser tests)", "npx", [
        "tsx",
        "scripts/ensure-build.ts",
        process.env.SERVER_TEST_DIST_DIR || ".next-e2e",
      ]) && ok;
    // scripts/server.test.ts starts the production server as `npm start` does (several processes,
    // workers led through PostgreSQL). It builds into the browser tests' folder, which they then
    // find up to date: one build for both. scripts/cluster.test.ts serves the same build behind HAProxy.
    ok =
      step(
        "vitest (PostgreSQL)",
        "npx",
        [
          "vitest",
          "run",
          "lib/service",
          "scripts/server.test.ts",
          "scripts/server-shutdown.test.ts",
          "scripts/cluster.test.ts",
        ],
        { SERVER_TEST_DIST_DIR: process.env.SERVER_TEST_DIST_DIR || ".next-e2e" },
      ) && ok;
  }
}
if (!only || only === "e2e") {
  ok = step("playwright (Chromium)", "npx", ["playwright", "test"]) && ok;
}
process.exit(ok ? 0 : 1);
