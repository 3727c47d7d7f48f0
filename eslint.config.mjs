// ESLint: the layering (the dashboard only through lib/api, components below app/, lib below scripts) checked by a tool instead of remembered, no import cycles, and
// a few correctness rules. Not a style guide: formatting is Prettier's (npm run lint runs both).
//
//   npm run lint          (also the first step of `npm test`, so CI runs it)
//
// Imports are resolved like TypeScript resolves them (tsconfig paths, so "@/lib/service/x" and
// "../../lib/service/x" are the same file), and the boundaries are written as folders.
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";
import importX from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";

/** The dashboard reaches the service over HTTP only (lib/api's client), so a remote deployment works the same way. */
const DASHBOARD_NEVER_IMPORTS_SERVICE = {
  target: ["./app/**/*", "./components/**/*", "./lib/api/**/*", "./lib/session/**/*"],
  from: "./lib/service",
  message:
    "the dashboard (app/, components/, lib/api, lib/session) never imports lib/service: call the service through the lib/api client. " +
    "Only app/v1/[...path]/route.ts mounts the service.",
};
const COMPONENTS_NEVER_IMPORT_APP = {
  target: "./components/**/*",
  from: "./app",
  message:
    "components never import app/: app/ holds routes only; put server actions beside their schema outside app/ and import them from there.",
};
const LIB_NEVER_IMPORTS_SCRIPTS = {
  target: "./lib/**/*",
  from: "./scripts",
  message:
    "lib/ never imports scripts/: scripts are entry points; move the shared code into lib/ and let the script import it.",
};
/** The MCP server and the discovery files are dashboard-side too: they reach the service over HTTP (their tests may start one). */
const AGENT_SURFACE_NEVER_IMPORTS_SERVICE = {
  target: ["./lib/mcp/**/!(*.test).ts", "./lib/discovery/**/!(*.test).ts"],
  from: "./lib/service",
  message:
    "lib/mcp and lib/discovery never import lib/service: the tools call the service through the lib/api client, so they follow the API.",
};
/** Test scaffolding lives apart (lib/service/testing, lib/testing, e2e) and production code never reaches it. */
const PRODUCTION_NEVER_IMPORTS_SCAFFOLDING = {
  target: "./",
  from: ["./lib/service/testing", "./lib/testing", "./e2e"],
  message:
    "production code never imports test scaffolding (lib/service/testing, lib/testing, e2e): tests import it, not the other way round.",
};
/**
 * The composition root of the service (app.ts builds the router and registers every domain's
 * routes; workers.ts lists every worker; instance.ts starts both) sits above every domain:
 * nothing below imports it. A domain gets what it needs passed down (the router it registers on,
 * the context), or the shared piece moves down. Tests and lib/service/testing compose too.
 */
const SERVICE_NEVER_IMPORTS_ITS_COMPOSITION_ROOT = {
  target: "./lib/service/!(testing)/**/!(*.test).ts",
  from: ["./lib/service/app.ts", "./lib/service/workers.ts", "./lib/service/instance.ts"],
  message:
    "nothing below lib/service/app.ts imports it (nor workers.ts, instance.ts): pass the router or context down, or move the shared piece down.",
};
const ZONES = [
  SERVICE_NEVER_IMPORTS_ITS_COMPOSITION_ROOT,
  DASHBOARD_NEVER_IMPORTS_SERVICE,
  AGENT_SURFACE_NEVER_IMPORTS_SERVICE,
  COMPONENTS_NEVER_IMPORT_APP,
  LIB_NEVER_IMPORTS_SCRIPTS,
];

// ── No cycles between the service's domains ───────────────────────────────────────────────────
// import-x/no-cycle sees files; a cycle of folders (jobs/create-job → job-modes/claims →
// jobs/present-job) is invisible to it yet ties two domains into one. This rule treats each
// folder of lib/service (and each file at its top) as one node, builds the graph of runtime
// imports between them from the source (tests and test helpers are left out: nothing imports
// them), and reports every import whose two ends sit on a cycle. Type-only imports are erased at
// compile time and are left out, as import-x/no-cycle leaves them out.
const SERVICE = path.resolve("lib/service");
const TEST_CODE = /\.test\.tsx?$|test-support\.tsx?$|[\\/]testing[\\/]/;
const IMPORT =
  /(?:^|[;\s])(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|^\s*import\s+["']([^"']+)["']/gm;

const domainOf = (file) =>
  path
    .relative(SERVICE, file)
    .split(path.sep)[0]
    .replace(/\.tsx?$/, "");
function resolveSpecifier(fromFile, specifier) {
  if (specifier.startsWith("@/")) return path.resolve(specifier.slice(2));
  if (specifier.startsWith(".")) return path.resolve(path.dirname(fromFile), specifier);
  return null;
}
const inService = (file) => file !== null && file.startsWith(SERVICE + path.sep);
const typeOnly = (keywordType, clause) =>
  Boolean(keywordType) || /^\{\s*(type\s+[\w$]+(\s+as\s+[\w$]+)?\s*,?\s*)+\}$/.test(clause.trim());

// Built once per ESLint process (a CLI run): an editor's long-lived server sees it as of its start.
let domainGraph;
/** Domain → domains it imports at run time; and the strongly connected groups (Tarjan) of size > 1. */
function serviceDomainGraph() {
  if (domainGraph) return domainGraph;
  const edges = new Map();
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.tsx?$/.test(entry.name) && !TEST_CODE.test(file)) {
        for (const m of readFileSync(file, "utf8").matchAll(IMPORT)) {
          const specifier = m[4] ?? m[5] ?? m[6];
          if (m[4] && typeOnly(m[2], m[3])) continue;
          const target = resolveSpecifier(file, specifier);
          if (!inService(target) || domainOf(target) === domainOf(file)) continue;
          if (!edges.has(domainOf(file))) edges.set(domainOf(file), new Set());
          edges.get(domainOf(file)).add(domainOf(target));
        }
      }
    }
  };
  walk(SERVICE);
  const group = new Map();
  let counter = 0;
  const index = new Map(),
    low = new Map(),
    stack = [],
    onStack = new Set();
  const connect = (v) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const members = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        members.push(w);
      } while (w !== v);
      if (members.length > 1) for (const member of members) group.set(member, members);
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) connect(v);
  domainGraph = { edges, group };
  return domainGraph;
}

/** The shortest way back from `to` to `from` inside their cycle, for the message. */
function wayBack({ edges, group }, from, to) {
  const members = new Set(group.get(from));
  const previous = new Map([[to, null]]);
  const queue = [to];
  while (queue.length > 0) {
    const v = queue.shift();
    if (v === from) break;
    for (const w of edges.get(v) ?? [])
      if (members.has(w) && !previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
  }
  const way = [];
  for (let v = from; v !== null && v !== undefined; v = previous.get(v)) way.unshift(v);
  return way.join(" → ");
}

const noDomainCycle = {
  meta: {
    type: "problem",
    schema: [],
    docs: { description: "no import cycles between the folders (domains) of lib/service" },
  },
  create(context) {
    const file = context.filename;
    if (!inService(file) || TEST_CODE.test(file)) return {};
    const check = (node, source, kind) => {
      if (kind === "type" || typeof source?.value !== "string") return;
      const target = resolveSpecifier(file, source.value);
      if (!inService(target)) return;
      const from = domainOf(file),
        to = domainOf(target);
      const graph = serviceDomainGraph();
      if (from === to || graph.group.get(from) !== graph.group.get(to) || !graph.group.has(from)) return;
      context.report({
        node,
        message:
          `import cycle between service domains: ${from} imports ${to}, and ${wayBack(graph, from, to)}. ` +
          "Move what both need into the lower domain (or a shared module) so that imports go one way.",
      });
    };
    const typeOnlyDeclaration = (node) =>
      node.importKind === "type" ||
      (node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === "type"));
    return {
      ImportDeclaration: (node) => check(node, node.source, typeOnlyDeclaration(node) ? "type" : "value"),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source, node.exportKind),
      ExportAllDeclaration: (node) => check(node, node.source, node.exportKind),
      ImportExpression: (node) => check(node, node.source, "value"),
    };
  },
};

export default defineConfig(
  {
    ignores: [
      "node_modules/**",
      ".next/**",
      ".next-*/**",
      "next-env.d.ts",
      "contracts/artifacts/**",
      ".data/**",
      ".stack/**",
      "playwright-report/**",
      "test-results/**",
      ".test-reports/**",
      "packages/*/dist/**",
    ],
  },
  {
    files: ["**/*.{ts,tsx,mts,cts,js,mjs,cjs}"],
    languageOptions: {
      // Syntax only: type-aware rules would need the whole program (minutes on two cores).
      parser: tseslint.parser,
      ecmaVersion: "latest",
      sourceType: "module",
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    plugins: {
      "import-x": importX,
      "@typescript-eslint": tseslint.plugin,
      layering: { rules: { "no-domain-cycle": noDomainCycle } },
    },
    settings: {
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "./tsconfig.json", alwaysTryTypes: true })],
      "import-x/extensions": [".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs"],
    },
    rules: {
      // ── Layering ───────────────────────────────────────────────────────────────────────────
      "import-x/no-restricted-paths": ["error", { zones: ZONES }],
      // A cycle means neither side can be understood, tested or initialised alone: between files
      // (import-x; type-only imports are erased, so they do not count) and between the domains
      // (folders) of lib/service (ours, above).
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "layering/no-domain-cycle": "error",
      "import-x/no-self-import": "error",

      // ── Correctness ────────────────────────────────────────────────────────────────────────
      "no-debugger": "error",
      "require-yield": "error",
      "no-dupe-else-if": "error",
      "no-duplicate-case": "error",
      "no-self-assign": "error",
      "no-self-compare": "error",
      "no-unsafe-finally": "error",
      "no-unreachable": "error",
      "no-constant-binary-expression": "error",
      "no-async-promise-executor": "error",
      "no-compare-neg-zero": "error",
      "no-sparse-arrays": "error",
      "use-isnan": "error",
      "valid-typeof": "error",
      // An import or variable nobody uses is a rule nobody applies: removed, or named _ on purpose.
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          caughtErrors: "none",
          ignoreRestSiblings: true,
        },
      ],
      // A focused test (.only) silently skips the rest of the suite; a skipped one hides a rule.
      "no-restricted-properties": [
        "error",
        ...["it", "describe", "test"].flatMap((object) =>
          ["only", "skip"].map((property) => ({
            object,
            property,
            message: "no .only/.skip: every test runs (describe.runIf for PostgreSQL-only suites)",
          })),
        ),
      ],
    },
  },
  {
    // Production files (not tests, not the scaffolding itself) also never import test scaffolding.
    files: ["lib/**/*.{ts,tsx,mjs}", "app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    ignores: [
      "**/*.test.ts",
      "**/*.test.tsx",
      "lib/service/testing/**",
      "lib/testing/**",
      "lib/certify/testing/**",
      "app/v1/**/route.ts",
    ],
    rules: { "import-x/no-restricted-paths": ["error", { zones: [...ZONES, PRODUCTION_NEVER_IMPORTS_SCAFFOLDING] }] },
  },
  {
    // A domain refuses with fail(code, message) and leaves the HTTP status to the router; the
    // status-named helpers are the request gate's own (http/, the credential check, the router).
    files: ["lib/service/**/*.ts"],
    ignores: [
      "**/*.test.ts",
      "lib/service/testing/**",
      "lib/service/http/**",
      "lib/service/auth/actor.ts",
      "lib/service/router.ts",
    ],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/http/errors"],
              importNames: ["badRequest", "unauthorized", "forbidden", "notFound", "conflict"],
              message:
                "domain code throws fail(code, message, extra) from lib/service/errors.ts; the router derives the status.",
            },
          ],
        },
      ],
    },
  },
  {
    // The service and the chain code log through lib/service/log.ts (pino: one JSON line with the
    // request id, actor, worker and job id; secrets redacted), never the console.
    files: ["lib/service/**/*.ts", "lib/chain/**/*.ts"],
    ignores: ["**/*.test.ts", "**/testing/**", "**/test-support.ts"],
    rules: { "no-console": "error" },
  },
  {
    // The one place the dashboard's app mounts the service: /v1 requests are handed to it.
    files: ["app/v1/**/route.ts"],
    rules: {
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            ...ZONES.filter((zone) => zone !== DASHBOARD_NEVER_IMPORTS_SERVICE),
            PRODUCTION_NEVER_IMPORTS_SCAFFOLDING,
          ],
        },
      ],
    },
  },
);
