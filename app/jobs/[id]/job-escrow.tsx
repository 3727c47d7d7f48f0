import Link from "next/link";
import type { JobDetail, JobViewer } from "@/lib/api/schemas/viewer";
import { PersonName, shortAddress } from "@/components/ui/avatar";
import { ExplorerLink } from "@/components/ui/explorer-link";
import { toEscrowJobIdHex } from "@/lib/chain/escrow-id";

/** Named before anyone bids: who decides a dispute on this job (the evaluator, else the operator). */
export function JobArbiter({ job }: { job: JobDetail }) {
  return (
    <p className="mt-4 text-sm" data-testid="job-arbiter">
      {job.evaluatorAddress ? (
        <>
          Disputes are decided by the evaluator the poster named:{" "}
          <PersonName
            name={shortAddress(job.evaluatorAddress)}
            seed={job.evaluatorAddress}
            address={job.evaluatorAddress}
          />
          .
        </>
      ) : (
        <>Disputes are decided by the marketplace operator.</>
      )}
    </p>
  );
}

/** Where the job's money is: who funded the escrow and in which transactions it moved, or that it is not funded. */
export function JobEscrowLine({
  job,
  viewer,
  explorer,
}: {
  job: JobDetail;
  viewer: JobViewer;
  explorer: string | null;
}) {
  if (!job.escrowTxHash) {
    return (
      <p className="mt-4 text-sm text-zinc-600 dark:text-zinc-400">
        Not funded yet: the budget is not in escrow, so no money is held for this job.
      </p>
    );
  }
  return (
    <p className="mt-4 text-sm">
      Escrow funded by{" "}
      {job.escrowPayer ? <ExplorerLink value={job.escrowPayer} explorerUrl={explorer} kind="address" /> : "the poster"}{" "}
      (deposit <ExplorerLink value={job.escrowTxHash} explorerUrl={explorer} />)
      {job.releaseTxHash ? (
        <>
          {" "}
          · released in <ExplorerLink value={job.releaseTxHash} explorerUrl={explorer} />
        </>
      ) : null}
      {job.escrowSettledOutside ? (
        <span data-testid="settled-outside">
          {" "}
          · settled on chain without the marketplace: {SETTLED_OUTSIDE_TEXT[job.escrowSettledOutside]}
          {job.refundTxHash ? (
            <>
              {" "}
              (<ExplorerLink value={job.refundTxHash} explorerUrl={explorer} />)
            </>
          ) : null}
        </span>
      ) : null}
      {/* A refund is told once, in the "Refunded" notice below. */}
      {viewer.role === "POSTER" && job.agentId && (job.releaseTxHash || job.refundTxHash) ? (
        <>
          {" "}
          ·{" "}
          <Link href={`/jobs/${job.id}/feedback`} className="font-medium underline">
            Rate the agent on chain
          </Link>{" "}
          (ERC-8004, naming this settlement)
        </>
      ) : null}
    </p>
  );
}

/** How the escrow was settled without the service (escrowSettledOutside), as a person says it. */
const SETTLED_OUTSIDE_TEXT = {
  PAYER_RELEASE: "the poster's wallet released it to the agent",
  APPROVAL_RELEASE: "the poster's signed approval paid the agent",
  AGENT_REFUND: "the agent gave the money back to the poster",
  CLAIM_REFUND: "the money went back to the poster after the escrow expired",
} as const;

/**
 * The payer's Approve kept for the agent (docs/escrow-v2.md, step 6), shown to the job's agent
 * alone (the service sends `call` to no one else) while the money is still in escrow: the call
 * that pays it without the marketplace, with this job's values.
 */
export function JobEscrowApproval({ job }: { job: JobDetail }) {
  const call = job.escrowApproval?.call;
  if (!call || job.releaseTxHash || job.refundTxHash) return null;
  const [jobId, payer, deadline, signature] = call.args;
  const command = `cast send ${call.contract} "${call.signature}" ${jobId} ${payer} ${deadline} ${signature} --rpc-url <the chain's RPC> --private-key <any key with gas>`;
  return (
    <details
      className="mt-4 rounded border border-zinc-200 p-3 text-sm dark:border-zinc-800"
      data-testid="escrow-approval"
    >
      <summary className="cursor-pointer font-medium">Paid even if the marketplace is gone</summary>
      <p className="mt-2">
        The poster signed the approval of this work. Anyone can send it to the escrow, which then pays only your payout
        address (the one assigned to this job):
      </p>
      <pre className="mt-1 overflow-x-auto rounded bg-zinc-100 p-2 text-xs dark:bg-zinc-900">{command}</pre>
    </details>
  );
}

/** "5 hours", "1 day", "3 days": the time left before an expiry, as a person says it. */
function timeLeft(hours: number): string {
  if (hours < 24) {
    const h = Math.max(1, Math.floor(hours));
    return `${h} hour${h === 1 ? "" : "s"}`;
  }
  const d = Math.floor(hours / 24);
  return `${d} day${d === 1 ? "" : "s"}`;
}

/**
 * An EscrowV2 slot's expiry, and how its money comes back without the marketplace
 * (docs/escrow-v2.md, "Taking the money back without the service"): from the expiry on, anyone may
 * return what the slot still holds to the wallet that funded it. The poster gets the command with
 * this job's values, so it works from a saved copy of this page even when the service is gone.
 */
export function JobEscrowExpiry({ job, viewer }: { job: JobDetail; viewer: JobViewer }) {
  if (job.escrowVersion !== 2 || !job.escrowExpiresAt || !job.escrowAddress || !job.escrowPayer) return null;
  if (job.releaseTxHash || job.refundTxHash) return null;
  const expires = new Date(job.escrowExpiresAt);
  const hoursLeft = (expires.getTime() - Date.now()) / 3_600_000;
  const when = `${job.escrowExpiresAt.slice(0, 16).replace("T", " ")} UTC`;
  const command =
    `RPC_URL=<the chain's RPC> PRIVATE_KEY=<any key with gas> npm run escrow:reclaim -- ` +
    `--escrow ${job.escrowAddress} --job ${toEscrowJobIdHex(job.escrowJobId)} --payer ${job.escrowPayer}`;
  return (
    <section
      className="mt-4 rounded border border-zinc-200 p-3 text-sm dark:border-zinc-800"
      data-testid="escrow-expiry"
    >
      <p>
        {hoursLeft <= 0 ? (
          <strong>The escrow expired on {when}.</strong>
        ) : hoursLeft <= 72 ? (
          <strong>
            The escrow expires in {timeLeft(hoursLeft)} ({when}).
          </strong>
        ) : (
          <>The escrow holds this job&apos;s money until {when}.</>
        )}{" "}
        From then on anyone can return what it still holds to{" "}
        <span className="font-mono">{shortAddress(job.escrowPayer)}</span>, the wallet that funded it, even if this
        marketplace is gone; no key, ours included, can stop that or send it anywhere else. Unpaid work is paid only
        before it.
      </p>
      {viewer.role === "POSTER" ? (
        <details className="mt-2" open={hoursLeft <= 0}>
          <summary className="cursor-pointer font-medium">Reclaim on chain</summary>
          <p className="mt-2">
            After the expiry, from a checkout of this marketplace&apos;s code (or with any tool that calls{" "}
            <code>claimRefund(bytes32,address)</code> on the contract):
          </p>
          <pre
            className="mt-1 overflow-x-auto rounded bg-zinc-100 p-2 text-xs dark:bg-zinc-900"
            data-testid="reclaim-command"
          >
            {command}
          </pre>
        </details>
      ) : null}
    </section>
  );
}
