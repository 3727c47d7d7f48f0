import { fail } from "../errors";
import { sql } from "kysely";
import type { z } from "zod";
import { ListJobsQuery } from "@/lib/api/schemas/jobs";
import {
  SAVED_SEARCH_DROPPED_FIELDS,
  SAVED_SEARCH_LIMIT,
  type CreateSavedSearchRequest,
  type SavedSearch,
} from "@/lib/api/schemas/notifications";
import type { Actor } from "../auth/actor";
import type { ServiceContext } from "../context";
import type { Db } from "../db/connection";
import { publishEvent } from "../events/publish-event";
import { pageOf } from "../http/pagination";
import { filterBoard } from "./list-jobs";
import { actorIdOf } from "../events/recipients";

type SavedRow = { id: string; name: string; query: Record<string, unknown>; created_at: Date };

/** The board URL of a saved query: the same parameters the board page reads. */
function boardPathOf(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.set(key, Array.isArray(value) ? value.join(",") : String(value));
  }
  const text = params.toString();
  return text ? `/jobs?${text}` : "/jobs";
}

/** A readable name when none is given: the search text and the filters. */
function defaultNameOf(query: Record<string, unknown>): string {
  const parts = Object.entries(query)
    .filter(([key]) => key !== "sort")
    .map(([key, value]) =>
      key === "q" ? `“${String(value)}”` : `${key}: ${Array.isArray(value) ? value.join(", ") : String(value)}`,
    );
  return (parts.join(" · ") || "All jobs").slice(0, 100);
}

function presentSavedSearch(row: SavedRow): SavedSearch {
  return {
    id: row.id,
    name: row.name,
    query: row.query,
    boardPath: boardPathOf(row.query),
    createdAt: row.created_at.toISOString(),
  };
}

export async function createSavedSearch(
  ctx: ServiceContext,
  actor: Actor,
  input: z.output<typeof CreateSavedSearchRequest>,
) {
  const query: Record<string, unknown> = { ...input.query };
  for (const field of SAVED_SEARCH_DROPPED_FIELDS) delete query[field];
  const ownerId = actorIdOf(actor);
  const row = await ctx.db.transaction().execute(async (trx) => {
    // One saver at a time per owner, so two parallel saves cannot both pass the limit.
    await sql`select pg_advisory_xact_lock(hashtext(${`saved-searches:${ownerId}`}))`.execute(trx);
    const count = await trx
      .selectFrom("saved_searches")
      .select(sql<string>`count(*)`.as("n"))
      .where("owner_id", "=", ownerId)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= SAVED_SEARCH_LIMIT)
      throw fail("SAVED_SEARCH_LIMIT", `you keep ${SAVED_SEARCH_LIMIT} saved searches already; delete one first`, {
        limit: SAVED_SEARCH_LIMIT,
      });
    return trx
      .insertInto("saved_searches")
      .values({
        owner_id: ownerId,
        owner_principal_id: actor.principalId,
        name: input.name ?? defaultNameOf(query),
        query: JSON.stringify(query),
      })
      .returning(["id", "name", "query", "created_at"])
      .executeTakeFirstOrThrow();
  });
  return presentSavedSearch(row);
}

export async function listSavedSearches(ctx: ServiceContext, actor: Actor) {
  const rows = await ctx.db
    .selectFrom("saved_searches")
    .select(["id", "name", "query", "created_at"])
    .where("owner_id", "=", actorIdOf(actor))
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(SAVED_SEARCH_LIMIT + 1)
    .execute();
  const page = pageOf(rows, SAVED_SEARCH_LIMIT, (row) => ({ k: row.created_at.toISOString(), id: row.id }));
  return { items: page.rows.map(presentSavedSearch), meta: page.meta };
}

export async function deleteSavedSearch(ctx: ServiceContext, actor: Actor, id: string) {
  const deleted = await ctx.db
    .deleteFrom("saved_searches")
    .where("id", "=", id)
    .where("owner_id", "=", actorIdOf(actor))
    .returning("id")
    .executeTakeFirst();
  if (!deleted) throw fail("NOT_FOUND", "saved search not found");
  return { deleted: true };
}

/**
 * Tells the owners of saved searches that a job now matches them (saved_search.matched), in the
 * caller's transaction: called when a job is created and when it is funded (a search for funded
 * jobs matches then). "Matches" is the board's own filter (filterBoard), applied to this one job;
 * a (search, job) pair is told once (saved_search_matches), and nobody is told about their own job.
 * A stored query that no longer parses (the board's rules changed) is skipped, never a failure of
 * the change that called this.
 */
export async function matchSavedSearches(trx: Db, jobId: string): Promise<number> {
  const job = await trx.selectFrom("jobs").select(["id", "poster_id"]).where("id", "=", jobId).executeTakeFirst();
  if (!job) return 0;
  const searches = await trx
    .selectFrom("saved_searches")
    .select(["id", "owner_id", "name", "query"])
    .where("owner_principal_id", "!=", job.poster_id)
    .execute();
  let told = 0;
  for (const search of searches) {
    const parsed = ListJobsQuery.safeParse(search.query);
    if (!parsed.success) continue;
    const hit = await filterBoard(trx.selectFrom("jobs"), parsed.data)
      .where("jobs.id", "=", jobId)
      .select(sql`1`.as("one"))
      .executeTakeFirst();
    if (!hit) continue;
    const fresh = await trx
      .insertInto("saved_search_matches")
      .values({ saved_search_id: search.id, job_id: jobId })
      .onConflict((oc) => oc.doNothing())
      .returning("job_id")
      .executeTakeFirst();
    if (!fresh) continue;
    await publishEvent(trx, {
      type: "saved_search.matched",
      jobId,
      to: [search.owner_id],
      actorId: null,
      data: { savedSearchId: search.id, searchName: search.name, jobId },
    });
    told += 1;
  }
  return told;
}
