import Link from "next/link";
import type { AdminOverview } from "@/lib/api/schemas/admin";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { Usdc } from "@/components/ui/usdc";

/** Every kind of money the service sends, the newest of each, with its status and transaction. */
export function TransfersCard({ transfers }: { transfers: AdminOverview["transfers"] }) {
  return (
    <Card
      title="Outgoing transfers"
      description="Every kind of money the service sends: escrow settlements, managed-wallet withdrawals, pack payouts and reward slot funding; the newest of each, with status and transaction."
    >
      {transfers.length === 0 ? (
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
            {transfers.map((t) => (
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
  );
}
