import { Migrator, type Kysely, type Migration, type MigrationProvider } from "kysely";
import { migrations } from "./migrations";

// Migrations are imported as modules (not read from a folder at run time) so that they survive
// bundling by Next and run the same under vitest, scripts and the server.
const provider: MigrationProvider = {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  },
};

export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    throw new Error(`database migration failed${failed ? ` at ${failed.migrationName}` : ""}: ${String(error)}`);
  }
}
