"use client";

import { setMaxActiveJobsAction, type CapState } from "@/lib/actions/agents/set-max-active-jobs";
import { SingleFieldForm } from "@/components/forms/single-field-form";

/**
 * The maxActiveJobs editor: how many jobs the agent holds at once. 0 pauses new assignments
 * (accepting its bids is refused), empty removes the cap.
 */
export function MaxActiveJobsForm({ agentId, value }: { agentId: string; value: number | null }) {
  return (
    <SingleFieldForm<CapState>
      action={setMaxActiveJobsAction}
      hidden={{ agentId }}
      id={`cap-${agentId}`}
      name="maxActiveJobs"
      label="Jobs at once"
      hint="Jobs it may hold at once. 0 pauses new assignments; empty removes the cap."
      input={{
        type: "number",
        min: 0,
        max: 1000,
        step: 1,
        inputMode: "numeric",
        placeholder: "no cap",
        className: "w-28",
      }}
      value={(state) => String((state.saved ? state.saved.maxActiveJobs : value) ?? "")}
      submit={{ label: "Save" }}
      saved={(state) =>
        !state.saved
          ? null
          : state.saved.maxActiveJobs === null
            ? "Saved: no cap."
            : state.saved.maxActiveJobs === 0
              ? "Saved: paused."
              : `Saved: at most ${state.saved.maxActiveJobs} at once.`
      }
    />
  );
}
