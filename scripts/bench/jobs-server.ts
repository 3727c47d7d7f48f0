// The service under benchmark, in its own process so that the load generator (autocannon, in the
// parent) does not share its event loop: seeds the job board, computes where page 5,000 starts,
// serves /v1 and prints one JSON line {port, deepCursor} on stdout when ready.
//
//   BENCH_DB=pglite:<dir> | postgres:<url>   BENCH_JOBS=100000
import type { AddressInfo } from "node:net";
import { sql, type QueryResult, type RawBuilder } from "kysely";
import { serve } from "@hono/node-server";
import { createServiceApp } from "@/lib/service/app";
import { defaultServiceConfig } from "@/lib/service/config";
import { openDatabase, type Db } from "@/lib/service/db/connection";
import { encodeCursor } from "@/lib/service/http/pagination";
import { OFFLINE_CHAIN } from "@/lib/service/testing/harness";

const JOBS = Number(process.env.BENCH_JOBS || 100_000);
const PAGE = 20;
const DEEP_PAGES = Math.min(5000, Math.floor(JOBS / PAGE) - 1);

async function seed(db: Db) {
  const existing = await db.selectFrom("jobs").select(sql<number>`count(*)::int`.as("n")).executeTakeFirstOrThrow();
  if (existing.n >= JOBS) return;
  const principal = await db.insertInto("principals").values({ kind: "USER", display_name: "Bench poster" }).returning("id").executeTakeFirstOrThrow();
  const started = Date.now();
  // In SQL, in batches: seeding through the API would take longer than the measurement.
  for (let done = existing.n; done < JOBS; done += 10_000) {
    const n = Math.min(10_000, JOBS - done);
    await sql`
      insert into jobs (poster_id, status, participation_mode, template_id, title, description, budget_usdc, input_data,
                        escrow_job_id, chain_id, token_symbol, token_address, payment_provider, acceptance_criteria, created_at)
      select ${principal.id}::uuid, 'OPEN', 'BID', 'custom-v1', 'Bench job ' || g, 'A job created by the benchmark to fill the board.',
             (10 + g % 90)::numeric,
             '{"budgetType":"bid","proofHoldHours":168,"participationMode":"BID","generalDescription":"bench","acceptanceCriteria":[{"description":"done"}]}'::jsonb,
             '0x' || lpad(to_hex(g), 64, '0') || '', 31337, 'USDC', '0x1111111111111111111111111111111111111111', 'ON_CHAIN_USDC',
             '[{"id":"ac-1","check":{"type":"manual"},"description":"done"}]'::jsonb,
             now() - (g || ' seconds')::interval
      from generate_series(${done + 1}::int, ${done + n}::int) g`.execute(db);
  }
  await sql`analyze jobs`.execute(db);
  console.error(`  seeded ${JOBS} jobs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Where page DEEP_PAGES + 1 starts: walked by keyset in chunks, as a client paging the board would get there. */
async function deepCursor(db: Db): Promise<string> {
  let left = DEEP_PAGES * PAGE;
  let last: { created_at: Date; id: string } | null = null;
  while (left > 0) {
    const chunk = Math.min(left, 1000);
    const after: RawBuilder<unknown> = last ? sql`where (created_at, id) < (${last.created_at}, ${last.id}::uuid)` : sql``;
    const rows: QueryResult<{ created_at: Date; id: string }> = await sql<{ created_at: Date; id: string }>`
      select created_at, id from jobs ${after} order by created_at desc, id desc limit ${chunk}`.execute(db);
    last = rows.rows[rows.rows.length - 1]!;
    left -= chunk;
  }
  return encodeCursor({ k: last!.created_at.toISOString(), id: last!.id });
}

async function main() {
  const target = process.env.BENCH_DB ?? "";
  const db = target.startsWith("pglite:")
    ? await openDatabase({ dataDir: target.slice("pglite:".length) })
    : await openDatabase({ databaseUrl: target.replace(/^postgres:(?=postgres)/, ""), maxConnections: 20 });
  await seed(db);
  // Rate budgets are still counted in the database on every request, only raised so the load is not refused.
  const ctx = { db, config: defaultServiceConfig({ chain: OFFLINE_CHAIN, rateBudgets: { publicReadsPerMinute: 1e9, authReadsPerMinute: 1e9, writesPerMinute: 1e9 } }), now: () => new Date() };
  const app = createServiceApp(ctx);
  const server = serve({ fetch: (req) => app.fetch(req, { clientIp: "127.0.0.1", forwarded: false }), port: 0, hostname: "127.0.0.1" });
  await new Promise((r) => server.once("listening", r));
  const port = (server.address() as AddressInfo).port;
  console.log(JSON.stringify({ port, deepCursor: await deepCursor(db), deepPages: DEEP_PAGES }));
  // The load generator hangs up with requests still queued here (PGlite falls behind the offered
  // rate); exiting without closing the pool first spares them a "driver destroyed" error each.
  const stop = () => process.exit(0);
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
