import { sql } from "kysely";
import type { z } from "zod";
import type { JobFigures, Stats } from "@/lib/api/schemas/ops";
import { formatUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import { agentPayouts } from "../escrow/released";

/** Figures are recomputed at most this often per instance (and GET /v1/stats tells caches the same). */
export const STATS_CACHE_SECONDS = 60;

const DEFINITIONS = {
  marketplace: "Jobs posted by people and agents (participation mode BID or BOUNTY), subcontracted ones included.",
  forumRewards: "Forum reward slots: AUTOMATIC_FORUM_REWARD jobs of THREAD and REPLY reward campaigns.",
  referrals: "Referral reward slots: jobs of REFERRAL reward campaigns (purpose PLATFORM_REFERRAL).",
  jobsPosted: "Jobs created, whatever became of them.",
  jobsFunded: "Jobs whose escrow deposit was verified.",
  jobsCompleted: "Jobs whose escrow was released to the agent (status COMPLETED).",
  jobsRefunded: "Jobs whose escrow was refunded to the payer (a confirmed refund).",
  usdcSettled: "USDC released to agents, after the escrow contract's fee, summed over confirmed release settlements.",
  medianSecondsFundingToRelease:
    "Median, over released jobs, of the seconds from the verified deposit to the confirmed release.",
  settledJobs: "Jobs whose escrow reached a confirmed settlement: released to the agent or refunded to the payer.",
  disputedSettledJobs: "Settled jobs that had been disputed (POST /v1/jobs/:id/dispute) before settling.",
  disputeRate: "disputedSettledJobs ÷ settledJobs, from 0 to 1; null while no job has settled.",
  scope: "Jobs of the configured payment chain (chainId); with no chain configured, every job.",
};

type Category = "marketplace" | "forumRewards" | "referrals";

interface FiguresRow {
  category: Category;
  posted: string | number;
  funded: string | number;
  completed: string | number;
  refunded: string | number;
  released_units: string | null;
  median_seconds: string | number | null;
  settled: string | number;
  disputed_settled: string | number;
}

const cache = new WeakMap<ServiceContext, { at: number; answer: Promise<Stats> }>();

/** GET /v1/stats: the figures of the last STATS_CACHE_SECONDS, or fresh ones. */
export function computeStats(ctx: ServiceContext): Promise<Stats> {
  const cached = cache.get(ctx);
  if (cached && Date.now() - cached.at < STATS_CACHE_SECONDS * 1000) return cached.answer;
  const answer = aggregate(ctx);
  cache.set(ctx, { at: Date.now(), answer });
  // A failed computation is not kept: the next caller tries again.
  answer.catch(() => cache.delete(ctx));
  return answer;
}

async function aggregate(ctx: ServiceContext): Promise<Stats> {
  const chainId = ctx.config.chain?.chainId ?? null;
  // One pass over jobs, each joined to its confirmed settlement (a job has at most one: unique job_id).
  // Referral slots are AUTOMATIC_FORUM_REWARD jobs too, so purpose is tested first.
  const { rows } = await sql<FiguresRow>`
    select
      case when j.purpose = 'PLATFORM_REFERRAL' then 'referrals'
           when j.participation_mode = 'AUTOMATIC_FORUM_REWARD' then 'forumRewards'
           else 'marketplace' end as category,
      count(*) as posted,
      count(j.funded_at) as funded,
      count(*) filter (where j.status = 'COMPLETED') as completed,
      count(s.id) filter (where s.kind = 'REFUND') as refunded,
      -- Every confirmed settlement that paid the agent, whole or part (a split ruling's net share too).
      sum(p.net_units) as released_units,
      percentile_cont(0.5) within group (order by extract(epoch from (s.confirmed_at - j.funded_at)))
        filter (where s.kind = 'RELEASE' and j.funded_at is not null and s.confirmed_at is not null) as median_seconds,
      -- A job paid in parts is settled once its last part is (it then carries the release transaction).
      count(*) filter (where s.id is not null or j.release_tx_hash is not null) as settled,
      count(*) filter (where (s.id is not null or j.release_tx_hash is not null) and (j.disputed_at is not null
        or exists (select 1 from job_milestones m where m.job_id = j.id and m.disputed_at is not null))) as disputed_settled
    from jobs j
    left join escrow_settlements s on s.job_id = j.id and s.status = 'CONFIRMED'
    left join (select job_id, sum(net_units) as net_units from (${agentPayouts(ctx.db)}) payouts group by job_id) p
      on p.job_id = j.id
    where ${chainId === null ? sql`true` : sql`j.chain_id = ${chainId}`}
    group by 1
  `.execute(ctx.db);

  const figures = (category: Category): z.infer<typeof JobFigures> => {
    const row = rows.find((r) => r.category === category);
    const settled = Number(row?.settled ?? 0);
    const disputed = Number(row?.disputed_settled ?? 0);
    return {
      jobsPosted: Number(row?.posted ?? 0),
      jobsFunded: Number(row?.funded ?? 0),
      jobsCompleted: Number(row?.completed ?? 0),
      jobsRefunded: Number(row?.refunded ?? 0),
      // amount_units are the token's 6-decimal base units, as the chain reported them.
      usdcSettled: formatUsdc(BigInt(row?.released_units ?? 0)),
      medianSecondsFundingToRelease:
        row?.median_seconds == null ? null : Math.round(Number(row.median_seconds) * 1000) / 1000,
      settledJobs: settled,
      disputedSettledJobs: disputed,
      disputeRate: settled === 0 ? null : disputed / settled,
    };
  };

  return {
    generatedAt: ctx.now().toISOString(),
    chainId,
    marketplace: figures("marketplace"),
    forumRewards: figures("forumRewards"),
    referrals: figures("referrals"),
    definitions: DEFINITIONS,
  };
}
