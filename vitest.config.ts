import path from "node:path";
import { defineConfig } from "vitest/config";

// Where each test file runs, by vitest project (`npx vitest run --project <name>`; scripts/test.mjs
// picks them for `npm test`, docs/testing.md):
// - "service": the service suite (everything under lib/service) and the production server around
//   it. On the PostgreSQL server of TEST_DATABASE_URL when it is set (CI), on PGlite otherwise. A
//   new file under lib/service joins it by being there. The tests of what only PGlite does open
//   PGlite themselves, whatever the database (db/pglite.test.ts, db/migration-order.test.ts,
//   db/prepared-statements.test.ts).
// - "pglite": the service tests that also run through the test harness on PGlite, the embedded
//   default, while "service" runs on PostgreSQL: a smoke of every route group through the router,
//   and every route's documented answers. A file joins it by being listed in PGLITE_PART. Without
//   TEST_DATABASE_URL, "service" leaves these files to it, so nothing runs twice on PGlite.
// - "rest": every other file (contracts, lib/chain, lib/api, packages, scripts, discovery, MCP...),
//   once, on PGlite.
const SERVICE = [
  "lib/service/**/*.test.ts",
  "scripts/server.test.ts",
  "scripts/server-shutdown.test.ts",
  "scripts/cluster.test.ts",
];
const PGLITE_PART = ["lib/service/http/route-groups-smoke.test.ts", "lib/service/http/openapi-conformance.test.ts"];
// One deployment of the contracts per run, loaded by every file's own anvil (lib/chain/testing.ts).
const CHAIN_STATE = "lib/testing/chain-state-setup.ts";
const ALL = ["**/*.test.ts", "**/*.test.tsx"];
const NEVER = ["node_modules/**", "e2e/**", ".next*/**", ".data*/**", "packages/*/dist/**"];

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(__dirname),
      // `server-only` throws outside React Server Components; in tests every module is server code.
      "server-only": path.resolve(__dirname, "lib/testing/empty-module.ts"),
    },
  },
  test: {
    exclude: NEVER,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two cores: more workers only fight over them.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        // On PostgreSQL every worker shares one database: its global setup empties it first.
        test: {
          name: "service",
          include: SERVICE,
          exclude: process.env.TEST_DATABASE_URL ? NEVER : [...NEVER, ...PGLITE_PART],
          globalSetup: ["lib/testing/global-setup.ts", CHAIN_STATE],
        },
      },
      {
        extends: true,
        test: { name: "pglite", include: PGLITE_PART, env: { TEST_DATABASE_URL: "" }, globalSetup: [CHAIN_STATE] },
      },
      {
        extends: true,
        test: {
          name: "rest",
          include: ALL,
          exclude: [...NEVER, ...SERVICE],
          env: { TEST_DATABASE_URL: "" },
          globalSetup: [CHAIN_STATE],
        },
      },
    ],
  },
});
