import type { DisputeCase } from "@/lib/api/schemas/disputes";
import { PersonName, shortAddress } from "@/components/ui/avatar";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { ExplorerLink } from "@/components/ui/explorer-link";
import { formatDate } from "@/components/ui/time";
import { ProofStatusBadge } from "@/components/deliverables/proof-history";
import { ProofHistory } from "@/components/deliverables/proof-history";
import { AddressPrint } from "@/components/people/address-print";
import { AddStatementForm } from "./dispute-forms";
import { RulingForm } from "./ruling-form";

// The dispute case (GET /v1/jobs/:id/dispute) for its readers: the parties, the job's evaluator and
// the operator. Server-rendered; the statement form shows for a side while the case takes
// statements, the ruling form for the arbiter of the moment (viewer.can, from the service).

const STATUS_TONE = { OPEN: "amber", ESCALATED: "red", RULED: "green" } as const;
const OUTCOME = { PAY_AGENT: "Pay the agent", REFUND_POSTER: "Refund the poster", SPLIT: "Split" } as const;
const SIDE = { POSTER: "Poster", AGENT: "Agent" } as const;

export function DisputeStatusBadge({ status }: { status: DisputeCase["status"] }) {
  return (
    <Badge tone={STATUS_TONE[status]}>
      {status === "OPEN" ? "Open" : status === "ESCALATED" ? "Escalated to the operator" : "Ruled"}
    </Badge>
  );
}

/** The job's two sides by their names (the job's poster and assigned agent), for who said what. */
export interface DisputeParties {
  poster: { id: string; name: string; address?: string | null };
  agent: { id: string; name: string } | null;
}

export function DisputeCasePanel({
  kase,
  explorerUrl,
  parties,
  feeBps,
}: {
  kase: DisputeCase;
  explorerUrl: string | null;
  parties?: DisputeParties | null;
  /** The escrow's fee, so that the ruling's confirmation says what each side gets; null: unknown. */
  feeBps?: number | null;
}) {
  const settlement = kase.ruling?.settlement ?? null;
  const sideName = (side: keyof typeof SIDE) => (side === "POSTER" ? parties?.poster : parties?.agent) ?? null;
  const evaluator = kase.evaluatorAddress ? (
    <PersonName
      name={shortAddress(kase.evaluatorAddress)}
      seed={kase.evaluatorAddress}
      address={kase.evaluatorAddress}
    />
  ) : null;
  return (
    <Card
      id="dispute"
      className="mt-6 scroll-mt-20"
      title="Dispute"
      description={`Opened${kase.openedBy ? ` by the ${SIDE[kase.openedBy].toLowerCase()}` : ""} on ${formatDate(kase.createdAt, { withTime: true })}: ${kase.reason}`}
    >
      <div data-testid="dispute-case" data-status={kase.status} className="space-y-4 text-sm">
        <div className="flex flex-wrap items-center gap-2">
          <DisputeStatusBadge status={kase.status} />
          <span>
            Arbiter: {kase.arbiter === "EVALUATOR" ? <>the evaluator {evaluator}</> : "the marketplace operator"}
          </span>
        </div>
        <dl className="grid grid-cols-1 gap-2 sm:grid-cols-2">
          <div>
            <dt className="text-zinc-500 dark:text-zinc-400">Statements close</dt>
            <dd>
              <time dateTime={kase.answerDeadlineAt}>{formatDate(kase.answerDeadlineAt, { withTime: true })}</time>
            </dd>
          </div>
          {kase.ruledAt ? null : (
            <div>
              <dt className="text-zinc-500 dark:text-zinc-400">
                {kase.escalatedAt ? "Escalated to the operator" : "Escalates to the operator if not ruled by"}
              </dt>
              <dd data-testid="dispute-deadline">
                <time dateTime={kase.escalatedAt ?? kase.rulingDeadlineAt}>
                  {formatDate(kase.escalatedAt ?? kase.rulingDeadlineAt, { withTime: true })}
                </time>
              </dd>
            </div>
          )}
        </dl>

        <DeliveredWork kase={kase} />

        <section aria-labelledby="dispute-statements-heading">
          <h3 id="dispute-statements-heading" className="font-semibold">
            Statements
          </h3>
          {/* Both sides at once, side by side where there is room: the arbiter reads them together. */}
          <div className="mt-2 grid grid-cols-1 gap-4 sm:grid-cols-2">
            {(["POSTER", "AGENT"] as const).map((side) => {
              const ofSide = kase.statements.filter((s) => s.side === side);
              return (
                <div key={side} data-testid={`dispute-statements-${side.toLowerCase()}`}>
                  <h4 className="text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
                    {SIDE[side]}&apos;s side
                  </h4>
                  {ofSide.length === 0 ? (
                    <p className="mt-1 text-zinc-500 dark:text-zinc-400">No statement yet.</p>
                  ) : (
                    <ol className="mt-2 space-y-3">
                      {ofSide.map((s) => (
                        <li
                          key={s.id}
                          data-testid="dispute-statement"
                          data-side={s.side}
                          className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
                        >
                          <p
                            className="text-xs text-zinc-500 dark:text-zinc-400"
                            data-testid="dispute-statement-author"
                          >
                            {sideName(s.side) ? (
                              <>
                                <PersonName
                                  className="font-medium text-zinc-800 dark:text-zinc-200"
                                  name={sideName(s.side)!.name}
                                  seed={sideName(s.side)!.id}
                                />
                                {s.side === "POSTER" ? (
                                  <AddressPrint name={sideName(s.side)!.name} address={parties?.poster.address} />
                                ) : null}{" "}
                                ({SIDE[s.side].toLowerCase()})
                              </>
                            ) : (
                              SIDE[s.side]
                            )}{" "}
                            · <time dateTime={s.createdAt}>{formatDate(s.createdAt, { withTime: true })}</time>
                          </p>
                          <p className="mt-1 whitespace-pre-wrap">{s.body}</p>
                          {s.evidence.length > 0 ? (
                            <ul className="mt-2 space-y-1">
                              {s.evidence.map((e) => (
                                <li
                                  key={e.id}
                                  data-testid="dispute-evidence"
                                  data-status={e.status ?? ""}
                                  className="flex flex-wrap items-center gap-2 text-xs"
                                >
                                  <ProofStatusBadge status={e.status} />
                                  <a
                                    href={e.url}
                                    rel="noopener noreferrer nofollow"
                                    target="_blank"
                                    className="break-all underline"
                                  >
                                    {e.url}
                                  </a>
                                  {e.httpStatus ? <span>HTTP {e.httpStatus}</span> : null}
                                  {e.contentSha256 ? (
                                    <span title={`SHA-256 ${e.contentSha256}`} data-testid="evidence-hash">
                                      content fingerprint <code>{e.contentSha256.slice(0, 8)}</code>
                                    </span>
                                  ) : null}
                                  {e.reason ? (
                                    <span className="text-zinc-500 dark:text-zinc-400">{e.reason}</span>
                                  ) : null}
                                </li>
                              ))}
                            </ul>
                          ) : null}
                        </li>
                      ))}
                    </ol>
                  )}
                </div>
              );
            })}
          </div>
        </section>

        {kase.ruling ? (
          <section
            aria-labelledby="dispute-ruling-heading"
            data-testid="dispute-ruling"
            data-outcome={kase.ruling.outcome}
          >
            <h3 id="dispute-ruling-heading" className="font-semibold">
              Ruling
            </h3>
            <p className="mt-1">
              {OUTCOME[kase.ruling.outcome]}
              {kase.ruling.outcome === "SPLIT"
                ? `: ${kase.ruling.agentShare} % to the agent, ${100 - kase.ruling.agentShare} % to the poster`
                : ""}{" "}
              — by{" "}
              {kase.ruling.arbiter === "EVALUATOR" ? (
                <>the evaluator {evaluator ?? null}</>
              ) : (
                "the marketplace operator"
              )}{" "}
              on {formatDate(kase.ruling.createdAt, { withTime: true })}.
            </p>
            <p className="mt-1 whitespace-pre-wrap text-zinc-700 dark:text-zinc-300">{kase.ruling.reason}</p>
            {settlement ? (
              <p className="mt-1" data-testid="dispute-settlement" data-status={settlement.status}>
                Settlement {settlement.status.toLowerCase()}
                {settlement.txHash ? (
                  <>
                    {" "}
                    in <ExplorerLink value={settlement.txHash} explorerUrl={explorerUrl} />
                  </>
                ) : null}
                {settlement.agentAmountUsdc
                  ? ` · ${settlement.agentAmountUsdc} USDC to the agent (fee ${settlement.feeUsdc ?? "0"})`
                  : ""}
                {settlement.payerAmountUsdc ? ` · ${settlement.payerAmountUsdc} USDC back to the poster` : ""}
              </p>
            ) : null}
          </section>
        ) : null}

        {kase.viewer.can.addStatement ? <AddStatementForm jobId={kase.jobId} /> : null}
        {kase.viewer.can.rule ? (
          <RulingForm jobId={kase.jobId} budgetUsdc={kase.budgetUsdc} feeBps={feeBps ?? null} />
        ) : null}
      </div>
    </Card>
  );
}

/**
 * The work under dispute, for the case's readers (the arbiter above all): the deliverable as last
 * delivered, when, its content fingerprint, and every proof check of it, next to the statements.
 */
function DeliveredWork({ kase }: { kase: DisputeCase }) {
  const d = kase.deliverable;
  const latest = kase.proofChecks.at(-1) ?? null;
  return (
    <section aria-labelledby="dispute-work-heading" data-testid="dispute-deliverable">
      <h3 id="dispute-work-heading" className="font-semibold">
        The delivered work
      </h3>
      {d ? (
        <div className="mt-1 space-y-1">
          <p className="break-all">
            <a className="underline" href={d.url} rel="noopener noreferrer nofollow" target="_blank">
              {d.url}
            </a>
          </p>
          <p className="text-xs text-zinc-600 dark:text-zinc-400">
            {d.submittedAt ? <>Delivered {formatDate(d.submittedAt, { withTime: true })}. </> : null}
            {d.proofHash ? (
              <span title={`SHA-256 ${d.proofHash}`}>
                Content fingerprint <code>{d.proofHash.slice(0, 12)}</code>.{" "}
              </span>
            ) : null}
            {latest ? (
              <>
                Latest check: <ProofStatusBadge status={latest.status} />
              </>
            ) : null}
          </p>
        </div>
      ) : (
        <p className="mt-1 text-zinc-500 dark:text-zinc-400">Nothing was delivered before the dispute.</p>
      )}
      <details className="mt-2" open={kase.viewer.can.rule}>
        <summary className="cursor-pointer text-sm font-medium">
          Proof history ({kase.proofChecks.length} check{kase.proofChecks.length === 1 ? "" : "s"})
        </summary>
        <ProofHistory className="mt-2" checks={[...kase.proofChecks].reverse()} />
      </details>
    </section>
  );
}
