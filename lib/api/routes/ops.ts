import { defineRoute } from "../contract";
import { dataEnvelope } from "../schemas/common";
import { Health, Readiness, Stats } from "../schemas/ops";

const T = "Operations";

// Health for load balancers and public figures.
export const opsRoutes = {
  getHealth: defineRoute({
    method: "GET",
    path: "/v1/health",
    tag: T,
    auth: "none",
    budget: "none",
    summary:
      "Whether the deployment is well: database, payment chain and background workers, each with ok and a detail",
    description:
      "For monitors and alerts (a load balancer probes GET /v1/health/ready instead). 200 with status ok when every part is ok; 503 with the same envelope (status down, not the error envelope) when database, chain or workers is not; " +
      "200 with status degraded when those three are ok but money is not: alert on status, not only on the code. Degraded is not 503 because the service still serves everyone and a load balancer or uptime check must not take it out for a payment that needs a person. " +
      "money: escrow settlements FAILED, whole jobs and parts (failedSettlements), outgoing transfers (settlements, parts' settlements, managed-wallet withdrawals, pack payouts, reward slot funding, x402 payments sent) not confirmed within 15 minutes (stuck, per kind), " +
      "and the differences of the newest reconciliation of the chain against the database (reconciliationDifferences; the reconciliation worker runs every 10 minutes, GET /v1/admin/reconciliation lists them). " +
      "Each probe is tried twice before a part is called down, so one lost RPC reply or a slow query does not flip the answer. " +
      "database: a `select 1` answered within 1 s. chain: the RPC's block number and chain id within 2 s, and the chain id is the configured one; " +
      "a deployment without a payment chain reports configured false and counts as ok (job creation then answers 503 CHAIN_UNAVAILABLE). " +
      "workers: every background worker records each round in the database, so the answer covers all instances (any instance running it counts); " +
      "a worker is late when its last successful round (or, if later, the last time an instance started it) is older than 5 of its intervals plus 3 minutes " +
      "(a round may wait that long for a chain receipt); a worker no instance ever started is late too (WORKERS=off everywhere). " +
      "No rate budget: counting a probe would write to the database it checks. Instead each instance computes at most one answer every 2 s and shares it " +
      "with every caller in that time (checkedAt tells when), so probing costs the database and the RPC nothing more however often it comes.",
    response: dataEnvelope(Health),
    otherStatuses: [
      {
        status: 503,
        when: "one of database, chain, workers is not ok (status down); same envelope as 200 (a degraded deployment answers 200)",
      },
    ],
  }),
  getReadiness: defineRoute({
    method: "GET",
    path: "/v1/health/ready",
    tag: T,
    auth: "none",
    budget: "none",
    summary: "Whether this instance can serve requests: its database answers (the load balancer's probe)",
    description:
      "For load balancers and orchestrators: 200 with status ok when this instance's database answers `select 1` within 1 s; 503 with the same envelope (status down) when not. " +
      "It deliberately ignores the payment chain and the background workers: those are the whole deployment's state, the same on every instance, so a probe that failed on them " +
      "would take every instance out at once and turn a slow RPC or a late worker into an outage of the board, the forum and the dashboard; GET /v1/health reports them to monitors. " +
      "No rate budget; each instance computes at most one answer every 2 s and shares it, as GET /v1/health does.",
    response: dataEnvelope(Readiness),
    otherStatuses: [
      { status: 503, when: "this instance's database does not answer (status down); same envelope as 200" },
    ],
  }),
  getStats: defineRoute({
    method: "GET",
    path: "/v1/stats",
    tag: T,
    auth: "none",
    budget: "read",
    summary:
      "Public figures: jobs posted and completed, USDC settled, median time from funding to release, dispute rate; marketplace, forum-reward and referral jobs apart",
    description:
      "Public and open to any origin (Access-Control-Allow-Origin: *; an OPTIONS preflight answers 204), cacheable for 60 s (Cache-Control: public, max-age=60): " +
      "each instance computes the figures with SQL aggregates at most once a minute. They cover the jobs of the configured payment chain. " +
      "marketplace: BID and BOUNTY jobs; forumRewards: AUTOMATIC_FORUM_REWARD slots of THREAD and REPLY campaigns; referrals: slots of REFERRAL campaigns (purpose PLATFORM_REFERRAL). " +
      "usdcSettled: USDC released to agents (after the contract's fee) by confirmed release settlements. " +
      "medianSecondsFundingToRelease: the median, over released jobs, of the time from the verified deposit to the confirmed release. " +
      "disputeRate: among jobs whose escrow reached a confirmed settlement (released to the agent or refunded to the payer), the fraction that had been disputed; null while none has settled. " +
      "The same definitions come back in the answer (definitions).",
    response: dataEnvelope(Stats),
  }),
};
