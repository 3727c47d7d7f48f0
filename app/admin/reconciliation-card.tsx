import Link from "next/link";
import type { settle } from "@/lib/api/page-data";
import type { Reconciliation } from "@/lib/api/schemas/admin";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { Usdc } from "@/components/ui/usdc";

/**
 * The escrow reconciled against the chain: what the database holds, what the chain holds, and every
 * difference. Its answer is asked by the page beside the overview (both at once: reading the chain
 * is the slow one), and a refusal is shown here in place.
 */
export function ReconciliationCard({
  reconciliation,
}: {
  reconciliation: Awaited<ReturnType<typeof settle<{ data: Reconciliation }>>>;
}) {
  return (
    <Card
      title="Escrow: chain against database"
      description="Every job the database counts as held in escrow (deposit verified, not settled) is read on chain; the contract's token balance must be those slots plus the credits it keeps for refused payouts."
    >
      {reconciliation.error ? (
        <Alert tone="error" title="The chain could not be read" error={reconciliation.error} />
      ) : !reconciliation.result.data.chainConfigured ? (
        <p className="text-sm">No payment chain is configured.</p>
      ) : (
        <div className="space-y-3 text-sm" data-testid="reconciliation">
          <dl className="grid gap-2 sm:grid-cols-4">
            <div>
              <dt className="text-zinc-500 dark:text-zinc-400">Held per database</dt>
              <dd>
                <Usdc amount={reconciliation.result.data.heldInDatabaseUsdc} /> in {reconciliation.result.data.jobsHeld}{" "}
                job(s)
              </dd>
            </div>
            <div>
              <dt className="text-zinc-500 dark:text-zinc-400">Held per chain</dt>
              <dd>
                <Usdc amount={reconciliation.result.data.heldOnChainUsdc} />
              </dd>
            </div>
            <div>
              <dt className="text-zinc-500 dark:text-zinc-400">Claimable credits</dt>
              <dd>
                <Usdc amount={reconciliation.result.data.claimableUsdc} />
              </dd>
            </div>
            <div>
              <dt className="text-zinc-500 dark:text-zinc-400">Contract balance</dt>
              <dd>
                <Usdc amount={reconciliation.result.data.tokenBalanceUsdc} />
              </dd>
            </div>
          </dl>
          {reconciliation.result.data.strayDeposits.length > 0 ? (
            <p className="text-xs text-zinc-600 dark:text-zinc-400">
              Deposits nobody registered, held for their payers (explained, not differences):{" "}
              {reconciliation.result.data.strayDeposits.map((s) => `${s.amountUsdc} USDC from ${s.payer}`).join("; ")}.
            </p>
          ) : null}
          {reconciliation.result.data.strayDepositsScanned ? null : (
            <p className="text-xs">
              The RPC would not serve the escrow&apos;s whole event log: unregistered deposits count as a balance
              difference.
            </p>
          )}
          <p className="text-xs">
            Accrued fees in the contract: <Usdc amount={reconciliation.result.data.feesAccruedUsdc} />
          </p>
          <p data-testid="reconciliation-differences" className="font-medium">
            {reconciliation.result.data.differences.length === 0
              ? "0 differences: the database and the chain agree to the unit."
              : `${reconciliation.result.data.differences.length} difference(s)`}
          </p>
          {reconciliation.result.data.differences.length > 0 ? (
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
                {reconciliation.result.data.differences.map((d, i) => (
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
  );
}
