import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from "kysely";
import { migrations as allMigrations } from "./migrations";

// Migrations are imported as modules (not read from a folder at run time) so that they survive
// bundling by Next and run the same under vitest, scripts and the server.

/**
 * Migrations whose number is at most this one were numbered in ranges handed to branches worked on
 * in parallel, and landed in the order the branches merged, not in the order of their names. A
 * database may have run them in landing order, or still lack one whose name sorts before one it
 * ran. Past this number every new migration sorts after every landed one (Kysely refuses one that
 * does not: a name out of order is a mistake to fix before it lands).
 */
export const LANDED_OUT_OF_ORDER_THROUGH = "0104";

const MIGRATION_TABLE = "kysely_migration";

export async function migrateToLatest(
  db: Kysely<any>,
  migrations: Record<string, Migration> = allMigrations,
): Promise<void> {
  await bringHistoryIntoNameOrder(db, migrations);
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  // Runs what is pending in the order of the names, and refuses a database whose history is not
  // the first names in that order.
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    throw new Error(`database migration failed${failed ? ` at ${failed.migrationName}` : ""}: ${String(error)}`);
  }
}

/**
 * A database migrated while the early migrations landed out of order: first run the early ones it
 * lacks (as Kysely's unordered mode did), then record its history in the order of the names, so the
 * ordered migrator finds it to be a prefix of the list. A fresh database has nothing to repair.
 */
async function bringHistoryIntoNameOrder(db: Kysely<any>, migrations: Record<string, Migration>): Promise<void> {
  const exists = await sql<{ table: string | null }>`select to_regclass(${MIGRATION_TABLE})::text as table`.execute(db);
  if (!exists.rows[0]?.table) return;
  await db.transaction().execute(async (trx) => {
    // One instance repairs at a time; another starting beside it waits and finds the work done.
    await sql`lock table ${sql.table(MIGRATION_TABLE)} in exclusive mode`.execute(trx);
    const rows = await trx.selectFrom(MIGRATION_TABLE).select(["name", "timestamp"]).execute();
    const ran = new Set(rows.map((row) => row.name as string));
    const last = [...ran].sort().at(-1);
    const names = Object.keys(migrations).sort();
    const early = (name: string) => name.slice(0, LANDED_OUT_OF_ORDER_THROUGH.length) <= LANDED_OUT_OF_ORDER_THROUGH;
    for (const name of names) {
      if (ran.has(name) || !last || name > last || !early(name)) continue;
      await migrations[name]!.up(trx);
      await trx.insertInto(MIGRATION_TABLE).values({ name, timestamp: new Date().toISOString() }).execute();
      ran.add(name);
      rows.push({ name, timestamp: new Date().toISOString() });
    }
    const byTime = [...rows]
      .sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp) || (a.name < b.name ? -1 : 1))
      .map((row) => row.name as string);
    const byName = [...ran].sort();
    const isPrefix = byName.every((name, i) => names[i] === name);
    if (!isPrefix || byTime.every((name, i) => byName[i] === name)) return;
    // Kysely orders a history by its timestamps: give them the order of the names, 1 ms apart.
    const first = Math.min(...rows.map((row) => Date.parse(row.timestamp)));
    for (const [i, name] of byName.entries()) {
      await trx
        .updateTable(MIGRATION_TABLE)
        .set({ timestamp: new Date(first + i).toISOString() })
        .where("name", "=", name)
        .execute();
    }
  });
}
