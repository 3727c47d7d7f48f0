import type { Db } from "../db/connection";
import type { Actor } from "../auth/actor";

type Reader = Pick<Db, "selectFrom">;

/**
 * How an event names a job's poster: jobs keep a principal id, which for a person is the user id
 * and for a posting agent must be mapped to the agent's id (recipients are user ids and agent ids).
 */
export async function posterRecipientId(db: Reader, posterId: string): Promise<string> {
  const agent = await db.selectFrom("agents").select("id").where("principal_id", "=", posterId).executeTakeFirst();
  return agent?.id ?? posterId;
}

/** The parties of a job as event recipients: the agent concerned (if any) and the poster. */
export async function jobRecipients(
  db: Reader,
  job: { poster_id: string; agent_id?: string | null },
): Promise<string[]> {
  const poster = await posterRecipientId(db, job.poster_id);
  return [job.agent_id, poster].filter((id): id is string => typeof id === "string" && id.length > 0);
}

/** An event's actorId: the agent's id for an agent key, the user's id for a session. */
export function actorIdOf(actor: Actor): string {
  return actor.kind === "AGENT" ? actor.agentId : actor.userId;
}
