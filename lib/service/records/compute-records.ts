import { sql } from "kysely";
import type { z } from "zod";
import type { AgentRecord, PosterRecord } from "@/lib/api/schemas/records";
import { formatUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import { reviewIsVisible } from "../reviews/visibility";
import { releasedJobs } from "../escrow/released";
import { BETWEEN_OWN_ACCOUNTS } from "../jobs/own-accounts";

type AgentRecordDto = z.input<typeof AgentRecord>;
type PosterRecordDto = z.input<typeof PosterRecord>;

/**
 * The one home of track records: profile reads, the bids table and the board's cards all come here,
 * in batches (a fixed number of grouped queries whatever the number of ids, never one per row).
 *
 * A record is earned only by settled money. A job is completed for a record when its money reached
 * the agent on chain (escrow/released.ts: a whole job's confirmed release, or a job paid in parts
 * whose last part settled). Earned and paid amounts are the settlements' own figures (amount_units
 * to the agent, fee_units to the treasury, every part's summed), never the budget a job asked for:
 * an approved job whose release is held, a refunded job, a job that was never funded and a job
 * whose release failed add nothing. Delivery and disputes count a job paid in parts by its parts
 * (delivered when a part was, disputed when a part was). Ratings count only reviews that are public
 * (reviews/visibility.ts), and a review exists only for a released job. A job between one person's
 * own accounts (jobs/own-accounts.ts) counts for nothing, disputes included.
 */
const AT_ARMS_LENGTH = sql<boolean>`not ${BETWEEN_OWN_ACCOUNTS}`;

const rate = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 1000 : null);
const units = (value: string | null) => formatUsdc(BigInt(value ?? "0"));
const mean = (value: string | number | null) => (value === null ? null : Math.round(Number(value) * 100) / 100);

interface DisputeRow {
  id: string;
  delivered: number;
  disputed: number;
  released: number;
  refunded: number;
  split: number;
}

function outcomes(row: DisputeRow | undefined) {
  const disputed = Number(row?.disputed ?? 0);
  const released = Number(row?.released ?? 0);
  const refunded = Number(row?.refunded ?? 0);
  const split = Number(row?.split ?? 0);
  const open = Math.max(0, disputed - released - refunded - split);
  return { delivered: Number(row?.delivered ?? 0), disputed, outcomes: { released, refunded, split, open } };
}

/**
 * The parts of jobs paid in milestones, per agent or per poster, from their confirmed settlements
 * (one grouped query for any number of ids), at arm's length like everything in a record.
 */
async function partRows(ctx: ServiceContext, column: "agent_id" | "poster_id", ids: string[]) {
  const rows = await ctx.db
    .selectFrom("job_milestones as m")
    .innerJoin("jobs as j", "j.id", "m.job_id")
    .leftJoin("milestone_settlements as s", (join) =>
      join.onRef("s.milestone_id", "=", "m.id").on("s.status", "=", "CONFIRMED"),
    )
    .select([
      sql<string>`j.${sql.raw(column)}`.as("id"),
      sql<number>`count(*) filter (where s.kind = 'RELEASE')::int`.as("released"),
      sql<number>`count(*) filter (where s.kind = 'SPLIT')::int`.as("split"),
      sql<number>`count(*) filter (where s.kind = 'REFUND')::int`.as("refunded"),
      sql<number>`count(*) filter (where m.disputed_at is not null)::int`.as("disputed"),
    ])
    .where(sql.ref(`j.${column}`), "in", ids)
    .where(AT_ARMS_LENGTH)
    .groupBy(sql.ref(`j.${column}`))
    .execute();
  const byId = new Map(
    rows.map((r) => [
      r.id,
      {
        released: Number(r.released),
        split: Number(r.split),
        refunded: Number(r.refunded),
        disputed: Number(r.disputed),
      },
    ]),
  );
  return (id: string) => byId.get(id) ?? { released: 0, split: 0, refunded: 0, disputed: 0 };
}

async function ratingsOf(ctx: ServiceContext, kind: "AGENT" | "POSTER", ids: string[]) {
  const rows = await ctx.db
    .selectFrom("job_reviews as r")
    .select(["r.subject_id as id", sql<string>`avg(r.rating)`.as("avg"), sql<number>`count(*)::int`.as("n")])
    .where("r.subject_kind", "=", kind)
    .where("r.subject_id", "in", ids)
    .where(reviewIsVisible("r", ctx.now()))
    .groupBy("r.subject_id")
    .execute();
  return new Map(rows.map((r) => [r.id, { averageRating: mean(r.avg), ratingCount: Number(r.n) }]));
}

/** The records of agents as the ones who did the work, in the order asked (unknown ids get an empty record). */
export async function agentRecords(ctx: ServiceContext, agentIds: string[]): Promise<AgentRecordDto[]> {
  const ids = [...new Set(agentIds)];
  if (ids.length === 0) return [];
  const [done, disputes, ratings, parts] = await Promise.all([
    ctx.db
      .selectFrom("jobs as j")
      .innerJoin(releasedJobs(ctx.db).as("r"), "r.job_id", "j.id")
      .select([
        "j.agent_id as id",
        sql<number>`count(*)::int`.as("completed"),
        sql<string>`coalesce(sum(r.net_units), 0)::text`.as("earned"),
        sql<number>`count(*) filter (where j.deadline_at is not null)::int`.as("with_deadline"),
        sql<number>`count(*) filter (where j.deadline_at is not null and r.delivered_at is not null and r.delivered_at <= j.deadline_at)::int`.as(
          "on_time",
        ),
      ])
      .where("j.agent_id", "in", ids)
      .where(AT_ARMS_LENGTH)
      .groupBy("j.agent_id")
      .execute(),
    disputeRows(ctx, "agent_id", ids),
    ratingsOf(ctx, "AGENT", ids),
    partRows(ctx, "agent_id", ids),
  ]);
  const byId = new Map(done.map((r) => [r.id!, r]));
  const disputesById = new Map(disputes.map((r) => [r.id, r]));
  return ids.map((id) => {
    const row = byId.get(id);
    const d = outcomes(disputesById.get(id));
    const withDeadline = Number(row?.with_deadline ?? 0);
    const onTime = Number(row?.on_time ?? 0);
    return {
      agentId: id,
      completedJobs: Number(row?.completed ?? 0),
      earnedUsdc: units(row?.earned ?? null),
      jobsWithDeadline: withDeadline,
      onTimeJobs: onTime,
      onTimeRate: rate(onTime, withDeadline),
      deliveredJobs: d.delivered,
      disputedJobs: d.disputed,
      disputeRate: rate(d.disputed, d.delivered),
      disputeOutcomes: d.outcomes,
      parts: parts(id),
      ...(ratings.get(id) ?? { averageRating: null, ratingCount: 0 }),
    };
  });
}

/** The records of posters (job.posterId: a user id or a posting agent's principal id), in the order asked. */
export async function posterRecords(ctx: ServiceContext, posterIds: string[]): Promise<PosterRecordDto[]> {
  const ids = [...new Set(posterIds)];
  if (ids.length === 0) return [];
  const [done, disputes, ratings, postingAgents, parts] = await Promise.all([
    ctx.db
      .selectFrom("jobs as j")
      .innerJoin(releasedJobs(ctx.db).as("r"), "r.job_id", "j.id")
      .select([
        "j.poster_id as id",
        sql<number>`count(*)::int`.as("completed"),
        sql<string>`coalesce(sum(r.net_units + r.fee_units), 0)::text`.as("paid"),
        sql<
          string | null
        >`percentile_cont(0.5) within group (order by extract(epoch from (j.approved_at - j.submitted_at)) / 3600) filter (where j.approved_at is not null and j.submitted_at is not null)`.as(
          "median_hours",
        ),
      ])
      .where("j.poster_id", "in", ids)
      .where(AT_ARMS_LENGTH)
      .groupBy("j.poster_id")
      .execute(),
    disputeRows(ctx, "poster_id", ids),
    ratingsOf(ctx, "POSTER", ids),
    ctx.db.selectFrom("agents").select(["id", "principal_id"]).where("principal_id", "in", ids).execute(),
    partRows(ctx, "poster_id", ids),
  ]);
  const agentOf = new Map(postingAgents.map((a) => [a.principal_id, a.id]));
  const byId = new Map(done.map((r) => [r.id, r]));
  const disputesById = new Map(disputes.map((r) => [r.id, r]));
  return ids.map((id) => {
    const row = byId.get(id);
    const d = outcomes(disputesById.get(id));
    const median = row?.median_hours ?? null;
    return {
      posterId: id,
      agentId: agentOf.get(id) ?? null,
      completedJobs: Number(row?.completed ?? 0),
      paidUsdc: units(row?.paid ?? null),
      deliveredJobs: d.delivered,
      disputedJobs: d.disputed,
      disputeRate: rate(d.disputed, d.delivered),
      disputeOutcomes: d.outcomes,
      medianHoursToApprove: median === null ? null : Math.round(Number(median) * 10) / 10,
      parts: parts(id),
      ...(ratings.get(id) ?? { averageRating: null, ratingCount: 0 }),
    };
  });
}

/**
 * Disputes, per agent or per poster: of the jobs that reached a delivery or a dispute, how many were
 * disputed, and how each dispute ended in money (released to the agent, refunded to the poster,
 * split between them by a ruling, or not settled yet). The outcome is read from the confirmed
 * settlement, as everywhere in a record: a whole job's, or for a job paid in parts its first
 * disputed part's.
 */
async function disputeRows(
  ctx: ServiceContext,
  column: "agent_id" | "poster_id",
  ids: string[],
): Promise<DisputeRow[]> {
  const perJob = ctx.db
    .selectFrom("jobs as j")
    .leftJoin("escrow_settlements as s", (join) => join.onRef("s.job_id", "=", "j.id").on("s.status", "=", "CONFIRMED"))
    .select([
      sql<string>`j.${sql.raw(column)}`.as("id"),
      sql<boolean>`(j.submitted_at is not null or j.disputed_at is not null or exists (
        select 1 from job_milestones m where m.job_id = j.id and (m.submitted_at is not null or m.disputed_at is not null)))`.as(
        "delivered",
      ),
      sql<boolean>`(j.disputed_at is not null or exists (
        select 1 from job_milestones m where m.job_id = j.id and m.disputed_at is not null))`.as("disputed"),
      sql<string | null>`case when j.disputed_at is not null
        then (case when s.kind = 'RELEASE' and j.release_tx_hash is null then null else s.kind end)
        else (select ms.kind from milestone_settlements ms join job_milestones m on m.id = ms.milestone_id
              where m.job_id = j.id and m.disputed_at is not null and ms.status = 'CONFIRMED'
              order by m.position limit 1) end`.as("outcome"),
    ])
    .where(sql.ref(`j.${column}`), "in", ids)
    .where(AT_ARMS_LENGTH);
  const rows = await ctx.db
    .selectFrom(perJob.as("d"))
    .select([
      "d.id",
      sql<number>`count(*) filter (where d.delivered)::int`.as("delivered"),
      sql<number>`count(*) filter (where d.disputed)::int`.as("disputed"),
      sql<number>`count(*) filter (where d.disputed and d.outcome = 'RELEASE')::int`.as("released"),
      sql<number>`count(*) filter (where d.disputed and d.outcome = 'REFUND')::int`.as("refunded"),
      sql<number>`count(*) filter (where d.disputed and d.outcome = 'SPLIT')::int`.as("split"),
    ])
    .groupBy("d.id")
    .execute();
  return rows as DisputeRow[];
}
