import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(__dirname),
      // `server-only` throws outside React Server Components; in tests every module is server code.
      "server-only": path.resolve(__dirname, "lib/testing/empty-module.ts"),
    },
  },
  test: {
    include: ["**/*.test.ts", "**/*.test.tsx"],
    exclude: ["node_modules/**", "e2e/**", ".next*/**", ".data*/**", "packages/*/dist/**"],
    globalSetup: ["lib/testing/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two cores: more workers only fight over them.
    maxWorkers: 2,
  },
});
