import type { z } from "zod";
import type { Milestone } from "@/lib/api/schemas/milestones";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { AgentWalletMissing } from "@/components/deliverables/delivery-forms";
import { ChangeRequestNote } from "@/components/revisions/change-request-note";
import { RequestChangesForm } from "@/components/revisions/request-changes-form";
import { ApproveMilestoneForm, CancelLateMilestoneForm, DisputeMilestoneForm } from "./milestone-forms";
import { PartsProgress } from "./parts-progress";

type Part = z.infer<typeof Milestone>;

const STATE: Record<Part["status"], { tone: BadgeTone; label: string }> = {
  OPEN: { tone: "blue", label: "Open" },
  SUBMITTED: { tone: "amber", label: "Delivered" },
  APPROVED: { tone: "violet", label: "Approved" },
  DISPUTED: { tone: "red", label: "Disputed" },
  RELEASED: { tone: "green", label: "Paid" },
  SPLIT: { tone: "green", label: "Split" },
  REFUNDED: { tone: "zinc", label: "Refunded" },
};

/** The parts of a job paid in parts: each one's state, deliverable and receipt; the poster approves or disputes one part at a time. */
export function MilestonesPanel({
  jobId,
  parts,
  canAct,
  explorerTx,
  walletlessAgent,
  maxRevisions = 0,
  agentSide = false,
}: {
  jobId: string;
  parts: Part[];
  canAct: { approve: boolean; dispute: boolean };
  explorerTx?: (hash: string) => string | null;
  /** The assigned agent has no payout wallet (its name): approved parts wait in escrow, and the poster may ask its owner. */
  walletlessAgent?: string | null;
  /** The job's maxRevisions: how many times each part may be sent back for changes. */
  maxRevisions?: number;
  /** The viewer is the assigned agent's side (told what to fix on a part sent back). */
  agentSide?: boolean;
}) {
  if (parts.length === 0) return null;
  // A part is late when its deadline passed with nothing delivered (POST .../milestones/:position/cancel).
  const now = Date.now();
  // A part sent back for changes was delivered once: it is not late "with nothing delivered".
  const isLate = (p: Part) =>
    p.status === "OPEN" && p.submittedAt === null && p.deadlineAt !== null && new Date(p.deadlineAt).getTime() < now;
  return (
    <section aria-labelledby="milestones-heading" className="mt-8" data-testid="milestones">
      <h2 id="milestones-heading" className="text-lg font-semibold">
        Milestones
      </h2>
      <PartsProgress parts={parts} />
      {canAct.approve && walletlessAgent && parts.some((p) => p.status === "SUBMITTED" || p.status === "APPROVED") ? (
        <div className="mt-3">
          <AgentWalletMissing jobId={jobId} agentName={walletlessAgent} />
        </div>
      ) : null}
      <ol className="mt-3 space-y-3">
        {parts.map((p) => {
          const state = STATE[p.status];
          const link = p.settlement?.txHash && explorerTx ? explorerTx(p.settlement.txHash) : null;
          return (
            <li
              key={p.id}
              className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800"
              data-testid={`milestone-${p.position}`}
            >
              <div className="flex flex-wrap items-center gap-2">
                <span className="font-medium">
                  {p.position}. {p.title}
                </span>
                <span className="text-sm text-zinc-600 dark:text-zinc-400">{p.amountUsdc} USDC</span>
                {isLate(p) ? (
                  <Badge tone="red" className="ml-auto" data-testid={`milestone-${p.position}-late`}>
                    Late
                  </Badge>
                ) : null}
                <Badge
                  tone={state.tone}
                  className={isLate(p) ? undefined : "ml-auto"}
                  data-testid={`milestone-${p.position}-state`}
                >
                  {state.label}
                </Badge>
              </div>
              <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{p.acceptanceCriteria}</p>
              {p.deadlineAt ? (
                <p className="mt-1 text-sm">
                  Due {new Date(p.deadlineAt).toISOString().slice(0, 16).replace("T", " ")} UTC
                  {isLate(p)
                    ? ": the deadline passed with nothing delivered; the poster may cancel and refund this part."
                    : ""}
                </p>
              ) : null}
              {p.deliverableUrl ? (
                <p className="mt-1 text-sm">
                  Deliverable:{" "}
                  <a
                    className="underline break-all"
                    href={p.deliverableUrl}
                    rel="noopener noreferrer nofollow"
                    target="_blank"
                  >
                    {p.deliverableUrl}
                  </a>
                </p>
              ) : null}
              {p.ruling ? (
                <p className="mt-1 text-sm">
                  Ruling: {p.ruling.outcome}
                  {p.ruling.agentShare !== null ? ` (${p.ruling.agentShare} % to the agent)` : ""}. {p.ruling.reason}
                </p>
              ) : null}
              {p.settlement ? (
                <p className="mt-1 text-sm" data-testid={`milestone-${p.position}-receipt`}>
                  {p.settlement.status === "CONFIRMED"
                    ? p.settlement.kind === "REFUND"
                      ? `Refunded ${p.settlement.amountUsdc} USDC.`
                      : `Paid ${p.settlement.amountUsdc} USDC to the agent (fee ${p.settlement.feeUsdc})${p.settlement.payerAmountUsdc ? `, ${p.settlement.payerAmountUsdc} USDC back to the poster` : ""}.`
                    : `Settlement ${p.settlement.status.toLowerCase()}${p.settlement.lastError ? `: ${p.settlement.lastError}` : ""}.`}{" "}
                  {p.settlement.txHash ? (
                    link ? (
                      <a className="underline" href={link} rel="noopener noreferrer" target="_blank">
                        Transaction
                      </a>
                    ) : (
                      <code className="text-xs break-all">{p.settlement.txHash}</code>
                    )
                  ) : null}
                </p>
              ) : null}
              {!p.settlement && p.status === "REFUNDED" ? (
                <p className="mt-1 text-sm" data-testid={`milestone-${p.position}-receipt`}>
                  Refunded {p.amountUsdc} USDC to the poster when the job was cancelled (the job&apos;s refund
                  transaction).
                </p>
              ) : null}
              {p.status === "OPEN" && p.changeRequest ? (
                <ChangeRequestNote
                  request={p.changeRequest}
                  maxRevisions={maxRevisions}
                  what={`part ${p.position}`}
                  testId={`milestone-${p.position}-change-request`}
                  forAgent={agentSide}
                />
              ) : p.revisionCount > 0 ? (
                <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
                  Revised {p.revisionCount} of {maxRevisions} times.
                </p>
              ) : null}
              {p.releaseHeldReason ? (
                <p className="mt-1 text-sm text-amber-800 dark:text-amber-300">{p.releaseHeldReason}</p>
              ) : null}
              <div className="mt-3 flex flex-wrap gap-4">
                {canAct.approve && p.status === "SUBMITTED" ? (
                  <ApproveMilestoneForm
                    jobId={jobId}
                    position={p.position}
                    title={p.title}
                    walletMissing={Boolean(walletlessAgent)}
                  />
                ) : null}
                {canAct.approve && p.status === "SUBMITTED" && p.revisionCount < maxRevisions ? (
                  <RequestChangesForm
                    jobId={jobId}
                    position={p.position}
                    revisionCount={p.revisionCount}
                    maxRevisions={maxRevisions}
                  />
                ) : null}
                {canAct.approve && isLate(p) ? <CancelLateMilestoneForm jobId={jobId} position={p.position} /> : null}
                {canAct.dispute &&
                (p.status === "OPEN" || p.status === "SUBMITTED" || p.status === "APPROVED") &&
                !p.settlement ? (
                  <DisputeMilestoneForm jobId={jobId} position={p.position} />
                ) : null}
              </div>
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/** The milestone plan a bid proposes, on the poster's bids list: accepting the bid adopts it. */
export function ProposedPlan({ parts }: { parts: Array<{ title: string; amountUsdc: string }> }) {
  return (
    <div className="mt-1 text-xs" data-testid="bid-plan">
      <p className="font-medium">Proposes {parts.length} parts (adopted if accepted):</p>
      <ol className="list-decimal pl-4">
        {parts.map((p, i) => (
          <li key={i}>
            {p.title}: {p.amountUsdc} USDC
          </li>
        ))}
      </ol>
    </div>
  );
}
