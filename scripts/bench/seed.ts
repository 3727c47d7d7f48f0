// The benchmark's data: 100,000 jobs on the board and a forum thread with 500 replies, written in
// SQL (insert … select from generate_series: one statement per 10,000 rows, the database builds the
// rows itself), and reused when a previous run left them there.
import { sql, type QueryResult, type RawBuilder } from "kysely";
import type { Db } from "@/lib/service/db/connection";
import { encodeCursor } from "@/lib/service/http/pagination";
import { hashSecret } from "@/lib/service/auth/tokens";

/** Names the data set; a different one (an older seed) is replaced. */
export const SEED_MARK = "Bench poster v2";
export const THREAD_SLUG = "bench-thread-500-replies";
/** Words of the job descriptions: each pair is in 1 job of 50, so the search ranks 2,000 of 100,000. */
const TOPICS = [
  "translation",
  "scraping",
  "summary",
  "invoice",
  "audit",
  "research",
  "labeling",
  "transcript",
  "pricing",
  "outreach",
];
const QUALIFIERS = ["urgent", "weekly", "bulk", "nightly", "small"];
export const SEARCH_TERM = "urgent scraping";
/** A word of one job's title alone (titles are "Bench job <n>"): the search finds that one. */
export const RARE_SEARCH_TERM = "77777";

/** The polling agents: each its own key (a fixed secret, so a reused data set keeps working). */
export const BENCH_AGENTS = 40;
export interface BenchAgent {
  id: string;
  key: string;
}

export interface BenchData {
  jobs: number;
  /** Of them funded (escrow registered): every second one. */
  funded: number;
  agents: BenchAgent[];
  jobId: string;
  deepCursor: string;
  deepPages: number;
  /** A cursor that starts at the very top: the first page through the same keyset path as the deep one. */
  firstCursor: string;
  /** The same for a search's relevance order (ranks are at most 1e6, list-jobs.ts). */
  firstSearchCursor: string;
  threadSlug: string;
}

export async function seedBench(db: Db, jobs: number, log: (line: string) => void): Promise<BenchData> {
  let poster = await db.selectFrom("principals").select("id").where("display_name", "=", SEED_MARK).executeTakeFirst();
  poster ??= await db
    .insertInto("principals")
    .values({ kind: "USER", display_name: SEED_MARK })
    .returning("id")
    .executeTakeFirstOrThrow();
  const existing = await db
    .selectFrom("jobs")
    .select(sql<number>`count(*)::int`.as("n"))
    .where("poster_id", "=", poster.id)
    .executeTakeFirstOrThrow();
  if (existing.n >= jobs) {
    // Each run's bids leave dead versions of the jobs they counted (bid_count), and this machine's
    // server runs without autovacuum: unvacuumed, the board held 50,001 dead rows beside its 100,000
    // after a day of runs, and every later line read through them.
    await sql`vacuum analyze jobs, bids, domain_events, rate_limit_counters`.execute(db);
    log(`  reusing ${existing.n} seeded jobs (vacuumed)`);
  } else {
    const started = Date.now();
    for (let done = existing.n; done < jobs; done += 10_000) {
      const n = Math.min(10_000, jobs - done);
      await sql`
        insert into jobs (poster_id, status, participation_mode, template_id, title, description, budget_usdc, input_data,
                          escrow_job_id, chain_id, token_symbol, token_address, payment_provider, acceptance_criteria, created_at)
        select ${poster.id}::uuid, 'OPEN', 'BID', 'custom-v1', 'Bench job ' || g,
               'A job created by the benchmark to fill the board: ' || (${sql.lit(`{${QUALIFIERS.join(",")}}`)}::text[])[1 + g % 5] || ' ' ||
                 (${sql.lit(`{${TOPICS.join(",")}}`)}::text[])[1 + (g / 5) % 10] || ' work.',
               (10 + g % 90)::numeric,
               '{"budgetType":"bid","proofHoldHours":168,"participationMode":"BID","generalDescription":"bench","acceptanceCriteria":[{"description":"done"}]}'::jsonb,
               '0x' || lpad(to_hex(g), 64, '0') || '', 31337, 'USDC', '0x1111111111111111111111111111111111111111', 'ON_CHAIN_USDC',
               '[{"id":"ac-1","check":{"type":"manual"},"description":"done"}]'::jsonb,
               now() - (g || ' seconds')::interval
        from generate_series(${done + 1}::int, ${done + n}::int) g`.execute(db);
    }
    // Vacuumed as well as analyzed: a server without autovacuum (this machine's has it off) would
    // otherwise read every bulk-loaded page's hint bits, and the funding update's dead rows, on each query.
    await sql`vacuum analyze`.execute(db);
    log(`  seeded ${jobs - existing.n} jobs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }

  // Half the board funded (every even job), as agents poll funded=true; once, on a data set without it.
  const fundedNow = await sql<{
    n: number;
  }>`select count(*)::int as n from jobs where poster_id = ${poster.id} and escrow_tx_hash is not null`.execute(db);
  if (fundedNow.rows[0]!.n === 0) {
    await sql`
      update jobs set escrow_tx_hash = '0xfb' || lpad(to_hex(substr(title, 11)::int), 62, '0'), funded_at = created_at
      where poster_id = ${poster.id} and substr(title, 11)::int % 2 = 0`.execute(db);
    await sql`vacuum analyze jobs`.execute(db);
  }
  const funded = (
    await sql<{ n: number }>`select count(*)::int as n from jobs where escrow_tx_hash is not null`.execute(db)
  ).rows[0]!.n;

  // The polling agents: active, each with its own key.
  const agents: BenchAgent[] = [];
  for (let i = 1; i <= BENCH_AGENTS; i++) {
    const id = `bench-agent-${i}`;
    const key = `awm_sk_bench-agent-${i}-polls-the-board-all-day-000000`;
    agents.push({ id, key });
    if (await db.selectFrom("agents").select("id").where("id", "=", id).executeTakeFirst()) continue;
    const principal = await db
      .insertInto("principals")
      .values({ kind: "AGENT", display_name: `Bench agent ${i}` })
      .returning("id")
      .executeTakeFirstOrThrow();
    await db
      .insertInto("agents")
      .values({
        id,
        principal_id: principal.id,
        name: `Bench agent ${i}`,
        vertical: "RESEARCH",
        description: null,
        status: "ACTIVE",
        verified_at: new Date(),
        verification_method: "bench",
        max_active_jobs: null,
        owner_email: `bench-agent-${i}@example.test`,
        owner_user_id: null,
        referral_code: `BENCH${i}`,
        referred_by_agent_id: null,
        wallet_address: null,
      })
      .execute();
    await db
      .insertInto("api_keys")
      .values({
        agent_id: id,
        key_hash: hashSecret(key),
        key_prefix: key.slice(0, 12),
        scopes: ["jobs:read", "jobs:write"],
      })
      .execute();
  }

  const thread = await db.selectFrom("forum_threads").select("id").where("slug", "=", THREAD_SLUG).executeTakeFirst();
  if (!thread) {
    const body =
      "A benchmark thread with **Markdown**, a [link](https://example.com), `code`, and a table:\n\n| a | b |\n| - | - |\n| 1 | 2 |\n";
    const created = await db
      .insertInto("forum_threads")
      .values({
        slug: THREAD_SLUG,
        title: "Benchmark thread with five hundred replies",
        body,
        category: "benchmarks",
        intent: "benchmark",
        author_principal_id: poster.id,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await sql`
      insert into forum_replies (thread_id, body, author_principal_id, created_at)
      select ${created.id}::uuid, 'Reply ' || g || ': measured **' || g || ' ms** on [our runner](https://example.com/' || g || ') with p99.', ${poster.id}::uuid,
             now() - ((600 - g) || ' seconds')::interval
      from generate_series(1, 500) g`.execute(db);
    await db.updateTable("forum_threads").set({ reply_count: 500 }).where("id", "=", created.id).execute();
  }

  // Statistics of every table as it now stands (the agents and the thread came after the jobs'
  // vacuum): with autovacuum off, a planner that believes in one principal loops the board's page
  // once per poster row.
  await sql`analyze`.execute(db);

  const total = await db
    .selectFrom("jobs")
    .select(sql<number>`count(*)::int`.as("n"))
    .executeTakeFirstOrThrow();
  const deepPages = Math.min(5000, Math.floor(total.n / 20) - 1);
  const job = await db
    .selectFrom("jobs")
    .select("id")
    .where("poster_id", "=", poster.id)
    .orderBy("created_at", "desc")
    .executeTakeFirstOrThrow();
  return {
    jobs: total.n,
    funded,
    agents,
    jobId: job.id,
    deepCursor: await cursorAfter(db, deepPages * 20),
    deepPages,
    firstCursor: encodeCursor({ k: "9999-12-31T00:00:00.000Z", id: "ffffffff-ffff-ffff-ffff-ffffffffffff" }),
    firstSearchCursor: encodeCursor({
      k: "relevance|1000000|9999-12-31T00:00:00.000Z",
      id: "ffffffff-ffff-ffff-ffff-ffffffffffff",
    }),
    threadSlug: THREAD_SLUG,
  };
}

/**
 * Unfunded bench jobs nobody has bid on (newest first): each takes one bid of the write line, so
 * every bid is a new (agent, job) pair that the one-bid rule lets through.
 */
export async function unbidJobs(db: Db, count: number): Promise<string[]> {
  const read = () =>
    sql<{ id: string }>`
    select jobs.id from jobs join principals on principals.id = jobs.poster_id and principals.display_name = ${SEED_MARK}
    where jobs.escrow_tx_hash is null and jobs.status = 'OPEN' and jobs.bid_count = 0
    order by jobs.created_at desc, jobs.id desc limit ${count}`.execute(db);
  let rows = await read();
  if (rows.rows.length < count) {
    // Every run takes jobs of its own (6,600 of the 50,000 unfunded ones): once they run out, the
    // earlier runs' bids are taken back, or the writes line would silently measure nothing.
    await sql`delete from bids where agent_id like 'bench-agent-%'`.execute(db);
    await sql`update jobs set bid_count = (select count(*) from bids where bids.job_id = jobs.id) where bid_count > 0`.execute(
      db,
    );
    await sql`vacuum analyze jobs, bids`.execute(db);
    rows = await read();
  }
  return rows.rows.map((r) => r.id);
}

/** Where the board continues after `rows` rows, walked by keyset as a client paging there would. */
async function cursorAfter(db: Db, rows: number): Promise<string> {
  let left = rows;
  let last: { created_at: Date; id: string } | null = null;
  while (left > 0) {
    const chunk = Math.min(left, 5000);
    const after: RawBuilder<unknown> = last
      ? sql`where (created_at, id) < (${last.created_at}, ${last.id}::uuid)`
      : sql``;
    const page: QueryResult<{ created_at: Date; id: string }> = await sql<{ created_at: Date; id: string }>`
      select created_at, id from jobs ${after} order by created_at desc, id desc limit ${chunk}`.execute(db);
    last = page.rows[page.rows.length - 1]!;
    left -= chunk;
  }
  return encodeCursor({ k: last!.created_at.toISOString(), id: last!.id });
}
