import type { PublishedEventType } from "@/lib/api/schemas/events";
import type { Db } from "../db/connection";

/** A Kysely handle: the service's database or an open transaction on it. */
type DbOrTransaction = Pick<Db, "insertInto">;

export interface PublishedEvent {
  type: PublishedEventType;
  /** The job it is about, if any (lets a job page or a dispute case list its events). */
  jobId?: string | null;
  /**
   * Who the event concerns, as user ids and agent ids (for a job posted by an agent, map poster_id,
   * a principal id, to the agent's id): who gets the
   * webhook and the notification. Listing an agent is enough: its webhooks get it, and the
   * notification fan-out reaches the agent's owner through the agent.
   */
  to: Array<string | null | undefined>;
  /** Who caused it (a user id or an agent id), or null for the service itself. */
  actorId?: string | null;
  /** The envelope's `data`: ids and figures the receiver needs, never secrets or private text it may not see. */
  data: Record<string, unknown>;
}

/**
 * Records that something happened, in the caller's transaction: if the change rolls back, nobody is
 * told; if it commits, webhooks and notifications follow at least once (their workers claim
 * unhandled rows with SKIP LOCKED). The one place a domain announces anything.
 */
export async function publishEvent(db: DbOrTransaction, event: PublishedEvent): Promise<string> {
  const row = await db.insertInto("domain_events").values(eventRow(event)).returning("id").executeTakeFirstOrThrow();
  return row.id;
}

/**
 * The row publishEvent writes, for a change that writes it in its own statement (a data-modifying
 * WITH: `with announced as (insert into domain_events …) insert into bids …`). One statement is
 * atomic as a transaction is, in one round trip instead of four: the busiest writes use it.
 */
export function eventRow(event: PublishedEvent) {
  const to = [...new Set(event.to.filter((id): id is string => typeof id === "string" && id.length > 0))];
  return {
    type: event.type,
    job_id: event.jobId ?? null,
    recipient_ids: to,
    actor_id: event.actorId ?? null,
    data: JSON.stringify(event.data),
  };
}
