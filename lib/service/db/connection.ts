import path from "node:path";
import fs from "node:fs";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { Database } from "./schema";
import { PGliteDialect } from "./pglite-dialect";
import { migrateToLatest } from "./migrate";

// int8 comes back from PGlite as a number; make node-postgres agree so that one code path serves
// both. Our counts stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

export type Db = Kysely<Database>;

export interface DatabaseOptions {
  /** A PostgreSQL server; when unset, PGlite keeps the data in-process under dataDir. */
  databaseUrl?: string;
  /** Where PGlite keeps its files; "memory://" for a throwaway database. */
  dataDir?: string;
  /** Pool size for a PostgreSQL server. */
  maxConnections?: number;
}

export async function openDatabase(options: DatabaseOptions): Promise<Db> {
  let db: Db;
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.maxConnections ?? 10 });
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  } else {
    const { PGlite } = await import("@electric-sql/pglite");
    const dataDir = options.dataDir ?? ".data";
    let location = dataDir;
    if (!dataDir.startsWith("memory://")) {
      location = path.resolve(dataDir, "pglite");
      fs.mkdirSync(location, { recursive: true });
    }
    const pglite = new PGlite(location);
    db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  }
  await migrateToLatest(db);
  return db;
}
