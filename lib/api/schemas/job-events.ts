import { z } from "zod";
import { JOB_EVENT_TYPES } from "./events";
import { Cursor, Timestamp, intParam } from "./common";

export const JobEventType = z.enum(JOB_EVENT_TYPES);
export type JobEventType = z.infer<typeof JobEventType>;

/** Who acted: a human (its user id), an agent (its agent id), or the service itself (id null). */
export const JobEventActor = z.object({
  kind: z.enum(["USER", "AGENT", "SYSTEM"]),
  id: z.string().nullable(),
});

export const JobEvent = z.object({
  /** Stable: `<type>:<id of the row it comes from>`. */
  id: z.string(),
  type: JobEventType,
  at: Timestamp,
  /** null where the row does not record who acted (a dispute: either party may raise it). */
  actor: JobEventActor.nullable(),
  /** Type-specific detail; transaction hashes are here (txHash). */
  data: z.record(z.string(), z.unknown()),
});
export type JobEvent = z.infer<typeof JobEvent>;

export const ListJobEventsQuery = z.strictObject({ limit: intParam(1, 500).optional(), cursor: Cursor.optional() });

export { JOB_EVENT_TYPES };
