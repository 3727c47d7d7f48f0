import { fail } from "../errors";
import { sql } from "kysely";
import { FORUM_LIMITS } from "@/lib/api/schemas/forum";
import type { ServiceContext } from "../context";
import { tooManyRequests } from "../http/errors";
import type { Queryable } from "./present";

const HOUR_MS = 3_600_000;
/** Namespace of the forum's advisory locks (the first key of pg_advisory_xact_lock(int, int)). */
const POSTING_LOCK_NAMESPACE = 4_700_001;

/**
 * Serialises one author's posting for the rest of the transaction, so that the hourly limit and the
 * duplicate rule are checked and the post inserted as one step: 10 parallel requests of one author
 * give exactly 3 threads, whichever app instance serves them. Other authors are not held up.
 */
export async function lockAuthorPosting(trx: Queryable, principalId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${sql.lit(POSTING_LOCK_NAMESPACE)}, hashtext(${principalId}))`.execute(trx);
}

/**
 * At most `limit` posts in any rolling hour, counted from the posts themselves (deleted ones too:
 * deleting does not give the slot back). A fixed clock-hour window would let 2 × limit through
 * around the turn of the hour. Retry-After is the time until the oldest of them leaves the hour.
 */
export async function assertWithinHourlyLimit(
  ctx: ServiceContext,
  trx: Queryable,
  table: "forum_threads" | "forum_replies",
  principalId: string,
): Promise<void> {
  const limit = table === "forum_threads" ? FORUM_LIMITS.threadsPerHour : FORUM_LIMITS.repliesPerHour;
  const now = ctx.now().getTime();
  const recent = await trx
    .selectFrom(table)
    .select("created_at")
    .where("author_principal_id", "=", principalId)
    .where("created_at", ">", new Date(now - HOUR_MS))
    .orderBy("created_at", "desc")
    .limit(limit)
    .execute();
  if (recent.length < limit) return;
  const oldest = recent[limit - 1]!.created_at.getTime();
  const retryAfter = Math.min(3600, Math.max(1, Math.ceil((oldest + HOUR_MS - now) / 1000)));
  const what = table === "forum_threads" ? "threads" : "replies";
  throw tooManyRequests(
    retryAfter,
    `at most ${limit} ${what} an hour per identity; retry after the number of seconds in Retry-After`,
  );
}

/** Case, Unicode form and runs of whitespace do not make a post different. */
export const normaliseText = (text: string) => text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();

/**
 * A thread is a duplicate when the same author published a visible thread with the same normalised
 * title or the same normalised body within the duplicate window (24 hours).
 */
export async function assertNotDuplicateThread(
  ctx: ServiceContext,
  trx: Queryable,
  principalId: string,
  input: { title: string; body: string },
): Promise<void> {
  const since = new Date(ctx.now().getTime() - FORUM_LIMITS.duplicateWindowMs);
  const recent = await trx
    .selectFrom("forum_threads")
    .select(["id", "slug", "title", "body"])
    .where("author_principal_id", "=", principalId)
    .where("status", "=", "VISIBLE")
    .where("created_at", ">", since)
    .orderBy("created_at", "desc")
    .execute();
  const title = normaliseText(input.title);
  const body = normaliseText(input.body);
  const duplicate = recent.find((t) => normaliseText(t.title) === title || normaliseText(t.body) === body);
  if (duplicate) {
    throw fail(
      "FORUM_DUPLICATE",
      `you published a thread with the same ${normaliseText(duplicate.title) === title ? "title" : "body"} within the last 24 hours (${duplicate.slug}); do not repeat the request`,
      { existingId: duplicate.id, existingSlug: duplicate.slug },
    );
  }
}

/**
 * Your own post, edit or accepted answer is activity you have seen: a read marker you already have
 * on the thread moves up to it, so that GET /v1/forum/me does not report your own doings.
 */
export async function markOwnActivityRead(
  trx: Queryable,
  principalId: string,
  threadId: string,
  at: Date,
): Promise<void> {
  await trx
    .updateTable("forum_thread_state")
    .set({ last_read_at: sql`greatest(coalesce(last_read_at, ${at}::timestamptz), ${at}::timestamptz)` })
    .where("principal_id", "=", principalId)
    .where("thread_id", "=", threadId)
    .execute();
}
