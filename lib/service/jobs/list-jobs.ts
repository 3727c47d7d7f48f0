import { sql, type RawBuilder, type SelectQueryBuilder } from "kysely";
import type { z } from "zod";
import { JOB_SEARCH_RANKED, type JobSort, type ListJobsQuery } from "@/lib/api/schemas/jobs";
import type { ServiceContext } from "../context";
import type { Database, JobRow } from "../db/schema";
import type { Db } from "../db/connection";
import type { Actor } from "../auth/actor";
import { isAgentOrItsOwner } from "../auth/acting-for-agent";
import { fail } from "../errors";
import { decodeCursor, pageOf } from "../http/pagination";
import { JsonText } from "../http/envelope";
import { presentJob } from "./present-job";
import { JOB_VERSION, PROOF_HOLD_SQL, selectJobs, selectJobVersions, type JobWithRelations } from "./read-job";
import { jobRoleOf, seesDeliveredWork } from "./job-viewer";
import { keepPublicJobText, keptPublicJobText } from "./public-job-text";

const DEFAULT_LIMIT = 20;

type Query = z.output<typeof ListJobsQuery>;
type Row = JobWithRelations & { search_rank: string | number | null };
/** The columns the sorts read (with search_rank), chosen with the page and carried to its rows. */
const SORT_COLUMNS = ["created_at", "budget_usdc", "deadline_at", "bid_count", "updated_at", "search_rank"] as const;
/** What a sort key reads of a row. */
type SortRow = Pick<JobRow, Exclude<(typeof SORT_COLUMNS)[number], "search_rank">> & {
  search_rank: string | number | null;
};
/** A row of the page as first read: the sort's keys, the job's version and its parties (read-job.ts, selectJobVersions). */
type PageRow = SortRow &
  Pick<JobWithRelations, "id" | "poster_id" | "agent_id" | "agent_owner_user_id" | "poster_owner_user_id"> & {
    version: string;
  };

// The stored search document (migration 0024-job-search-document, GIN-indexed): matching uses the
// index and ranking reads the stored tsvector instead of rebuilding it from the text.
const DOCUMENT = sql`jobs.search_document`;

/** One column of a sort: its SQL, direction, how its cursor value is cast back, and read from a row. */
interface SortKey {
  expr: RawBuilder<unknown>;
  desc: boolean;
  cast: "timestamptz" | "numeric" | "real" | "bigint";
  valueOf: (row: SortRow) => string;
  /** The cursor value is something the cast accepts (anything else is a 400, never a 500). */
  valid: (value: string) => boolean;
}

// Only what this list itself writes into cursors: an ISO instant that reads back to itself (so no
// 30 February reaches the database), and ranks of ts_rank_cd's range, far inside a real's.
const isTimestamp = (v: string) =>
  v === "infinity" || (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(v) && new Date(v).toISOString() === v);
const isRank = (v: string) => /^\d+(\.\d+)?(e-\d+)?$/i.test(v) && Number(v) <= 1e6;
const CREATED: SortKey = {
  expr: sql`jobs.created_at`,
  desc: true,
  cast: "timestamptz",
  valueOf: (r) => r.created_at.toISOString(),
  valid: isTimestamp,
};
const BUDGET = (desc: boolean): SortKey => ({
  expr: sql`jobs.budget_usdc`,
  desc,
  cast: "numeric",
  valueOf: (r) => String(r.budget_usdc),
  valid: (v) => /^\d{1,14}(\.\d{1,6})?$/.test(v),
});

/**
 * Each sort is a list of keys, newest first as the last tie-break before the id (so equal budgets,
 * deadlines or bid counts read newest first), and the id last: the order is total, so keyset pages
 * neither repeat nor skip a row.
 */
type SortName = z.output<typeof JobSort> | "updated";
const SORTS: Record<SortName, SortKey[]> = {
  newest: [CREATED],
  budget_desc: [BUDGET(true), CREATED],
  budget_asc: [BUDGET(false), CREATED],
  // Soonest first; a job without a deadline sorts as if due at infinity, i.e. last.
  deadline: [
    {
      expr: sql`coalesce(jobs.deadline_at, 'infinity'::timestamptz)`,
      desc: false,
      cast: "timestamptz",
      valueOf: (r) => r.deadline_at?.toISOString() ?? "infinity",
      valid: isTimestamp,
    },
    CREATED,
  ],
  // bid_count is kept on the job by the database (migration 0026), indexed in this order.
  fewest_bids: [
    {
      expr: sql`jobs.bid_count`,
      desc: false,
      cast: "bigint",
      valueOf: (r) => String(r.bid_count),
      valid: (v) => /^\d{1,12}$/.test(v),
    },
    CREATED,
  ],
  // ts_rank_cd is a real (float4); its text form reads back to the same float4, and the cursor is
  // compared with the very expression the order uses, so a rank round-trips exactly.
  relevance: [
    { expr: sql`search_rank`, desc: true, cast: "real", valueOf: (r) => String(r.search_rank), valid: isRank },
    CREATED,
  ],
  // With updatedAfter: the changes in the order they were made, oldest first (jobs_updated_idx,
  // migration 0045; updated_at is stored to the millisecond, so the cursor's value is exact).
  updated: [
    {
      expr: sql`jobs.updated_at`,
      desc: false,
      cast: "timestamptz",
      valueOf: (r) => r.updated_at.toISOString(),
      valid: isTimestamp,
    },
  ],
};

/**
 * The board. Every sort is keyset-paginated: the cursor carries the sort's key values and the id of
 * the page's last row (never an OFFSET), so page 5,000 costs what page 1 does. The newest sort keeps
 * its cursor as before (the created_at alone); the others tag theirs with the sort, and a cursor of
 * one sort given to another is a 400. Rows are presented for the caller: its own jobs carry their
 * private fields, others not; each row carries bidCount.
 */
/**
 * The agent whose bids `excludeBidBy` leaves out: only the caller's own ("me" for an agent key, or
 * an agent the caller acts for), since a list without the jobs another agent bid on would tell
 * anyone which jobs that agent bid on. Anything else is a 400.
 */
async function ownBidderOf(ctx: ServiceContext, actor: Actor | null, value: string | undefined) {
  if (value === undefined) return undefined;
  if (value === "me") {
    if (actor?.kind === "AGENT") return actor.agentId;
    throw fail("VALIDATION_FAILED", [
      actor
        ? "excludeBidBy=me needs an agent key; a person passes the id of an agent they own"
        : "excludeBidBy needs a credential: it names the caller's own agent",
    ]);
  }
  if (actor && (await isAgentOrItsOwner(ctx, actor, value))) return value;
  throw fail("VALIDATION_FAILED", [
    'excludeBidBy must be "me" or the id of your own agent (which jobs another agent bid on is not public)',
  ]);
}

export async function listJobs(ctx: ServiceContext, actor: Actor | null, asked: Query) {
  const query = asked.excludeBidBy
    ? { ...asked, excludeBidBy: await ownBidderOf(ctx, actor, asked.excludeBidBy) }
    : asked;
  const limit = query.limit ?? DEFAULT_LIMIT;
  const sortName: SortName =
    query.updatedAfter !== undefined ? "updated" : (query.sort ?? (query.q ? "relevance" : "newest"));
  const keys = SORTS[sortName];
  const after = decodeJobCursor(query.cursor, sortName, keys);
  const changes =
    query.updatedAfter !== undefined
      ? { after: new Date(query.updatedAfter), before: await changeHorizon(ctx.db) }
      : null;

  // The page is chosen first, from the jobs table alone and with only the columns its order reads.
  let positions = ctx.db
    .selectFrom(sortableMatches(ctx.db, query, sortName, changes).as("jobs"))
    .select(["jobs.id", ...SORT_COLUMNS.map((column) => `jobs.${column}` as const)]);
  if (after) positions = positions.where(afterPosition(keys, after.values, after.id));
  positions = inSortOrder(positions, keys).limit(limit + 1);
  const pageOfRows = <R extends SortRow & { id: string }>(rows: R[]) =>
    pageOf(rows, limit, (row) => ({ k: encodeKey(sortName, keys, row), id: row.id }), "/v1/jobs/:id/public");

  // Then each job's wire form: kept by version for whoever is not a party to the job
  // (public-job-text.ts), so the page's rows are read in full only for the jobs with no kept form.
  // The two reads are two statements: a job that changed between them is read again with the page.
  for (let attempt = 0; attempt < 3; attempt++) {
    const rows = (await inSortOrder(
      selectJobVersions(ctx.db)
        .innerJoin(positions.as("page"), "page.id", "jobs.id")
        .select(SORT_COLUMNS.map((column) => `page.${column}` as const)),
      keys,
    ).execute()) as PageRow[];
    const paged = pageOfRows(rows);
    const texts = await wireForms(ctx, actor, paged.rows);
    if (texts) return { items: paged.rows.map((row) => new JsonText(texts.get(row.id)!)), meta: paged.meta };
  }
  // The page kept changing under the two reads: read it in one statement, every row in full.
  const page = selectJobs(ctx.db).innerJoin(positions.as("page"), "page.id", "jobs.id").select("page.search_rank");
  const rows = (await inSortOrder(ctx.db.selectFrom(page.as("jobs")).selectAll(), keys).execute()) as unknown as Row[];
  const paged = pageOfRows(rows);
  return { items: paged.rows.map((row) => presentListedJob(row, actor)), meta: paged.meta };
}

/** A job as a list shows it: presented for the caller, with its bidCount. */
function presentListedJob(row: JobWithRelations, actor: Actor | null) {
  return { ...presentJob(row, actor), bidCount: row.bid_count };
}

/**
 * The wire form of each job of the page, as JSON text: kept ones by version, the others read in
 * full and kept (a party's view is built for it alone). Null when a job's version is no longer the
 * one the page was read at: the caller reads the page again.
 */
async function wireForms(
  ctx: ServiceContext,
  actor: Actor | null,
  rows: PageRow[],
): Promise<Map<string, string> | null> {
  const texts = new Map<string, string>();
  const missing = new Map<string, PageRow>();
  const parties = new Set<string>();
  for (const row of rows) {
    if (seesDeliveredWork(jobRoleOf(actor, row))) parties.add(row.id);
    const kept = parties.has(row.id) ? undefined : keptPublicJobText(row.id, row.version);
    if (kept !== undefined) texts.set(row.id, kept);
    else missing.set(row.id, row);
  }
  if (missing.size === 0) return texts;
  const full = await selectJobs(ctx.db)
    .select(JOB_VERSION.as("version"))
    .where("jobs.id", "in", [...missing.keys()])
    .execute();
  if (full.length !== missing.size || full.some((row) => row.version !== missing.get(row.id)?.version)) return null;
  for (const row of full) {
    const text = JSON.stringify(presentListedJob(row, actor));
    // Same version, same parties: who is a party was read with the page.
    if (!parties.has(row.id)) keepPublicJobText(row.id, row.version, text);
    texts.set(row.id, text);
  }
  return texts;
}

/**
 * The jobs the board's filters match, with the columns the sorts read. Relevance ranks the newest
 * JOB_SEARCH_RANKED matches (the window is taken by the created_at index, or from the GIN index when
 * the words are rare): ranking every match of a word in every job would cost a scan of the whole
 * table per search, and a marketplace's relevant work is its recent work. Other sorts, sort=newest
 * included, page through every match.
 */
function sortableMatches(db: Db, query: Query, sortName: SortName, changes: { after: Date; before: Date } | null) {
  const relevance = sortName === "relevance" && query.q !== undefined;
  const matches = filterBoard(db.selectFrom("jobs"), query)
    .$if(changes !== null, (qb) =>
      qb.where("jobs.updated_at", ">", changes!.after).where("jobs.updated_at", "<", changes!.before),
    )
    .select(["jobs.id", "jobs.created_at", "jobs.budget_usdc", "jobs.deadline_at", "jobs.bid_count", "jobs.updated_at"])
    .$if(relevance, (qb) =>
      qb
        .select("jobs.search_document")
        .orderBy("jobs.created_at", "desc")
        .orderBy("jobs.id", "desc")
        .limit(JOB_SEARCH_RANKED),
    );
  const rank = relevance
    ? sql<number | null>`ts_rank_cd(${DOCUMENT}, websearch_to_tsquery('english', ${query.q}))`
    : sql<number | null>`null::real`;
  return db.selectFrom(matches.as("jobs")).selectAll().select(rank.as("search_rank"));
}

/** Orders by the sort's keys, then the id. */
function inSortOrder<DB, TB extends keyof DB, O>(
  q: SelectQueryBuilder<DB, TB, O>,
  keys: SortKey[],
): SelectQueryBuilder<DB, TB, O> {
  let ordered = q;
  for (const key of keys) ordered = ordered.orderBy(key.expr, key.desc ? "desc" : "asc");
  return ordered.orderBy(sql`jobs.id`, idDescending(keys) ? "desc" : "asc");
}

/** The board's filters (everything of its query but the sort and the page), the one home of what "a job matches" means: the board and saved searches (saved-searches.ts) both apply it. */
export type BoardFilters = Omit<Query, "sort" | "limit" | "cursor" | "updatedAfter">;

/**
 * The instant before which every change to a job is committed and visible: the start of the oldest
 * transaction still open on this database (a job row it writes carries an updatedAt at or after
 * it: migration 0045), or now when there is none. Read in a statement of its own, before the list's:
 * a transaction open when the list's snapshot is taken was either seen here or began after this
 * read. A poll lists changes before this instant only, and the next poll starts from the last one
 * it listed, so a change committed late is listed late, never skipped. Reading other sessions'
 * xact_start needs track_activities (the default) and one database role for the service, or
 * pg_read_all_stats. PGlite has one connection: no other transaction is ever open.
 */
async function changeHorizon(db: Db): Promise<Date> {
  const row = await sql<{ horizon: Date }>`
    select date_trunc('milliseconds', least(clock_timestamp(), (
      select min(xact_start) from pg_stat_activity
      where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()))) as horizon`.execute(
    db,
  );
  return row.rows[0]!.horizon;
}

export function filterBoard<O>(
  jobs: SelectQueryBuilder<Database, "jobs", O>,
  query: BoardFilters,
): SelectQueryBuilder<Database, "jobs", O> {
  let q = jobs;
  if (query.q) q = q.where(sql<boolean>`${DOCUMENT} @@ websearch_to_tsquery('english', ${query.q})`);
  if (query.status) q = q.where("jobs.status", "=", query.status);
  if (query.participationMode) q = q.where("jobs.participation_mode", "=", query.participationMode);
  if (query.purpose) q = q.where("jobs.purpose", "=", query.purpose);
  // Referral slots are AUTOMATIC_FORUM_REWARD jobs too; both tests keep the two boards complementary.
  if (query.board === "marketplace")
    q = q.where("jobs.purpose", "=", "MARKETPLACE").where("jobs.participation_mode", "!=", "AUTOMATIC_FORUM_REWARD");
  if (query.board === "rewards")
    q = q.where((eb) =>
      eb.or([
        eb("jobs.purpose", "=", "PLATFORM_REFERRAL"),
        eb("jobs.participation_mode", "=", "AUTOMATIC_FORUM_REWARD"),
      ]),
    );
  if (query.posterId) q = q.where("jobs.poster_id", "=", query.posterId);
  if (query.requiredPackId) q = q.where("jobs.required_pack_id", "=", query.requiredPackId);
  if (query.funded === true) q = q.where("jobs.escrow_tx_hash", "is not", null);
  if (query.funded === false) q = q.where("jobs.escrow_tx_hash", "is", null);
  if (query.maxProofHoldHours !== undefined) q = q.where(PROOF_HOLD_SQL, "<=", query.maxProofHoldHours);
  if (query.minBudget !== undefined) q = q.where(sql<boolean>`jobs.budget_usdc >= ${query.minBudget}::numeric`);
  if (query.maxBudget !== undefined) q = q.where(sql<boolean>`jobs.budget_usdc <= ${query.maxBudget}::numeric`);
  if (query.skills?.length) {
    // Any of the skills, required or preferred, ignoring case.
    const wanted = query.skills.map((s) => s.toLowerCase());
    q = q.where(
      sql<boolean>`exists (select 1 from unnest(jobs.required_skills || jobs.preferred_skills) as skill where lower(skill) = any(${wanted}::text[]))`,
    );
  }
  if (query.excludeBidBy) {
    const agentId = query.excludeBidBy;
    q = q.where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("bids")
            .select(sql`1`.as("one"))
            .whereRef("bids.job_id", "=", "jobs.id")
            .where("bids.agent_id", "=", agentId),
        ),
      ),
    );
  }
  return q;
}

/** The id breaks the last ties, in the direction of the last key (created_at, descending, in every sort). */
function idDescending(keys: SortKey[]): boolean {
  return keys[keys.length - 1]!.desc;
}

/**
 * Rows strictly after the cursor in the sort's order: (k1 beyond v1) or (k1 = v1 and k2 beyond v2)
 * … or (all equal and id beyond). Spelt out key by key, since the keys may run in different directions.
 */
function afterPosition(keys: SortKey[], values: string[], id: string): RawBuilder<boolean> {
  const beyond = (expr: RawBuilder<unknown>, desc: boolean, value: RawBuilder<unknown>) =>
    desc ? sql`${expr} < ${value}` : sql`${expr} > ${value}`;
  const cast = (key: SortKey, value: string) => sql`cast(${value} as ${sql.raw(key.cast)})`;
  const terms: RawBuilder<unknown>[] = [];
  for (let i = 0; i <= keys.length; i += 1) {
    const equal = keys.slice(0, i).map((key, j) => sql`${key.expr} = ${cast(key, values[j]!)}`);
    const last =
      i < keys.length
        ? beyond(keys[i]!.expr, keys[i]!.desc, cast(keys[i]!, values[i]!))
        : beyond(sql`jobs.id`, idDescending(keys), sql`${id}::uuid`);
    terms.push(sql`(${sql.join([...equal, last], sql` and `)})`);
  }
  return sql<boolean>`(${sql.join(terms, sql` or `)})`;
}

/** newest: the created_at alone (the cursor every client already holds); other sorts: "sort|v1|v2…". */
function encodeKey(sortName: string, keys: SortKey[], row: SortRow): string {
  const values = keys.map((key) => key.valueOf(row));
  return sortName === "newest" ? values[0]! : [sortName, ...values].join("|");
}

function decodeJobCursor(
  cursor: string | undefined,
  sortName: SortName,
  keys: SortKey[],
): { values: string[]; id: string } | null {
  const parse = (k: string | number): string[] | null => {
    if (typeof k !== "string") return null;
    const values = sortName === "newest" ? [k] : k.split("|");
    if (sortName !== "newest" && values.shift() !== sortName) return null;
    if (values.length !== keys.length || !keys.every((key, i) => key.valid(values[i]!))) return null;
    return values;
  };
  const position = decodeCursor(cursor, undefined, (k) => parse(k) !== null);
  return position ? { values: parse(position.k)!, id: position.id } : null;
}
