import type { Metadata } from "next";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { withdrawFeesAction } from "@/lib/actions/admin/withdraw-fees";
import { OperatorForm } from "@/components/admin/operator-form";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { Usdc } from "@/components/ui/usdc";

export const metadata: Metadata = { title: "Fees" };
export const dynamic = "force-dynamic";

// The escrow's fees: earned by releases, accrued in the contract until withdrawn to the treasury.
export default async function AdminFeesPage() {
  const { api } = await requireSessionApi("/admin/fees", { human: true });
  const res = await settle(api.getEscrowFees({}));
  if (res.error) return <Alert tone="error" title="The fees could not be read" error={res.error} />;
  const fees = res.result.data;
  return (
    <Card
      title="Escrow fees"
      description={`${fees.feeBps / 100}% of every release stays in the escrow contract until the operator withdraws it to the fee recipient, the treasury (an address fixed when the contract was deployed).`}
    >
      <dl className="grid gap-4 text-sm sm:grid-cols-3" data-testid="fees">
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Earned (every release, part and split)</dt>
          <dd>
            <Usdc amount={fees.earnedUsdc} />
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Accrued, not withdrawn</dt>
          <dd data-testid="fees-accrued">
            <Usdc amount={fees.accruedUsdc} />
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Treasury</dt>
          <dd className="font-mono text-xs">{fees.feeRecipient}</dd>
        </div>
      </dl>
      <div className="mt-4">
        <OperatorForm action={withdrawFeesAction} fields={{}} label="Withdraw to treasury" testId="withdraw-fees" />
      </div>
    </Card>
  );
}
