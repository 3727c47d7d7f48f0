import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "./connection";
import { isUniqueViolation } from "./errors";
import { migrations } from "./migrations";

// The embedded default: with no DATABASE_URL the service keeps its data with PGlite in DATA_DIR.
// `npm test` runs the service suite in full on PostgreSQL, and on PGlite only the part that differs
// (vitest.config.ts): what only PGlite does is tested here, on a PGlite this file opens itself.

const dataDir = mkdtempSync(path.join(tmpdir(), "pglite-default-"));
let db: Db;
beforeAll(async () => {
  db = await openDatabase({ dataDir: "memory://" });
});
afterAll(async () => {
  await db.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the embedded database (PGlite in DATA_DIR)", () => {
  it("starts empty, runs every migration once in order, and keeps its data across a restart", async () => {
    const first = await openDatabase({ dataDir });
    const ran = await sql<{ name: string }>`select name from kysely_migration order by timestamp, name`.execute(first);
    expect(ran.rows.map((row) => row.name)).toEqual(Object.keys(migrations));
    await sql`create table restart_probe (id int primary key)`.execute(first);
    await sql`insert into restart_probe values (1)`.execute(first);
    await first.destroy();

    const second = await openDatabase({ dataDir });
    const again = await sql<{ count: number }>`select count(*)::int as count from kysely_migration`.execute(second);
    expect(again.rows[0]!.count).toBe(Object.keys(migrations).length);
    const kept = await sql<{ id: number }>`select id from restart_probe`.execute(second);
    expect(kept.rows).toEqual([{ id: 1 }]);
    await second.destroy();
  });

  it("answers int8 as a number, and a unique violation as one, as the PostgreSQL driver does", async () => {
    const row = await sql<{ big: unknown }>`select 9007199254740::int8 as big`.execute(db);
    expect(row.rows[0]!.big).toBe(9007199254740);
    await sql`create table unique_probe (id int constraint unique_probe_pk primary key)`.execute(db);
    await sql`insert into unique_probe values (1)`.execute(db);
    const error = await sql`insert into unique_probe values (1)`.execute(db).catch((e: unknown) => e);
    expect(isUniqueViolation(error, "unique_probe_pk")).toBe(true);
  });

  it("runs one transaction at a time on its single connection: a second waits, it does not interleave", async () => {
    await sql`create table queue_probe (step text)`.execute(db);
    const order: string[] = [];
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    const first = db.transaction().execute(async (trx) => {
      await sql`insert into queue_probe values ('first-in')`.execute(trx);
      order.push("first-in");
      await firstHolds;
      await sql`insert into queue_probe values ('first-out')`.execute(trx);
      order.push("first-out");
    });
    const second = db.transaction().execute(async (trx) => {
      order.push("second");
      await sql`insert into queue_probe values ('second')`.execute(trx);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(["first-in", "first-out", "second"]);
  });
});
