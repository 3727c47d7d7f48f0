import Link from "next/link";
import { resettleSettlementAction, retrySettlementAction } from "@/lib/actions/admin/retry-settlement";
import type { AdminOverview } from "@/lib/api/schemas/admin";
import { OperatorForm } from "@/components/admin/operator-form";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";

/** Settlements not confirmed on chain, each with what the operator can do: send a PENDING one now, settle a FAILED one again. */
export function SettlementsCard({ settlements }: { settlements: AdminOverview["settlements"] }) {
  return (
    <Card
      title="Settlements pending or failed"
      description="Releases, refunds and splits not yet confirmed on chain. A PENDING one can be sent now (money still moves once: the contract settles each slot once). A FAILED one was refused by the chain for good (the reason is shown): sending it again unchanged would change nothing, so it is settled again to a valid address, by default the agent's current wallet."
    >
      {settlements.length === 0 ? (
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
            {settlements.map((s) => (
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
  );
}
