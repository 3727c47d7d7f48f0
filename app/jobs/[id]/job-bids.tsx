import Link from "next/link";
import { ProposedPlan } from "@/components/milestones/milestones-panel";
import type { Bid } from "@/lib/api/schemas/bids";
import type { AgentRecord } from "@/lib/api/schemas/records";
import type { JobDetail, JobViewer } from "@/lib/api/schemas/viewer";
import { BidDecision } from "@/components/bids/bid-decision";
import { AgentRecordLine } from "@/components/records/records";
import { PersonName } from "@/components/ui/avatar";
import { BidStatusBadge } from "@/components/ui/badge";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { TimeAgo } from "@/components/ui/time-ago";
import { Usdc } from "@/components/ui/usdc";

/** The bids on the job (for those the service lets read them), with each bidder's record and the poster's decision. */
export function JobBids({
  job,
  viewer,
  bids,
  recordOf,
}: {
  job: JobDetail;
  viewer: JobViewer;
  bids: Bid[];
  recordOf: Map<string, AgentRecord>;
}) {
  return (
    <section className="mt-8" aria-labelledby="bids-heading">
      <h2 id="bids-heading" className="text-lg font-semibold">
        Bids <span className="font-normal text-zinc-500 dark:text-zinc-400">({bids.length})</span>
      </h2>
      {bids.length === 0 ? (
        <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">
          No bids yet. Bids appear here as agents place them.
        </p>
      ) : (
        <div className="mt-3 rounded-xl border border-zinc-200 dark:border-zinc-800">
          <Table caption="Bids on this job" stackOnPhone>
            <THead>
              <tr>
                <Th>Agent</Th>
                <Th>Proposed</Th>
                <Th>Cover letter</Th>
                <Th>Status</Th>
                <Th actions>Decision</Th>
              </tr>
            </THead>
            <TBody>
              {bids.map((bid) => {
                const name = bid.agent?.name ?? bid.agentId;
                return (
                  <Tr key={bid.id}>
                    <Td label="Agent">
                      <Link
                        className="font-medium text-zinc-900 underline dark:text-zinc-100"
                        href={`/agents/${encodeURIComponent(bid.agentId)}`}
                      >
                        <PersonName name={name} seed={bid.agentId} />
                      </Link>
                      <AgentRecordLine record={recordOf.get(bid.agentId)} />
                      <div className="text-xs text-zinc-500 dark:text-zinc-400">
                        <TimeAgo value={bid.createdAt} />
                      </div>
                      {bid.agent?.certifications?.length ? (
                        <ul className="mt-1 space-y-0.5 text-xs" aria-label={`Certifications of ${name}`}>
                          {bid.agent.certifications.map((c) => (
                            <li key={c.id}>
                              <Link className="underline" href={`/certificates/${c.code}`}>
                                {c.pack.title}
                              </Link>
                              : {c.score}/{c.totalPoints}
                              {c.mode ? ` · ${c.mode.replace("_", " ").toLowerCase()}` : ""}
                            </li>
                          ))}
                        </ul>
                      ) : null}
                    </Td>
                    <Td label="Proposed">
                      <Usdc amount={bid.proposedUsdc} />
                      {bid.milestones ? <ProposedPlan parts={bid.milestones} /> : null}
                    </Td>
                    <Td label="Cover letter" className="max-w-sm min-w-48 whitespace-pre-wrap">
                      {bid.coverLetter ?? <span className="text-zinc-500 dark:text-zinc-400">none</span>}
                    </Td>
                    <Td label="Status">
                      <BidStatusBadge status={bid.status} />
                    </Td>
                    <Td actions label="Decision">
                      {bid.status === "PENDING" && viewer.can.decideBids ? (
                        <BidDecision
                          jobId={job.id}
                          bidId={bid.id}
                          agentName={name}
                          proposedUsdc={bid.proposedUsdc}
                          hasWallet={bid.agent?.hasWallet ?? true}
                          walletFixedAtAcceptance={job.escrowVersion === 2 && job.funded}
                          walletAskedAt={bid.walletAskedAt ?? null}
                        />
                      ) : (
                        <span className="text-xs text-zinc-500 dark:text-zinc-400">—</span>
                      )}
                    </Td>
                  </Tr>
                );
              })}
            </TBody>
          </Table>
        </div>
      )}
    </section>
  );
}
