import { sql, type Kysely, type Migration } from "kysely";

// Several named keys per agent: a name people can tell apart, and an expiry that rotation
// sets on the old key so that it keeps working through the overlap window. Keys that already exist
// become the agent's "default" key and never expire.
export const agentKeysMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table api_keys add column name text not null default 'default';
alter table api_keys add column expires_at timestamptz;
`,
      )
      .execute(db);
  },
};
