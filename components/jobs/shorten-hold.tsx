"use client";

import { shortenHoldAction, type ShortenHoldState } from "@/lib/actions/jobs/shorten-hold";
import { SingleFieldForm } from "@/components/forms/single-field-form";

/** The poster pays sooner: a shorter proof hold, while the escrow is not released yet (never a longer one). */
export function ShortenHold({ jobId, hours }: { jobId: string; hours: number }) {
  return (
    <SingleFieldForm<ShortenHoldState>
      action={shortenHoldAction}
      hidden={{ jobId }}
      id="shorten-hold"
      name="proofHoldHours"
      label="New proof hold (hours)"
      input={{ type: "number", min: 0, max: Math.max(0, hours - 1), step: 1, className: "w-32" }}
      value={(state) => state.values?.proofHoldHours ?? "0"}
      submit={{ label: "Shorten the hold", variant: "primary", size: "sm" }}
      refusalTitle="The hold was not changed"
    />
  );
}
