// The forum half of `npm run bench`: a thread with 500 replies rendered by the production build on
// the server (target: median under 150 ms), and the first-load JavaScript of the forum pages over
// an empty page of the same build (target: at most 15 kB gzipped).
import { sql } from "kysely";
import pg from "pg";
import { openDatabase } from "@/lib/service/db/connection";
import { freePort, startAppServer } from "../stack";
import { ensureBuild } from "../build-cache";
import { measureFirstLoadJs } from "@/e2e/fixtures/page-weight";

const PG_URL = process.env.BENCH_FORUM_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/awm_bench_forum";
const REQUESTS = Number(process.env.BENCH_FORUM_REQUESTS || 50);

async function ensureDatabase() {
  const admin = new pg.Client({ connectionString: PG_URL.replace(/\/[^/]+$/, "/postgres") });
  await admin.connect();
  const name = new URL(PG_URL).pathname.slice(1);
  await admin.query(`drop database if exists "${name}"`);
  await admin.query(`create database "${name}"`);
  await admin.end();
}

async function seedThread(): Promise<string> {
  const db = await openDatabase({ databaseUrl: PG_URL, maxConnections: 2 });
  const author = await db.insertInto("principals").values({ kind: "USER", display_name: "Bench author" }).returning("id").executeTakeFirstOrThrow();
  const slug = `bench-thread-${Date.now()}`;
  const body = "A benchmark thread with **Markdown**, a [link](https://example.com), `code`, and a table:\n\n| a | b |\n| - | - |\n| 1 | 2 |\n";
  const thread = await db
    .insertInto("forum_threads")
    .values({ slug, title: "Benchmark thread with five hundred replies", body, category: "benchmarks", intent: "benchmark", author_principal_id: author.id })
    .returning("id")
    .executeTakeFirstOrThrow();
  await sql`
    insert into forum_replies (thread_id, body, author_principal_id, created_at)
    select ${thread.id}::uuid, 'Reply ' || g || ': measured **' || g || ' ms** on [our runner](https://example.com/' || g || ') with p99.', ${author.id}::uuid,
           now() - ((600 - g) || ' seconds')::interval
    from generate_series(1, 500) g`.execute(db);
  await db.updateTable("forum_threads").set({ reply_count: 500 }).where("id", "=", thread.id).execute();
  await db.destroy();
  return slug;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main() {
  await ensureDatabase();
  const slug = await seedThread();
  const distDir = ensureBuild([process.env.BENCH_DIST_DIR || ".next-bench"]);
  const port = await freePort();
  const server = await startAppServer({ port, distDir, quiet: true, env: { DATABASE_URL: PG_URL, WORKERS: "off", RATE_LIMIT_SCALE: "1000", SITE_URL: `http://127.0.0.1:${port}` } });
  try {
    const url = `${server.url}/forum/${slug}`;
    for (let i = 0; i < 5; i++) await (await fetch(url)).text(); // warm up
    const times: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const started = performance.now();
      const response = await fetch(url);
      await response.text();
      if (!response.ok) throw new Error(`thread page answered ${response.status}`);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const p50 = percentile(times, 50);
    console.log(`\nForum thread with 500 replies (first page of 20 rendered), ${REQUESTS} sequential requests:`);
    console.log(`  p50 ${p50.toFixed(1)} ms   p95 ${percentile(times, 95).toFixed(1)} ms   (target p50 < 150 ms: ${p50 < 150 ? "MET" : "MISSED"})`);

    const empty = await measureFirstLoadJs(`${server.url}/empty`);
    console.log(`\nFirst-load JavaScript (gzip, module scripts named by the served HTML):`);
    console.log(`  /empty ${(empty.totalGzipBytes / 1024).toFixed(1)} kB`);
    for (const path of ["/forum", `/forum/${slug}`]) {
      const weight = await measureFirstLoadJs(`${server.url}${path}`);
      const extra = (weight.totalGzipBytes - empty.totalGzipBytes) / 1024;
      console.log(`  ${path.padEnd(40)} +${extra.toFixed(1)} kB over /empty (target ≤ 15 kB: ${extra <= 15 ? "MET" : "MISSED"})`);
    }
  } finally {
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
