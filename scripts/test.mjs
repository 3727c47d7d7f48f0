// `npm test`: the linter (layering and import cycles, eslint.config.mjs), then every test. With
// TEST_DATABASE_URL set (CI sets it; the concurrency tests need it) the service suite runs in full on
// that PostgreSQL server and only its PGlite part on PGlite; without it everything runs on PGlite.
// Then the browser tests run in Debian's Chromium against the real local stack.
// `node scripts/test.mjs lint|unit|e2e` runs one part.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { playwrightFileTimings, slowest, vitestFileTimings } from "./testing/timings.mjs";

// Each step's outcome, repeated at the very end: a CI log is often read from its tail only, and a
// failure early in a 30-minute run would otherwise scroll out of it.
const outcomes = [];
const REPORTS = ".test-reports";
rmSync(REPORTS, { recursive: true, force: true });
mkdirSync(REPORTS, { recursive: true });

// Every test file's duration, from the runners' own JSON reports (scripts/testing/timings.mjs).
const fileTimings = [];

// `reports`: where the step's runner writes its JSON report ({ vitest } or { playwright }).
function step(name, command, args, env = {}, reports = {}) {
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  const passed = result.status === 0;
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(`=== ${name}: ${passed ? "passed" : "FAILED"} in ${seconds} s ===`);
  const failures = passed || !reports.vitest ? [] : failedVitestTests(reports.vitest);
  outcomes.push({ name, passed, seconds, failures });
  if (reports.vitest) fileTimings.push(...vitestFileTimings(reports.vitest, name));
  if (reports.playwright) fileTimings.push(...playwrightFileTimings(reports.playwright, name));
  return passed;
}

// Vitest's JSON report (written beside the console reporter) names each failed test and its first
// message line.
function failedVitestTests(file) {
  if (!existsSync(file)) return ["(no report written)"];
  try {
    const report = JSON.parse(readFileSync(file, "utf8"));
    const failures = [];
    for (const suite of report.testResults ?? []) {
      const where = suite.name.replace(process.cwd() + "/", "");
      const failed = (suite.assertionResults ?? []).filter((test) => test.status === "failed");
      if (failed.length === 0 && suite.status === "failed") failures.push(`${where}: ${firstLine(suite.message)}`);
      for (const test of failed) failures.push(`${where} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    }
    return failures;
  } catch (error) {
    return [`(report unreadable: ${error.message})`];
  }
}

function firstLine(text) {
  return String(text ?? "")
    .split("\n")[0]
    .slice(0, 300);
}

function vitestArgs(report) {
  return ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`];
}

const only = process.argv[2];
let ok = true;
if (!only || only === "lint") {
  // First, and a gate like the others: the layering (the dashboard never imports lib/service,
  // components never import app/, lib never imports scripts) and no import cycles.
  ok = step("eslint (layering, import cycles)", "npm", ["run", "--silent", "lint"]) && ok;
}
if (!only || only === "unit") {
  // The projects are vitest.config.ts's: "rest" (everything outside the service), "service" (the
  // service suite and the production server around it) and "pglite" (the service tests that run on
  // PGlite too, through the harness).
  const report = `${REPORTS}/vitest-pglite.json`;
  if (!process.env.TEST_DATABASE_URL) {
    // No PostgreSQL server (a developer's machine): the whole suite, once, on PGlite.
    ok =
      step(
        "vitest (PGlite: everything)",
        "npx",
        [...vitestArgs(report), "--project", "rest", "--project", "service", "--project", "pglite"],
        { TEST_DATABASE_URL: "" },
        { vitest: report },
      ) && ok;
  } else {
    ok =
      step(
        "vitest (PGlite: all but the service suite, and its PGlite part)",
        "npx",
        [...vitestArgs(report), "--project", "rest", "--project", "pglite"],
        { TEST_DATABASE_URL: "" },
        { vitest: report },
      ) && ok;
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
    const postgresReport = `${REPORTS}/vitest-postgres.json`;
    ok =
      step(
        "vitest (PostgreSQL: the service suite)",
        "npx",
        [...vitestArgs(postgresReport), "--project", "service"],
        { SERVER_TEST_DIST_DIR: process.env.SERVER_TEST_DIST_DIR || ".next-e2e" },
        { vitest: postgresReport },
      ) && ok;
  }
}
if (!only || only === "e2e") {
  // playwright.config.ts adds its JSON reporter, written to this file.
  const report = `${REPORTS}/playwright.json`;
  ok =
    step(
      "playwright (Chromium)",
      "npx",
      ["playwright", "test"],
      { PLAYWRIGHT_JSON_OUTPUT_FILE: report },
      { playwright: report },
    ) && ok;
}

writeFileSync(`${REPORTS}/timings.json`, JSON.stringify({ steps: outcomes, files: fileTimings }, null, 2));
if (fileTimings.length > 0) {
  console.log("\n=== the ten slowest test files (all of them: .test-reports/timings.json) ===");
  for (const file of slowest(fileTimings, 10))
    console.log(`${String(file.seconds).padStart(7)} s  ${file.file}  (${file.tests} tests, ${file.step})`);
}

console.log("\n=== summary ===");
for (const outcome of outcomes) {
  console.log(`${outcome.passed ? "passed" : "FAILED"}  ${outcome.name} (${outcome.seconds} s)`);
  for (const failure of outcome.failures.slice(0, 40)) console.log(`    ✗ ${failure}`);
}
process.exit(ok ? 0 : 1);
