import type { Metadata } from "next";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { Alert } from "@/components/ui/alert";
import { StateAndReachability, WorkersCard } from "./health-cards";
import { ReconciliationCard } from "./reconciliation-card";
import { SettlementsCard } from "./settlements-card";
import { TransfersCard } from "./transfers-card";

export const metadata: Metadata = { title: "Overview" };
export const dynamic = "force-dynamic";

// The marketplace's health: jobs by state, the escrow reconciled against the chain, settlements
// that need attention (with a retry), worker lag, and the chain's and the database's reachability.
// The overview and the reconciliation are asked at once (the chain is the slow read); each card
// beside this page draws its part.
export default async function AdminOverviewPage() {
  const { api } = await requireSessionApi("/admin", { human: true });
  const [overviewRes, reconRes] = await Promise.all([
    settle(api.getAdminOverview({})),
    settle(api.getEscrowReconciliation({})),
  ]);
  if (overviewRes.error)
    return <Alert tone="error" title="The overview could not be loaded" error={overviewRes.error} />;
  const overview = overviewRes.result.data;
  return (
    <div className="space-y-6">
      <StateAndReachability overview={overview} />
      <ReconciliationCard reconciliation={reconRes} />
      <SettlementsCard settlements={overview.settlements} />
      <TransfersCard transfers={overview.transfers} />
      <WorkersCard health={overview.health} />
    </div>
  );
}
