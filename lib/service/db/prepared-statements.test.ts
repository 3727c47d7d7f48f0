import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "./connection";
import { isDatabaseUnavailable } from "./errors";
import { MAX_NAMED, StatementNames } from "./prepared-statements";

describe("which queries run as named prepared statements", () => {
  it("names a text from its second run on, the same name every time", () => {
    const names = new StatementNames();
    const text = "select * from jobs where id = $1";
    expect(names.nameFor(text)).toBeNull();
    const name = names.nameFor(text);
    expect(name).toMatch(/^awm_\d+$/);
    expect(names.nameFor(text)).toBe(name);
    expect(names.nameFor("select 1 from bids where id = $1")).toBeNull();
  });

  it("never names transaction control, several statements in one text, or a full-text search", () => {
    const names = new StatementNames();
    for (const text of [
      "begin",
      "commit",
      "rollback",
      "savepoint a",
      "select 1; select 2",
      "create table t (a int)",
      "select id from jobs where search_document @@ websearch_to_tsquery('english', $1)",
    ]) {
      names.nameFor(text);
      expect(names.nameFor(text)).toBeNull();
    }
  });

  it("a semicolon in a line comment does not keep a statement from being named", () => {
    const names = new StatementNames();
    const text = "select * from jobs -- the job (its id; nothing else)\nwhere id = $1";
    names.nameFor(text);
    expect(names.nameFor(text)).toMatch(/^awm_\d+$/);
    const several = "select 1 -- one\n; select 2";
    names.nameFor(several);
    expect(names.nameFor(several)).toBeNull();
  });

  it("keeps at most MAX_NAMED texts, whatever a client varies", () => {
    const names = new StatementNames();
    for (let i = 0; i < MAX_NAMED + 50; i++) {
      names.nameFor(`select ${i}`);
      names.nameFor(`select ${i}`);
    }
    expect(names.size).toBe(MAX_NAMED);
    const past = `select ${MAX_NAMED + 10}`;
    expect(names.nameFor(past)).toBeNull();
  });
});

// A real database: the statements are kept per session, and a table change under one is survived.
// PGlite always (its dialect prepares too: pglite-dialect.ts), the PostgreSQL server when there is one.
const databases = [
  { name: "PGlite", open: () => openDatabase({ dataDir: "memory://" }) },
  ...(process.env.TEST_DATABASE_URL
    ? [
        {
          name: "PostgreSQL",
          // One connection, so the session that prepared is the one that is read back.
          open: () => openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL!, maxConnections: 1 }),
        },
      ]
    : []),
];

describe.each(databases)("prepared statements on $name", ({ open }) => {
  const table = `prepared_probe_${randomUUID().slice(0, 8)}`;
  let db: Db;

  beforeAll(async () => {
    db = await open();
    await sql`create table ${sql.table(table)} (id int primary key, a text)`.execute(db);
    await sql`insert into ${sql.table(table)} values (1, 'one')`.execute(db);
  });
  afterAll(async () => {
    await sql`drop table if exists ${sql.table(table)}`.execute(db);
    await db?.destroy();
  });

  const readAll = () => sql<Record<string, unknown>>`select * from ${sql.table(table)} where id = ${1}`.execute(db);

  it("runs a repeated query under a name its session keeps, with the same answer", async () => {
    for (let i = 0; i < 3; i++) expect((await readAll()).rows).toEqual([{ id: 1, a: "one" }]);
    const kept = await sql<{
      statement: string;
    }>`select statement from pg_prepared_statements where name like 'awm_%'`.execute(db);
    expect(kept.rows.map((r) => r.statement)).toContain(`select * from "${table}" where id = $1`);
  });

  it("a table changed under a kept statement costs one retryable answer, then reads the new shape", async () => {
    // Another session's migration; on PGlite, the one session's own.
    await sql`alter table ${sql.table(table)} add column b text default 'bee'`.execute(db);
    const first = await readAll().then(
      (result) => ({ rows: result.rows, error: null }),
      (error: unknown) => ({ rows: null, error }),
    );
    if (first.error) {
      // The router answers this as 503 with Retry-After (isDatabaseUnavailable), never as a 500.
      expect(isDatabaseUnavailable(first.error)).toBe(true);
    } else {
      expect(first.rows).toEqual([{ id: 1, a: "one", b: "bee" }]);
    }
    expect((await readAll()).rows).toEqual([{ id: 1, a: "one", b: "bee" }]);
    expect((await readAll()).rows).toEqual([{ id: 1, a: "one", b: "bee" }]);
  });
});
