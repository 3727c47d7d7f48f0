// `npm test`: the linter (layering and import cycles, eslint.config.mjs), the type check, then every
// test. With TEST_DATABASE_URL set (CI sets it; the concurrency tests need it) the service suite runs
// in full on that PostgreSQL server and only its PGlite part on PGlite; without it everything runs
// on PGlite. Then the browser tests run in Debian's Chromium against the real local stack.
// `node scripts/test.mjs lint|unit|e2e` runs one part.
//
// Steps that do not depend on each other run side by side, in phases (docs/testing.md has the
// measurements): the linter and the type check beside the PGlite tests, which wait on WebAssembly
// and chains more than they compute; `next build` beside the service suite on PostgreSQL, whose
// time is mostly spent waiting on the database, anvil and loopback HTTP; then the tests that serve
// that build; then the browser tests, alone (one worker: the specs share one stack).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { playwrightFileTimings, slowest, vitestFileTimings } from "./testing/timings.mjs";

// Each step's outcome, repeated at the very end: a CI log is often read from its tail only, and a
// failure early in a 30-minute run would otherwise scroll out of it.
const outcomes = [];
const REPORTS = ".test-reports";
rmSync(REPORTS, { recursive: true, force: true });
mkdirSync(REPORTS, { recursive: true });

// Every test file's duration, from the runners' own JSON reports (scripts/testing/timings.mjs).
const fileTimings = [];
const started = Date.now();
const loadAtStart = loadavg()[0];

/**
 * Runs one step; resolves to whether it passed. Steps running side by side write to the same
 * terminal: each line is prefixed with the step's short name. `reports`: where the step's runner
 * writes its JSON report ({ vitest } or { playwright }).
 */
function step(name, command, args, env = {}, reports = {}) {
  const tag = `[${name.split(" ")[0]}]`;
  console.log(`\n=== ${name} ===`);
  const began = Date.now();
  const order = outcomes.push(null) - 1;
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? "0", ...env },
    });
    for (const [stream, out] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      let rest = "";
      stream.on("data", (chunk) => {
        const lines = (rest + chunk.toString()).split("\n");
        rest = lines.pop();
        for (const line of lines) out.write(`${tag} ${line}\n`);
      });
      stream.on("end", () => rest && out.write(`${tag} ${rest}\n`));
    }
    child.on("close", (code) => {
      const passed = code === 0;
      const seconds = Math.round((Date.now() - began) / 1000);
      console.log(`=== ${name}: ${passed ? "passed" : "FAILED"} in ${seconds} s ===`);
      const failures = passed || !reports.vitest ? [] : failedVitestTests(reports.vitest);
      outcomes[order] = { name, passed, seconds, failures };
      if (reports.vitest) fileTimings.push(...vitestFileTimings(reports.vitest, name));
      if (reports.playwright) fileTimings.push(...playwrightFileTimings(reports.playwright, name));
      resolve(passed);
    });
  });
}

/** Steps side by side; resolves to whether all passed. */
async function together(...steps) {
  const results = await Promise.all(steps);
  return results.every(Boolean);
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
const withPostgres = Boolean(process.env.TEST_DATABASE_URL);
const buildDir = process.env.SERVER_TEST_DIST_DIR || ".next-e2e";
let ok = true;

// The layering (the dashboard never imports lib/service, components never import app/, lib never
// imports scripts), no import cycles, Prettier; and the types, checked here once (the build below
// skips its own check).
const lint = () => step("eslint (layering, import cycles, prettier)", "npm", ["run", "--silent", "lint"]);
const typecheck = () => step("tsc (types)", "npx", ["tsc", "--noEmit"]);
// The projects are vitest.config.ts's: "rest" (everything outside the service), "service" (the
// service suite and the production server around it) and "pglite" (the service tests that run on
// PGlite too, through the harness).
const pglite = () => {
  const report = `${REPORTS}/vitest-pglite.json`;
  const projects = withPostgres ? ["rest", "pglite"] : ["rest", "service", "pglite"];
  return step(
    withPostgres ? "vitest (PGlite: all but the service suite, and its PGlite part)" : "vitest (PGlite: everything)",
    "npx",
    [...vitestArgs(report), ...projects.flatMap((project) => ["--project", project])],
    { TEST_DATABASE_URL: "" },
    { vitest: report },
  );
};
// The build that scripts/server*.test.ts, scripts/cluster.test.ts and the browser tests serve, made
// here rather than inside a test worker (a worker blocked for minutes on `next build` misses
// vitest's RPC deadline). One build for all of them.
const build = () =>
  step("next build (for the server and browser tests)", "npx", ["tsx", "scripts/ensure-build.ts", buildDir], {
    NEXT_BUILD_TYPECHECK: only === "unit" ? "on" : "off",
  });
const postgres = (part) => {
  const report = `${REPORTS}/vitest-postgres-${part}.json`;
  // scripts/server.test.ts starts the production server as `npm start` does (several processes,
  // workers led through PostgreSQL); scripts/cluster.test.ts serves the same build behind HAProxy.
  const servers = part === "servers";
  return step(
    servers ? "vitest (PostgreSQL: the production server, on the build)" : "vitest (PostgreSQL: the service suite)",
    "npx",
    [...vitestArgs(report), "--project", "service", ...(servers ? ["scripts/"] : ["--exclude", "scripts/**"])],
    { SERVER_TEST_DIST_DIR: buildDir },
    { vitest: report },
  );
};
// playwright.config.ts adds its JSON reporter, written to this file.
const playwright = () => {
  const report = `${REPORTS}/playwright.json`;
  return step(
    "playwright (Chromium)",
    "npx",
    ["playwright", "test"],
    { PLAYWRIGHT_JSON_OUTPUT_FILE: report },
    { playwright: report },
  );
};

if (!only) {
  ok = (await together(lint(), typecheck(), pglite())) && ok;
  if (withPostgres) {
    ok = (await together(build(), postgres("service"))) && ok;
    ok = (await postgres("servers")) && ok;
  }
  ok = (await playwright()) && ok;
} else if (only === "lint") {
  ok = await together(lint(), typecheck());
} else if (only === "unit") {
  ok = await pglite();
  if (withPostgres) {
    ok = (await together(build(), postgres("service"))) && ok;
    ok = (await postgres("servers")) && ok;
  }
} else if (only === "e2e") {
  ok = await playwright();
} else {
  console.error("usage: node scripts/test.mjs [lint|unit|e2e]");
  process.exit(2);
}

const seconds = Math.round((Date.now() - started) / 1000);
// CPU seconds of every process this run waited for: beside the wall time, what the run cost the
// machine, and a figure other load on a shared machine hardly changes.
// /proc/self/stat after the command name: fields 14 to 17 (utime, stime, cutime, cstime), in ticks.
const [utime, stime, cutime, cstime] = readFileSync("/proc/self/stat", "utf8")
  .split(") ")[1]
  .split(" ")
  .slice(11, 15)
  .map(Number);
const cpuSeconds = Math.round((utime + stime + cutime + cstime) / 100);
const load = { atStart: loadAtStart, atEnd: loadavg()[0] };
writeFileSync(
  `${REPORTS}/timings.json`,
  JSON.stringify({ seconds, cpuSeconds, load, steps: outcomes, files: fileTimings }, null, 2),
);
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
console.log(
  `${ok ? "passed" : "FAILED"}  in ${seconds} s wall, ${cpuSeconds} s of CPU (load average ${load.atStart.toFixed(1)} at the start, ${load.atEnd.toFixed(1)} at the end)`,
);
process.exit(ok ? 0 : 1);
