// `npm run db:types`: regenerates lib/service/db/database.generated.ts from the migrated schema.
// Run it after adding or changing a migration (docs/conventions.md).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { generateDatabaseTypes, GENERATED_TYPES_FILE } from "@/lib/service/db/generate-types";

writeFileSync(GENERATED_TYPES_FILE, await generateDatabaseTypes());
console.log(`wrote ${path.relative(process.cwd(), GENERATED_TYPES_FILE)}`);
