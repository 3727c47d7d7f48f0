// The database's TypeScript types, generated from the schema the migrations build (kysely-codegen,
// on an in-memory PGlite: no server needed). `npm run db:types` writes them to
// database.generated.ts; database-types.test.ts fails when the checked-in file differs.
import { fileURLToPath } from "node:url";
import { generate, PostgresDialect } from "kysely-codegen";
import * as prettier from "prettier";
import { COLUMN_TYPES } from "./column-types";
import { openDatabase } from "./connection";

export const GENERATED_TYPES_FILE = fileURLToPath(new URL("./database.generated.ts", import.meta.url));

export async function generateDatabaseTypes(): Promise<string> {
  const db = await openDatabase({ dataDir: "memory://" });
  try {
    const text = await generate({
      db,
      dialect: new PostgresDialect(),
      outFile: null,
      // Kysely's own bookkeeping is not ours to query.
      excludePattern: "kysely_*",
      // int8 comes back as a number on both drivers (connection.ts sets pg's parser).
      typeMapping: { int8: "Int8" },
      overrides: { columns: COLUMN_TYPES },
      customImports: customImports(),
    });
    const options = await prettier.resolveConfig(GENERATED_TYPES_FILE);
    return prettier.format(text, { ...options, filepath: GENERATED_TYPES_FILE });
  } finally {
    await db.destroy();
  }
}

// Names the overrides may use that are not imported: TypeScript's own, and the generated file's own.
const TYPESCRIPT_OWN = new Set(["Array", "Record", "Exclude", "Omit", "Partial", "Generated", "ColumnType"]);

/** What the overrides name: column-types.ts's exports, and kysely's GeneratedAlways. */
function customImports(): Record<string, string> {
  const named = new Set(
    [...Object.values(COLUMN_TYPES), "Int8"].flatMap((type) => type.match(/\b[A-Z][A-Za-z0-9]+\b/g) ?? []),
  );
  const imports: Record<string, string> = {};
  for (const name of named) {
    if (TYPESCRIPT_OWN.has(name)) continue;
    imports[name] = name === "GeneratedAlways" ? "kysely#GeneratedAlways" : "./column-types";
  }
  return imports;
}
