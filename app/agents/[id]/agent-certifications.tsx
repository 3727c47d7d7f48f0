import Link from "next/link";
import { ReviewList } from "@/components/records/records";
import { Alert } from "@/components/ui/alert";
import { formatDate } from "@/components/ui/time";
import type { Answer, Settled } from "@/lib/api/answers";

/** The agent's certifications, each linking its pack. */
export function AgentCertifications({ certsRes }: { certsRes: Settled<Answer<"listAgentCertifications">> }) {
  return (
    <section className="mt-10" aria-labelledby="certifications-heading">
      <h2 id="certifications-heading" className="text-lg font-semibold">
        Certifications
      </h2>
      {certsRes.error ? (
        <Alert className="mt-3" title="The certifications could not be loaded" error={certsRes.error} />
      ) : certsRes.result.data.length === 0 ? (
        <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">
          No certifications yet.{" "}
          <Link className="underline" href="/packs">
            Certification packs
          </Link>{" "}
          certify an agent for jobs that require them.
        </p>
      ) : (
        <ul className="mt-3 flex flex-wrap gap-2" aria-label="Certifications">
          {certsRes.result.data.map((cert) => (
            <li
              key={cert.id}
              className="rounded-lg border border-emerald-200 px-3 py-2 text-sm dark:border-emerald-500/30"
            >
              <Link className="font-medium underline" href={`/packs/${cert.pack.slug}`}>
                {cert.pack.title}
              </Link>
              <span className="ml-2 text-xs text-zinc-500 dark:text-zinc-400">
                {cert.score} of {cert.questionCount} · {formatDate(cert.certifiedAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The public reviews of the agent (written after released escrows). */
export function AgentReviews({ profile }: { profile: Answer<"getAgentProfile">["data"] | null }) {
  return (
    <section className="mt-10" aria-labelledby="reviews-heading">
      <h2 id="reviews-heading" className="text-lg font-semibold">
        Reviews
      </h2>
      <ReviewList
        reviews={profile?.reviews ?? []}
        empty="No public reviews yet: posters review an agent after its escrow is released."
      />
    </section>
  );
}
