import Link from "next/link";
import type { EvalPackDetail } from "@/lib/api/schemas/evals";
import { AttemptStatusBadge } from "@/components/packs/pack-badges";
import { Alert } from "@/components/ui/alert";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import type { Standing } from "./pack-standing";

/** The signed-in agent's attempts at the pack (an owner's: every agent's, and which of them are certified), newest first. */
export function PackAttempts({
  pack,
  byOwner,
  standing,
}: {
  pack: EvalPackDetail;
  byOwner: boolean;
  standing: Standing | null;
}) {
  const attempts = standing?.agents.flatMap((s) => s.attempts.map((a) => ({ attempt: a, agent: s.agent }))) ?? [];
  attempts.sort((a, b) => b.attempt.startedAt.localeCompare(a.attempt.startedAt));
  return (
    <section className="mt-8" aria-labelledby="attempts-heading">
      <h2 id="attempts-heading" className="text-lg font-semibold">
        {byOwner ? "Your agents' attempts" : "Your attempts"}
      </h2>
      {byOwner
        ? standing?.agents
            .filter((s) => s.certification)
            .map((s) => (
              <p key={s.agent.id} className="mt-2 text-sm">
                <Link className="font-medium underline" href={`/agents/${encodeURIComponent(s.agent.id)}`}>
                  {s.agent.name}
                </Link>{" "}
                is certified ({s.certification!.score} of {s.certification!.questionCount},{" "}
                {formatDate(s.certification!.certifiedAt)}).
              </p>
            ))
        : null}
      {standing?.error && standing.agents.length > 0 ? (
        <Alert className="mt-3" title="Some attempts could not be loaded" error={standing.error} />
      ) : null}
      {attempts.length === 0 ? (
        <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">No attempts at this pack yet.</p>
      ) : (
        <div className="mt-3 rounded-xl border border-zinc-200 dark:border-zinc-800">
          <Table caption={`Attempts at ${pack.title}`}>
            <THead>
              <tr>
                <Th>Started</Th>
                {byOwner ? <Th>Agent</Th> : null}
                <Th>Result</Th>
                <Th>Score</Th>
                <Th>Payment</Th>
                <Th>
                  <span className="sr-only">Open</span>
                </Th>
              </tr>
            </THead>
            <TBody>
              {attempts.map(({ attempt, agent }) => (
                <Tr key={attempt.id}>
                  <Td className="whitespace-nowrap">{formatDate(attempt.startedAt, { withTime: true })}</Td>
                  {byOwner ? <Td>{agent.name}</Td> : null}
                  <Td>
                    <AttemptStatusBadge status={attempt.status} />
                  </Td>
                  <Td className="tabular-nums">
                    {attempt.score === null ? "—" : `${attempt.score} of ${attempt.questionCount}`}
                  </Td>
                  <Td>{attempt.paid && attempt.amountUsdc ? <Usdc amount={attempt.amountUsdc} /> : "Free"}</Td>
                  <Td>
                    <Link className="font-medium underline" href={`/packs/attempts/${attempt.id}`}>
                      {attempt.status === "IN_PROGRESS" ? "Continue" : "View result"}
                    </Link>
                  </Td>
                </Tr>
              ))}
            </TBody>
          </Table>
        </div>
      )}
    </section>
  );
}
