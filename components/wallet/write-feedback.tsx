"use client";

import { useState } from "react";
import type { Hex } from "viem";
import { SendPreparedCall } from "./send-prepared-call";

export interface WriteFeedbackProps {
  jobId: string;
  explorerUrl: string | null;
  prepare: (
    jobId: string,
    value: number,
    comment: string,
  ) => Promise<{ ok: boolean; error?: string; call?: { chainId: number; to: Hex; data: Hex } }>;
}

/** The poster's rating (0-100) written to the Reputation Registry from their own wallet. */
export function WriteFeedback({ jobId, explorerUrl, prepare }: WriteFeedbackProps) {
  const [value, setValue] = useState(90);
  const [comment, setComment] = useState("");
  return (
    <SendPreparedCall
      label="Write feedback on chain"
      doneText="Your feedback is on chain, with the settlement it rests on."
      explorerUrl={explorerUrl}
      prepare={() => prepare(jobId, value, comment)}
    >
      <div className="space-y-3">
        <label className="block text-sm">
          <span className="font-medium">Rating, 0 to 100</span>
          <input
            type="number"
            name="value"
            min={0}
            max={100}
            step={1}
            value={value}
            onChange={(e) => setValue(Number(e.target.value))}
            className="mt-1 block w-32 rounded-md border border-zinc-300 px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900"
          />
        </label>
        <label className="block text-sm">
          <span className="font-medium">Comment</span>{" "}
          <span className="text-zinc-500 dark:text-zinc-400">(optional, in the feedback document)</span>
          <textarea
            name="comment"
            maxLength={1000}
            value={comment}
            onChange={(e) => setComment(e.target.value)}
            className="mt-1 block w-full rounded-md border border-zinc-300 px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900"
          />
        </label>
      </div>
    </SendPreparedCall>
  );
}
