import type { Metadata } from "next";
import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { Usdc } from "@/components/ui/usdc";
import { ExplorerLink } from "@/components/ui/explorer-link";

export const metadata: Metadata = { title: "Deposits" };
export const dynamic = "force-dynamic";

// Every deposit the escrow received, registered or not, and the refunds the service sent by
// itself for deposits that could not fund their job. Read only: nothing here needs the operator.
export default async function AdminDepositsPage() {
  const { api } = await requireSessionApi("/admin/deposits", { human: true });
  const [deposits, chain] = await Promise.all([
    settle(api.listEscrowDeposits({ query: { limit: 100 } })),
    settle(api.getChain({})),
  ]);
  if (deposits.error) return <Alert tone="error" title="The deposits could not be read" error={deposits.error} />;
  const explorerUrl = chain.result?.data.explorerUrl ?? null;
  const rows = deposits.result.data;
  return (
    <Card
      title="Escrow deposits"
      description="A deposit that cannot fund its job (the job is not fundable, the amount is not the budget, or nobody registered it within 1 hour) goes back to its payer automatically, once."
    >
      {rows.length === 0 ? (
        <p className="text-sm text-zinc-500 dark:text-zinc-400">No deposits seen yet.</p>
      ) : (
        <div className="relative overflow-x-auto" tabIndex={0} role="region" aria-label="Escrow deposits">
          <table className="w-full text-left text-sm" data-testid="escrow-deposits">
            <thead className="text-zinc-500 dark:text-zinc-400">
              <tr>
                <th className="py-1">Job</th>
                <th>Payer</th>
                <th>Amount</th>
                <th>Status</th>
                <th>Deposit</th>
                <th>Refund</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id} className="border-t border-zinc-200 align-top dark:border-zinc-800">
                  <td className="py-1">
                    {d.jobId ? (
                      <Link className="underline" href={`/jobs/${d.jobId}`}>
                        {d.jobTitle ?? d.jobId}
                      </Link>
                    ) : (
                      <span className="text-zinc-500 dark:text-zinc-400">no job</span>
                    )}
                  </td>
                  <td className="text-xs">
                    <ExplorerLink value={d.payer} explorerUrl={explorerUrl} kind="address" />
                  </td>
                  <td>
                    <Usdc amount={d.amountUsdc} />
                  </td>
                  <td>
                    {d.status}
                    {d.reason ? <div className="text-xs text-zinc-500 dark:text-zinc-400">{d.reason}</div> : null}
                    {d.lastError && d.status === "REFUND_PENDING" ? (
                      <div className="text-xs text-red-600 dark:text-red-400">{d.lastError}</div>
                    ) : null}
                  </td>
                  <td>
                    <ExplorerLink value={d.depositTxHash} explorerUrl={explorerUrl} />
                  </td>
                  <td>{d.refundTxHash ? <ExplorerLink value={d.refundTxHash} explorerUrl={explorerUrl} /> : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
