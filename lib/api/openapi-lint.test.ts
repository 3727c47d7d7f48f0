import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./openapi";

// The generated document, judged by the tools an integrator points at it: Redocly's recommended
// rules and Spectral's OpenAPI ruleset, both run as their CLIs (devDependencies, offline: the
// rulesets ship inside the packages).

const BIN = path.join(process.cwd(), "node_modules/.bin");
let dir: string;
let file: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "awm-openapi-"));
  file = path.join(dir, "openapi.json");
  await writeFile(file, JSON.stringify(buildOpenApiDocument("https://market.example")));
  await writeFile(path.join(dir, ".spectral.yaml"), 'extends: ["spectral:oas"]\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(bin: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      path.join(BIN, bin),
      args,
      {
        cwd: dir,
        maxBuffer: 64 * 1024 * 1024,
        env: {
          ...process.env,
          REDOCLY_TELEMETRY: "off",
          REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
          NO_UPDATE_NOTIFIER: "1",
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("/v1/openapi.json under the linters", () => {
  it("Redocly's recommended rules: no error", async () => {
    const result = await run("redocly", ["lint", "--extends", "recommended", "--format", "json", file]);
    const report = JSON.parse(result.stdout.slice(result.stdout.indexOf("{"))) as {
      problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
    };
    const errors = report.problems
      .filter((p) => p.severity === "error")
      .map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    expect(errors).toEqual([]);
    // What is left are warnings, few of them.
    expect(report.problems.length).toBeLessThan(10);
  }, 180_000);

  it("Spectral's oas ruleset: no error, few warnings", async () => {
    const result = await run("spectral", [
      "lint",
      "-r",
      path.join(dir, ".spectral.yaml"),
      "-f",
      "json",
      "--quiet",
      file,
    ]);
    const report = JSON.parse(result.stdout.slice(result.stdout.indexOf("["))) as Array<{
      code: string;
      severity: number;
      message: string;
      path: string[];
    }>;
    const errors = report.filter((p) => p.severity === 0).map((p) => `${p.code} ${p.path.join(".")}: ${p.message}`);
    expect(errors).toEqual([]);
    expect(report.length).toBeLessThan(10);
  }, 180_000);
});
