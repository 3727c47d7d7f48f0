import { readdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, sql, type Migration } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "./migrate";
import { migrations } from "./migrations";
import { PGliteDialect } from "./pglite-dialect";

// The migrations run in the order of their names (Kysely sorts them). The index lists them in that
// order, one entry per file, each under its file's name, so reading it is reading the run order.

describe("the migration index", () => {
  it("lists every migration file once, under the file's name, in the order of the names", () => {
    const files = readdirSync(path.join(__dirname, "migrations"))
      .filter((file) => /^\d{4}-.+\.ts$/.test(file))
      .map((file) => file.replace(/\.ts$/, ""));
    expect(Object.keys(migrations)).toEqual([...files].sort());
  });
});

// A database whose history was written while the early migrations landed out of order (their numbers
// were handed out in ranges to branches that merged in another order) still starts; a name out of
// order past those is refused.
describe("a database migrated while the early migrations landed out of order", () => {
  // One PGlite (it takes seconds to start), emptied after each test.
  let db: Kysely<any>;
  beforeAll(() => {
    db = new Kysely<any>({ dialect: new PGliteDialect(new PGlite()) });
  });
  afterEach(async () => {
    await sql`drop schema public cascade; create schema public`.execute(db);
  });
  afterAll(() => db.destroy());

  const created = (table: string): Migration => ({
    up: async (trx) => {
      await sql`create table ${sql.table(table)} (id int)`.execute(trx);
    },
  });
  const history = async () =>
    (await sql<{ name: string }>`select name from kysely_migration order by timestamp, name`.execute(db)).rows.map(
      (row) => row.name,
    );

  it("runs the early one it lacks, then keeps its history in the order of the names", async () => {
    const database = db;
    // Landing order: 0049 merged before 0017 existed.
    await migrateToLatest(database, { "0001-core": created("core"), "0049-milestones": created("milestones") });
    await migrateToLatest(database, {
      "0001-core": created("core"),
      "0017-admin": created("admin"),
      "0049-milestones": created("milestones"),
      "0105-later": created("later"),
    });
    expect(await history()).toEqual(["0001-core", "0017-admin", "0049-milestones", "0105-later"]);
    const tables = await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = 'public'
      and tablename in ('core', 'admin', 'milestones', 'later') order by tablename`.execute(database);
    expect(tables.rows.map((row) => row.name)).toEqual(["admin", "core", "later", "milestones"]);
  });

  it("refuses a migration whose name sorts before one already run, past the early ones", async () => {
    const database = db;
    await migrateToLatest(database, { "0001-core": created("core"), "0107-b": created("b") });
    await expect(
      migrateToLatest(database, { "0001-core": created("core"), "0106-a": created("a"), "0107-b": created("b") }),
    ).rejects.toThrow(/0106-a|alphabetically/);
  });
});
