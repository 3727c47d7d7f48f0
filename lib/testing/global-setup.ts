import pg from "pg";

/**
 * On a PostgreSQL server, every test worker shares one database: start from an empty schema and let
 * the first connection migrate it, so that workers never race to create the same tables.
 */
export default async function setup() {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("drop schema if exists public cascade; create schema public;");
  } finally {
    await client.end();
  }
  const { openDatabase } = await import("../service/db/connection");
  const db = await openDatabase({ databaseUrl: url, maxConnections: 1 });
  await db.destroy();
}
