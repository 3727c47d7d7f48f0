// What each test file cost, read from the reports the runners already write: vitest's JSON report
// (one per vitest step) and Playwright's JSON report. `npm test` prints the slowest files at its end
// and keeps everything in .test-reports/timings.json, so a slow file is found without a rerun.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** Per-file durations (seconds) of one vitest JSON report, tagged with the step that ran it. */
export function vitestFileTimings(reportFile, step) {
  const report = readJson(reportFile);
  if (!report) return [];
  return (report.testResults ?? []).map((suite) => ({
    step,
    file: path.relative(process.cwd(), suite.name),
    seconds: round((suite.endTime - suite.startTime) / 1000),
    tests: (suite.assertionResults ?? []).length,
    passed: (suite.assertionResults ?? []).filter((test) => test.status === "passed").length,
  }));
}

/**
 * Per-file durations of Playwright's JSON report: the sum of its tests' runs (with several workers
 * a file's tests may overlap with other files', so this is the time the file's tests took, not
 * wall time).
 */
export function playwrightFileTimings(reportFile, step) {
  const report = readJson(reportFile);
  if (!report) return [];
  const byFile = new Map();
  const visit = (suite) => {
    for (const spec of suite.specs ?? []) {
      const file = path.join(
        report.config?.rootDir ? path.relative(process.cwd(), report.config.rootDir) : "",
        spec.file,
      );
      const entry = byFile.get(file) ?? { step, file, seconds: 0, tests: 0, passed: 0 };
      for (const test of spec.tests ?? []) {
        entry.tests += 1;
        if (test.status === "expected" || test.status === "flaky") entry.passed += 1;
        for (const result of test.results ?? []) entry.seconds += (result.duration ?? 0) / 1000;
      }
      byFile.set(file, entry);
    }
    for (const child of suite.suites ?? []) visit(child);
  };
  for (const suite of report.suites ?? []) visit(suite);
  return [...byFile.values()].map((entry) => ({ ...entry, seconds: round(entry.seconds) }));
}

export function slowest(files, count = 10) {
  return [...files].sort((a, b) => b.seconds - a.seconds).slice(0, count);
}

function readJson(file) {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

function round(seconds) {
  return Math.round(seconds * 10) / 10;
}
