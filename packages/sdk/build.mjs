// Builds @agent-work-marketplace/sdk into packages/sdk/dist from this repository's lib/api:
//   dist/index.js  the SDK (ESM, one file; zod stays an import: the package's only dependency;
//                  the standardwebhooks library that signs and verifies webhooks is bundled in)
//   dist/cli.js    the awm binary (ESM, one file, with a shebang)
//   dist/index.d.ts + dist/types/…  declarations by tsc, with ESM-ready relative imports
// esbuild bundles (it is already in node_modules, under vite and tsx) because the sources are
// TypeScript spread over lib/api with extensionless imports; tsc alone writes the declarations.
//
//   npm run sdk:build
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "dist");
const { version } = JSON.parse(readFileSync(path.join(here, "package.json"), "utf8"));

rmSync(dist, { recursive: true, force: true });

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["zod"],
  define: { __AWM_SDK_VERSION__: JSON.stringify(version) },
  legalComments: "none",
  logLevel: "warning",
};
await build({ ...common, entryPoints: [path.join(here, "src/index.ts")], outfile: path.join(dist, "index.js") });
await build({
  ...common,
  entryPoints: [path.join(here, "src/cli/main.ts")],
  outfile: path.join(dist, "cli.js"),
  banner: { js: "#!/usr/bin/env node" },
});

const tsc = path.resolve(here, "../../node_modules/typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", path.join(here, "tsconfig.build.json")], { stdio: "inherit" });

// tsc keeps the sources' extensionless specifiers ("./contract"); a consumer resolving as Node ESM
// (moduleResolution node16/nodenext) needs "./contract.js" or "./routes/index.js".
function addExtensions(dir) {
  for (const entry of readdirSync(dir)) {
    const file = path.join(dir, entry);
    if (statSync(file).isDirectory()) {
      addExtensions(file);
      continue;
    }
    if (!file.endsWith(".d.ts")) continue;
    const text = readFileSync(file, "utf8").replace(
      /(from\s+|import\()(["'])(\.{1,2}\/[^"']+)\2/g,
      (whole, lead, quote, spec) => {
        if (/\.(js|mjs|cjs|json)$/.test(spec)) return whole;
        const target = path.resolve(path.dirname(file), spec);
        if (existsSync(`${target}.d.ts`)) return `${lead}${quote}${spec}.js${quote}`;
        if (existsSync(path.join(target, "index.d.ts"))) return `${lead}${quote}${spec}/index.js${quote}`;
        throw new Error(`${path.relative(here, file)}: cannot resolve ${spec}`);
      },
    );
    writeFileSync(file, text);
  }
}
addExtensions(path.join(dist, "types"));
writeFileSync(path.join(dist, "index.d.ts"), 'export * from "./types/packages/sdk/src/index.js";\n');

console.log(`built @agent-work-marketplace/sdk ${version} into ${path.relative(process.cwd(), dist) || "."}`);
