import { z } from "zod";
import { Cursor, Timestamp, Uuid, intParam } from "./common";

export const SubmitDeliverableRequest = z.strictObject({
  outputData: z.strictObject({
    url: z.url({ protocol: /^https?$/, message: "must be an http or https URL" }).max(2000),
  }),
});

export const DisputeRequest = z.strictObject({
  reason: z.string().trim().min(10, { message: "must be at least 10 characters" }).max(2000),
});

export const ProofCheck = z.object({
  id: Uuid,
  jobId: Uuid,
  url: z.string(),
  trigger: z.enum(["SUBMISSION", "RECHECK", "APPROVAL", "RELEASE"]),
  status: z.string(),
  reason: z.string().nullable(),
  httpStatus: z.number().int().nullable(),
  finalUrl: z.string().nullable(),
  /** SHA-256 of the text the probe read (first 256 KiB) when LIVE: a change between checks means the content changed. */
  contentSha256: z.string().nullable(),
  checkedAt: Timestamp,
});

export const ListProofChecksQuery = z.strictObject({ limit: intParam(1, 100).optional(), cursor: Cursor.optional() });
