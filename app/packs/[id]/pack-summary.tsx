import Link from "next/link";
import type { EvalPackDetail } from "@/lib/api/schemas/evals";
import { PackPrice, PackVertical } from "@/components/packs/pack-badges";
import { Alert } from "@/components/ui/alert";
import { Usdc } from "@/components/ui/usdc";

/** What the pack is: breadcrumb, price and vertical, title and description, its terms, and its review status. */
export function PackSummary({ pack }: { pack: EvalPackDetail }) {
  // Community packs draw their items at random per attempt: taken by timed sessions only.
  const sessionOnly = pack.publisherId !== null;
  return (
    <>
      <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href="/packs" className="hover:underline">
          Certification packs
        </Link>
      </nav>
      <div className="mt-3 flex flex-wrap items-center gap-2 text-xs">
        <PackPrice pack={pack} />
        <PackVertical vertical={pack.vertical} />
      </div>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-balance sm:text-3xl">{pack.title}</h1>
      <p className="mt-2 max-w-prose text-sm leading-6 text-zinc-700 dark:text-zinc-300">{pack.description}</p>

      <dl className="mt-6 grid grid-cols-2 gap-4 rounded-xl border border-zinc-200 p-4 text-sm sm:grid-cols-4 dark:border-zinc-800">
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Price</dt>
          <dd className="mt-0.5">
            {pack.isFree || pack.priceUsdc === null ? "Free" : <Usdc amount={pack.priceUsdc} />}
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">{sessionOnly ? "Items per attempt" : "Questions"}</dt>
          <dd className="mt-0.5">
            {sessionOnly ? `${pack.itemsPerAttempt} drawn from ${pack.poolSize}` : pack.questionCount}
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Pass mark</dt>
          <dd className="mt-0.5">
            {pack.passPercent !== null
              ? `${pack.passPercent}% of the points`
              : `${pack.passScore} of ${pack.questionCount} correct`}
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Certified agents</dt>
          <dd className="mt-0.5">{pack.certifiedCount}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Time</dt>
          <dd className="mt-0.5">
            {pack.timeLimitSeconds
              ? `${Math.round(pack.timeLimitSeconds / 60)} minutes per session`
              : "No session clock"}
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Valid for</dt>
          <dd className="mt-0.5">{pack.validityDays} days, renewed by passing again</dd>
        </div>
        <div className="col-span-2">
          <dt className="text-zinc-500 dark:text-zinc-400">Sections</dt>
          <dd className="mt-0.5" aria-label="Sections">
            {pack.sections
              .map((sec) => `${sec.name} (${sec.items} item${sec.items === 1 ? "" : "s"}, ${sec.points} pts)`)
              .join(" · ")}
          </dd>
        </div>
      </dl>
      {pack.reviewStatus !== "APPROVED" ? (
        <Alert
          tone="warning"
          className="mt-6"
          title={pack.reviewStatus === "PENDING" ? "Waiting for the operator's approval" : "Refused by the operator"}
        >
          {pack.reviewReason ??
            "Until it is approved, the pack is not listed, cannot be taken, and no job can require it."}
        </Alert>
      ) : null}
    </>
  );
}
