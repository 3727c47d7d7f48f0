import { chainName } from "@/components/ui/chain-name";
import type { Metadata } from "next";
import Link from "next/link";
import type { Address } from "viem";
import { escrowJobIdFromWire } from "@/lib/chain/escrow-id";
import { requireSessionApi } from "@/lib/session/api";
import { FundJob } from "@/components/wallet/fund-job";
import { Usdc } from "@/components/ui/usdc";
import { ExplorerLink } from "@/components/ui/explorer-link";
import { checkFundableAction, fundBySignatureAction, registerEscrowAction } from "@/lib/actions/jobs/register-escrow";
import { found, needed } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "Fund a job" };
type Params = Promise<{ id: string }>;

export default async function FundJobPage({ params }: { params: Params }) {
  const { id } = await params;
  const { api } = await requireSessionApi(`/jobs/${id}/fund`);
  const job = await found(api.getJob({ params: { id } }));
  const chain = (await needed(api.getChain({}))).data;
  // The service says who the visitor is to the job (viewer), no second call to find out.
  const isPoster = job.data.viewer?.role === "POSTER";
  return (
    <div className="mx-auto max-w-xl px-4 py-10">
      <nav className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href={`/jobs/${id}`} className="hover:underline">
          {job.data.title}
        </Link>{" "}
        / fund
      </nav>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">Fund the escrow</h1>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
        <Usdc amount={job.data.budgetUsdc} /> goes into the escrow contract on {chainName(chain.chainId)}, held for this
        job until you approve the delivered work (or refunded if you cancel).
      </p>
      {chain.escrowVersion === 2 && !job.data.funded && job.data.escrowExpiryNeededAt ? (
        <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400" data-testid="fund-expiry">
          The deposit expires on{" "}
          <time dateTime={job.data.escrowExpiryNeededAt} className="font-medium">
            {new Date(job.data.escrowExpiryNeededAt).toUTCString()}
          </time>
          : the job&apos;s deadline plus the time to review it and settle a dispute, and a day. If the job is not paid
          out or refunded by then, anyone can return the money to your wallet on chain, without the marketplace.
        </p>
      ) : null}
      <div className="mt-6 rounded-lg border border-zinc-200 p-5 dark:border-zinc-800">
        {job.data.funded ? (
          <div className="space-y-2 text-sm" role="status">
            <p className="font-medium">This job is funded: the budget is held in escrow until you approve the work.</p>
            <p>
              Deposit: <ExplorerLink value={job.data.escrowTxHash!} explorerUrl={chain.explorerUrl} />
            </p>
            <Link className="font-medium underline" href={`/jobs/${id}`}>
              Back to the job
            </Link>
          </div>
        ) : !isPoster ? (
          <p className="text-sm">Only the poster funds a job.</p>
        ) : (
          <FundJob
            jobId={id}
            escrowJobId={escrowJobIdFromWire(job.data.escrowJobId)}
            budgetUsdc={job.data.budgetUsdc}
            chain={{
              chainId: chain.chainId,
              tokenAddress: chain.tokenAddress as Address,
              escrowAddress: chain.escrowAddress as Address,
              escrowVersion: chain.escrowVersion,
              confirmations: chain.confirmations,
              explorerUrl: chain.explorerUrl,
            }}
            escrowExpiryNeededAt={job.data.escrowExpiryNeededAt}
            register={registerEscrowAction}
            recheck={checkFundableAction}
            fundBySignature={chain.escrowVersion === 2 ? fundBySignatureAction : undefined}
          />
        )}
      </div>
    </div>
  );
}
