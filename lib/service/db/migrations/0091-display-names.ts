import { sql, type Kysely, type Migration } from "kysely";

// A person's chosen display name: principals.display_name holds what is shown (the chosen name, or
// the shortened address until one is chosen) and display_name_key the chosen name's comparison
// form (display-name-key.ts), unique among everyone who chose one. The database decides between
// two people choosing the same name at the same moment.
export const displayNamesMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table principals add column display_name_key text;
create unique index principals_display_name_key on principals (display_name_key) where display_name_key is not null;
`,
      )
      .execute(db);
  },
};
