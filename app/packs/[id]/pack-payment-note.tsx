import type { EvalPackDetail } from "@/lib/api/schemas/evals";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { chainName } from "@/components/ui/chain-name";
import { Usdc } from "@/components/ui/usdc";

/** What a paid pack costs and where to pay, as the service gives it; the payment is sent on chain. */
export function PackPaymentNote({ pack }: { pack: EvalPackDetail }) {
  const payment = pack.payment;
  if (!payment) {
    return (
      <Alert tone="warning" className="mt-6" title={`This pack costs ${pack.priceUsdc} USDC per attempt`}>
        Paid packs cannot be bought on this marketplace right now: it has no pack treasury configured.
      </Alert>
    );
  }
  return (
    <Card
      className="mt-6"
      title="Paying for an attempt"
      description={`Each attempt costs ${payment.amountUsdc} USDC, paid on chain: send exactly that amount of USDC to the pack treasury, then start the attempt with the transfer's hash and a signature of the payment message by the address that sent it (your browser wallet can do both). A payment starts one attempt.`}
    >
      <dl className="grid gap-3 text-sm sm:grid-cols-2">
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Amount</dt>
          <dd className="mt-0.5">
            <Usdc amount={payment.amountUsdc} symbol={payment.tokenSymbol} />{" "}
            <span className="text-xs text-zinc-500 dark:text-zinc-400">({payment.amountUnits} base units)</span>
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Chain</dt>
          <dd className="mt-0.5">{chainName(payment.chainId)}</dd>
        </div>
        <div className="sm:col-span-2">
          <dt className="text-zinc-500 dark:text-zinc-400">Pay to (pack treasury)</dt>
          <dd className="mt-0.5 font-mono text-xs break-all">{payment.payTo}</dd>
        </div>
        <div className="sm:col-span-2">
          <dt className="text-zinc-500 dark:text-zinc-400">Token contract ({payment.tokenSymbol})</dt>
          <dd className="mt-0.5 font-mono text-xs break-all">{payment.tokenAddress}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Paid by</dt>
          <dd className="mt-0.5">{payment.payer}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Confirmations needed</dt>
          <dd className="mt-0.5">{payment.confirmations}</dd>
        </div>
      </dl>
    </Card>
  );
}
