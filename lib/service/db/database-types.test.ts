import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { generateDatabaseTypes, GENERATED_TYPES_FILE } from "./generate-types";

// The row types the code compiles against are the schema the migrations build: a migration without
// `npm run db:types` fails here, before it fails in production.
it("database.generated.ts is what the migrations generate (run `npm run db:types` after changing one)", async () => {
  const generated = await generateDatabaseTypes();
  expect(readFileSync(GENERATED_TYPES_FILE, "utf8")).toBe(generated);
});
