import type { Metadata } from "next";
import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { resettleSettlementAction, retrySettlementAction } from "@/lib/actions/admin/retry-settlement";
import { OperatorForm } from "@/components/admin/operator-form";
import { Alert } from "@/components/ui/alert";
import { Badge, JobStatusBadge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate, formatDuration } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";

export const metadata: Metadata = { title: "Overview" };
export const dynamic = "force-dynamic";

const ok = (good: boolean) => <Badge tone={good ? "green" : "red"}>{good ? "ok" : "down"}</Badge>;

// The marketplace's health: jobs by state, the escrow reconciled against the chain, settlements
// that need attention (with a retry), worker lag, and the chain's and the database's reachability.
export default async function AdminOverviewPage() {
  const { api } = await requireSessionApi("/admin", { human: true });
  const [overviewRes, reconRes] = await Promise.all([
    settle(api.getAdminOverview({})),
    settle(api.getEscrowReconciliation({})),
  ]);
  if (overviewRes.error)
    return <Alert tone="error" title="The overview could not be loaded" error={overviewRes.error} />;
  const overview = overviewRes.result.data;
  const { health } = overview;
  return (
    <div className="space-y-6">
      <div className="grid gap-6 md:grid-cols-2">
        <Card title="Jobs by state">
          <ul className="grid grid-cols-2 gap-2 text-sm" data-testid="jobs-by-status">
            {overview.jobsByStatus.map((s) => (
              <li key={s.status} className="flex items-center justify-between gap-2">
                <JobStatusBadge status={s.status} />
                <span className="tabular-nums">{s.count}</span>
              </li>
            ))}
          </ul>
          <p className="mt-3 text-sm">
            <Link className="underline" href="/admin/moderation">
              {overview.openReports} open report(s)
            </Link>{" "}
            ·{" "}
            <Link className="underline" href="/admin/people?suspended=true">
              {overview.suspendedPrincipals} suspended
            </Link>
          </p>
        </Card>
        <Card title="Reachability" description={`Checked ${formatDate(health.checkedAt, { withTime: true })}`}>
          <ul className="space-y-2 text-sm" data-testid="health">
            <li>
              {ok(health.database.ok)} Database: {health.database.detail}
            </li>
            <li>
              {ok(health.chain.ok)} Chain: {health.chain.detail}
            </li>
            <li>
              {ok(health.workers.ok)} Workers: {health.workers.detail}
            </li>
          </ul>
        </Card>
      </div>

      <Card
        title="Escrow: chain against database"
        description="Every job the database counts as held in escrow (deposit verified, not settled) is read on chain; the contract's token balance must be those slots plus the credits it keeps for refused payouts."
      >
        {reconRes.error ? (
          <Alert tone="error" title="The chain could not be read" error={reconRes.error} />
        ) : !reconRes.result.data.chainConfigured ? (
          <p className="text-sm">No payment chain is configured.</p>
        ) : (
          <div className="space-y-3 text-sm" data-testid="reconciliation">
            <dl className="grid gap-2 sm:grid-cols-4">
              <div>
                <dt className="text-zinc-500 dark:text-zinc-400">Held per database</dt>
                <dd>
                  <Usdc amount={reconRes.result.data.heldInDatabaseUsdc} /> in {reconRes.result.data.jobsHeld} job(s)
                </dd>
              </div>
              <div>
                <dt className="text-zinc-500 dark:text-zinc-400">Held per chain</dt>
                <dd>
                  <Usdc amount={reconRes.result.data.heldOnChainUsdc} />
                </dd>
              </div>
              <div>
                <dt className="text-zinc-500 dark:text-zinc-400">Claimable credits</dt>
                <dd>
                  <Usdc amount={reconRes.result.data.claimableUsdc} />
                </dd>
              </div>
              <div>
                <dt className="text-zinc-500 dark:text-zinc-400">Contract balance</dt>
                <dd>
                  <Usdc amount={reconRes.result.data.tokenBalanceUsdc} />
                </dd>
              </div>
            </dl>
            {reconRes.result.data.strayDeposits.length > 0 ? (
              <p className="text-xs text-zinc-600 dark:text-zinc-400">
                Deposits nobody registered, held for their payers (explained, not differences):{" "}
                {reconRes.result.data.strayDeposits.map((s) => `${s.amountUsdc} USDC from ${s.payer}`).join("; ")}.
              </p>
            ) : null}
            {reconRes.result.data.strayDepositsScanned ? null : (
              <p className="text-xs">
                The RPC would not serve the escrow&apos;s whole event log: unregistered deposits count as a balance
                difference.
              </p>
            )}
            <p className="text-xs">
              Accrued fees in the contract: <Usdc amount={reconRes.result.data.feesAccruedUsdc} />
            </p>
            <p data-testid="reconciliation-differences" className="font-medium">
              {reconRes.result.data.differences.length === 0
                ? "0 differences: the database and the chain agree to the unit."
                : `${reconRes.result.data.differences.length} difference(s)`}
            </p>
            {reconRes.result.data.differences.length > 0 ? (
              <Table caption="Differences">
                <THead>
                  <Tr>
                    <Th>Kind</Th>
                    <Th>Job</Th>
                    <Th>Database</Th>
                    <Th>Chain</Th>
                    <Th>Detail</Th>
                  </Tr>
                </THead>
                <TBody>
                  {reconRes.result.data.differences.map((d, i) => (
                    <Tr key={`${d.kind}-${d.jobId ?? i}`}>
                      <Td>
                        <Badge tone="red">{d.kind}</Badge>
                      </Td>
                      <Td>
                        {d.jobId ? (
                          <Link className="font-mono text-xs underline" href={`/jobs/${d.jobId}`}>
                            {d.jobId.slice(0, 8)}
                          </Link>
                        ) : (
                          "—"
                        )}
                      </Td>
                      <Td>{d.databaseUsdc ?? "—"}</Td>
                      <Td>{d.chainUsdc ?? "—"}</Td>
                      <Td>{d.detail}</Td>
                    </Tr>
                  ))}
                </TBody>
              </Table>
            ) : null}
          </div>
        )}
      </Card>

      <Card
        title="Settlements pending or failed"
        description="Releases, refunds and splits not yet confirmed on chain. A PENDING one can be sent now (money still moves once: the contract settles each slot once). A FAILED one was refused by the chain for good (the reason is shown): sending it again unchanged would change nothing, so it is settled again to a valid address, by default the agent's current wallet."
      >
        {overview.settlements.length === 0 ? (
          <p className="text-sm" data-testid="settlements-none">
            None: every recorded settlement is confirmed.
          </p>
        ) : (
          <Table caption="Settlements">
            <THead>
              <Tr>
                <Th>Job</Th>
                <Th>Kind</Th>
                <Th>Status</Th>
                <Th>Attempts</Th>
                <Th>Reason</Th>
                <Th>Action</Th>
              </Tr>
            </THead>
            <TBody>
              {overview.settlements.map((s) => (
                <Tr key={s.id}>
                  <Td>
                    <Link className="underline" href={`/jobs/${s.jobId}`}>
                      {s.jobTitle}
                    </Link>
                  </Td>
                  <Td>
                    {s.kind}
                    {s.milestonePosition !== null ? ` (part ${s.milestonePosition})` : ""}
                  </Td>
                  <Td>
                    <Badge tone={s.status === "FAILED" ? "red" : "amber"}>{s.status}</Badge>
                  </Td>
                  <Td className="tabular-nums">{s.attempts}</Td>
                  <Td className="max-w-xs break-words text-xs" data-testid={`settlement-reason-${s.id}`}>
                    {s.status === "FAILED" ? (
                      <>
                        Refused for <span className="font-mono">{s.failedToAddress ?? s.toAddress ?? "—"}</span>:{" "}
                        {s.failedReason ?? s.lastError ?? "no reason recorded"}
                      </>
                    ) : (
                      (s.lastError ?? "—")
                    )}
                  </Td>
                  <Td>
                    {s.status === "FAILED" && s.kind !== "REFUND" ? (
                      <OperatorForm
                        action={resettleSettlementAction}
                        fields={{ settlementId: s.id }}
                        label="Settle again"
                        testId={`resettle-${s.id}`}
                        textField={{
                          name: "toAddress",
                          label: "Address to settle to",
                          placeholder: "0x… (blank: the agent's current wallet)",
                        }}
                      />
                    ) : s.status === "FAILED" ? (
                      <p className="text-xs">A refund goes only to its payer; nothing to re-address.</p>
                    ) : (
                      <OperatorForm
                        action={retrySettlementAction}
                        fields={{ settlementId: s.id }}
                        label="Send now"
                        testId={`retry-${s.id}`}
                      />
                    )}
                  </Td>
                </Tr>
              ))}
            </TBody>
          </Table>
        )}
      </Card>

      <Card
        title="Outgoing transfers"
        description="Every kind of money the service sends: escrow settlements, managed-wallet withdrawals, pack payouts and reward slot funding; the newest of each, with status and transaction."
      >
        {overview.transfers.length === 0 ? (
          <p className="text-sm" data-testid="transfers-none">
            None yet.
          </p>
        ) : (
          <Table caption="Outgoing transfers">
            <THead>
              <Tr>
                <Th>Kind</Th>
                <Th>What</Th>
                <Th>Amount</Th>
                <Th>Status</Th>
                <Th>Transaction</Th>
                <Th>Last error</Th>
              </Tr>
            </THead>
            <TBody>
              {overview.transfers.map((t) => (
                <Tr key={`${t.kind}-${t.id}`}>
                  <Td className="text-xs">{t.kind.replace(/_/g, " ").toLowerCase()}</Td>
                  <Td className="max-w-xs break-words text-xs">
                    {t.jobId ? (
                      <Link className="underline" href={`/jobs/${t.jobId}`}>
                        {t.detail}
                      </Link>
                    ) : (
                      t.detail
                    )}
                  </Td>
                  <Td>{t.amountUsdc ? <Usdc amount={t.amountUsdc} /> : "—"}</Td>
                  <Td>
                    <Badge
                      tone={
                        t.status === "CONFIRMED" || t.status === "FUNDED"
                          ? "green"
                          : t.status === "FAILED" || t.status === "UNFUNDED"
                            ? "red"
                            : "amber"
                      }
                    >
                      {t.status}
                    </Badge>
                  </Td>
                  <Td className="font-mono text-xs">
                    {t.txHash ? (
                      t.explorerUrl ? (
                        <a className="underline" href={t.explorerUrl} rel="noreferrer" target="_blank">
                          {t.txHash.slice(0, 10)}…
                        </a>
                      ) : (
                        `${t.txHash.slice(0, 10)}…`
                      )
                    ) : (
                      "—"
                    )}
                  </Td>
                  <Td className="max-w-xs break-words text-xs">{t.lastError ?? "—"}</Td>
                </Tr>
              ))}
            </TBody>
          </Table>
        )}
      </Card>

      <Card
        title="Workers"
        description="Lag: time since each worker's last successful round (or its last start) on any instance."
      >
        <Table caption="Workers">
          <THead>
            <Tr>
              <Th>Worker</Th>
              <Th>Every</Th>
              <Th>Lag</Th>
              <Th>State</Th>
              <Th>Last error</Th>
            </Tr>
          </THead>
          <TBody>
            {health.workers.workers.map((w) => (
              <Tr key={w.name}>
                <Td className="font-mono text-xs">{w.name}</Td>
                <Td>{formatDuration(w.everyMs)}</Td>
                <Td>{w.lagMs === null ? "never started" : formatDuration(w.lagMs)}</Td>
                <Td>{ok(!w.late)}</Td>
                <Td className="max-w-xs break-words text-xs">{w.lastError ?? "—"}</Td>
              </Tr>
            ))}
          </TBody>
        </Table>
      </Card>
    </div>
  );
}
