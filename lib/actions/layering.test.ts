import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

// The dashboard's layers import downward only: app/ (routes) → components/ → lib/actions → lib/api.
// Nothing outside app/ imports from app/ (server actions live in lib/actions, not beside pages),
// and the dashboard's code never imports the service (it talks to it over HTTP, through lib/api).

const ROOT = join(__dirname, "..", "..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

const importsOf = (file: string) =>
  [...readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map((m) => m[1]!);

describe("layering", () => {
  it("nothing outside app/ imports app/", () => {
    const offenders = ["components", "lib"]
      .flatMap((dir) => sources(join(ROOT, dir)))
      .filter((file) =>
        importsOf(file).some((spec) => spec.startsWith("@/app/") || /(^|\/)\.\.\/(\.\.\/)*app\//.test(spec)),
      )
      .map((file) => relative(ROOT, file));
    expect(offenders).toEqual([]);
  });

  it("no server action is left in app/, and the dashboard never imports lib/service", () => {
    const appFiles = sources(join(ROOT, "app")).filter((f) => !relative(ROOT, f).startsWith("app/v1/"));
    expect(
      appFiles.filter((f) => /^\s*["']use server["']/m.test(readFileSync(f, "utf8"))).map((f) => relative(ROOT, f)),
    ).toEqual([]);
    const dashboard = [...appFiles, ...sources(join(ROOT, "components")), ...sources(join(ROOT, "lib", "actions"))];
    expect(
      dashboard
        .filter((f) => importsOf(f).some((spec) => spec.startsWith("@/lib/service")))
        .map((f) => relative(ROOT, f)),
    ).toEqual([]);
  });
});
