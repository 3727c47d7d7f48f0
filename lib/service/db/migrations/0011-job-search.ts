import { sql, type Kysely, type Migration } from "kysely";

// Full-text search of the board (GET /v1/jobs?q=, lib/service/jobs/list-jobs.ts). The document of a
// job is title (weight A), skills (B) and description (C), English stemming; ts_rank_cd reads the
// weights when the list sorts by relevance.
// An expression index rather than a stored generated column: every job read selects all of the
// jobs row (present-job.ts), and a stored tsvector would travel with each of them for nothing.
// The expression lives in one immutable function, used by both the index and the query, so the
// planner matches them. array_to_string is only "stable" in general (element output functions may
// read settings); for text elements it is immutable, which is what the declaration promises.
export const jobSearchMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create function job_search_document(title text, description text, required_skills text[], preferred_skills text[])
  returns tsvector
  language sql immutable parallel safe
  as $$
    select setweight(to_tsvector('english', coalesce(title, '')), 'A')
        || setweight(to_tsvector('english', coalesce(array_to_string(required_skills || preferred_skills, ' '), '')), 'B')
        || setweight(to_tsvector('english', coalesce(description, '')), 'C')
  $$;

create index jobs_search_idx on jobs using gin (job_search_document(title, description, required_skills, preferred_skills));
`,
      )
      .execute(db);
  },
};
