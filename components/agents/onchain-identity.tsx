import Link from "next/link";
import type { z } from "zod";
import type { AgentFeedback, AgentIdentity, OnchainFeedback } from "@/lib/api/schemas/identity";
import { Badge } from "@/components/ui/badge";
import { formatDate } from "@/components/ui/time";

type Identity = z.output<typeof AgentIdentity>;
type Feedback = z.output<typeof AgentFeedback>;

function FeedbackRows({ items, testId }: { items: Array<z.output<typeof OnchainFeedback>>; testId: string }) {
  if (items.length === 0) return <p className="text-sm text-zinc-500 dark:text-zinc-400">None.</p>;
  return (
    <ul className="space-y-2 text-sm" data-testid={testId}>
      {items.map((f) => (
        <li
          key={`${f.clientAddress}-${f.feedbackIndex}`}
          className="rounded-md border border-zinc-200 p-3 dark:border-zinc-800"
        >
          <p>
            <span className="font-medium">
              {f.valueDecimals === 0 ? f.value : `${f.value} (÷10^${f.valueDecimals})`}
            </span>
            {f.tag1 ? (
              <>
                {" "}
                <Badge tone="zinc">{f.tag1}</Badge>
              </>
            ) : null}
            {f.revoked ? (
              <>
                {" "}
                <Badge tone="amber">revoked</Badge>
              </>
            ) : null}{" "}
            from <code className="break-all">{f.clientAddress}</code>
          </p>
          {f.settlement ? (
            <p className="text-xs text-zinc-600 dark:text-zinc-400">
              Backed by the {f.settlement.kind.toLowerCase()} of{" "}
              <Link className="underline" href={`/jobs/${f.settlement.jobId}`}>
                a job
              </Link>{" "}
              in transaction <code className="break-all">{f.settlement.txHash}</code>
            </p>
          ) : f.feedbackURI ? (
            <p className="text-xs text-zinc-600 dark:text-zinc-400">
              Document: <code className="break-all">{f.feedbackURI}</code>
            </p>
          ) : null}
          {f.responses.map((r) => (
            <p key={r.txHash} className="mt-1 text-xs">
              Response from <code>{r.responder}</code>: <code className="break-all">{r.responseURI}</code>
            </p>
          ))}
        </li>
      ))}
    </ul>
  );
}

/** The agent's ERC-8004 identity, the liveness of its declared endpoints and its on-chain feedback. */
export function OnchainIdentity({
  agentId,
  identity,
  feedback,
  mine,
}: {
  agentId: string;
  identity: Identity | null;
  feedback: Feedback | null;
  mine: boolean;
}) {
  return (
    <section className="mt-8" aria-labelledby="identity-heading">
      <h2 id="identity-heading" className="text-lg font-semibold">
        On-chain identity (ERC-8004)
      </h2>
      {identity?.registered ? (
        <div className="mt-2 space-y-1 text-sm" data-testid="onchain-identity">
          <p>
            agentId <span className="font-mono">{identity.onchainAgentId}</span> in{" "}
            <code className="break-all">{identity.agentRegistry}</code>
          </p>
          <p>
            Registration file:{" "}
            <a className="underline" href={identity.agentURI}>
              {identity.agentURI}
            </a>
            {identity.x402Support ? (
              <>
                {" "}
                · <Badge tone="green">x402</Badge>
              </>
            ) : null}
          </p>
        </div>
      ) : (
        <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">
          Not registered on chain.
          {mine ? (
            <>
              {" "}
              <Link className="font-medium underline" href={`/agents/${agentId}/identity`}>
                Register it
              </Link>{" "}
              (one signature).
            </>
          ) : null}
        </p>
      )}
      {identity && identity.services.length > 0 ? (
        <>
          <h3 className="mt-4 text-sm font-medium">Declared endpoints</h3>
          <ul className="mt-1 space-y-1 text-sm" data-testid="endpoint-liveness">
            {identity.services.map((s) => (
              <li key={s.name}>
                <span className="font-medium">{s.name}</span> <code className="break-all">{s.endpoint}</code>:{" "}
                {s.lastAnsweredAt ? <>last answered {formatDate(s.lastAnsweredAt)}</> : <>has not answered</>}
                {s.lastCheckedAt ? (
                  <span className="text-zinc-500 dark:text-zinc-400">
                    {" "}
                    (checked {formatDate(s.lastCheckedAt)}
                    {s.lastError ? `: ${s.lastError}` : ""})
                  </span>
                ) : (
                  <span className="text-zinc-500 dark:text-zinc-400"> (not checked yet)</span>
                )}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {feedback && identity?.registered ? (
        <>
          <h3 className="mt-4 text-sm font-medium">Feedback backed by a settlement on this marketplace</h3>
          <FeedbackRows items={feedback.backed} testId="feedback-backed" />
          <h3 className="mt-4 text-sm font-medium">Other feedback in the registry (no settlement here behind it)</h3>
          <FeedbackRows items={feedback.other} testId="feedback-other" />
        </>
      ) : null}
    </section>
  );
}
