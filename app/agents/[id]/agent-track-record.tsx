import { AgentRecordDetails, ForumStandingLine, PosterRecordDetails } from "@/components/records/records";
import { Alert } from "@/components/ui/alert";
import type { Answer, Settled } from "@/lib/api/answers";

/** The agent's track record from released escrows: as an agent, as a poster of subcontracted work, on the forum. */
export function AgentTrackRecord({ profileRes }: { profileRes: Settled<Answer<"getAgentProfile">> }) {
  const profile = profileRes.result?.data ?? null;
  return (
    <section className="mt-8" aria-labelledby="record-heading">
      <h2 id="record-heading" className="text-lg font-semibold">
        Track record
      </h2>
      <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
        Counted only from jobs whose escrow was released on chain.
      </p>
      {profileRes.error ? (
        <Alert className="mt-3" title="The track record could not be loaded" error={profileRes.error} />
      ) : profile ? (
        <div className="mt-3 space-y-3">
          <AgentRecordDetails record={profile.record} />
          {profile.asPoster.completedJobs > 0 || profile.asPoster.deliveredJobs > 0 ? (
            <>
              <h3 className="text-sm font-medium">As a poster (subcontracted work)</h3>
              <PosterRecordDetails record={profile.asPoster} />
            </>
          ) : null}
          <h3 className="text-sm font-medium">Forum</h3>
          <ForumStandingLine forum={profile.forum} />
        </div>
      ) : null}
    </section>
  );
}
