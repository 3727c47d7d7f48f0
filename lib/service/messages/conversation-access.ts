import { fail } from "../errors";
import type { Actor } from "../auth/actor";
import type { ServiceContext } from "../context";
import { isOperator } from "../auth/operator";
import { getJobRowOrThrow, type JobWithRelations } from "../jobs/read-job";
import { isJobEvaluator, jobRoleOf } from "../jobs/job-viewer";

export type MessageSide = "POSTER" | "AGENT";

/** An agent in a job's conversations: one that bid on it, or the one assigned to it. */
export interface Participant {
  agentId: string;
  agentName: string;
  ownerUserId: string | null;
  bidStatus: string | null;
}

export interface ConversationAccess {
  job: JobWithRelations;
  agentId: string;
  /** The side the caller speaks for; null for a reader who is no party (the operator of a dispute). */
  side: MessageSide | null;
  /** Whether new messages may be written in it now (conversationIsOpen). */
  open: boolean;
}

/**
 * Who may read a job's conversations besides its parties: the arbiters of its dispute, on a job that
 * was disputed (they read what was said): the evaluator the poster named on the job (a human signed
 * in with that address), and the operator. The one hook for who else reads.
 */
export async function canReadJobConversation(
  ctx: ServiceContext,
  actor: Actor | null,
  job: Pick<JobWithRelations, "disputed_at" | "status" | "evaluator_address">,
): Promise<boolean> {
  if (job.disputed_at === null && job.status !== "DISPUTED") return false;
  if (await isJobEvaluator(ctx, actor, job.evaluator_address)) return true;
  return isOperator(ctx, actor);
}

/**
 * The agents of a job's conversations: its bidders (any bid status), its assigned agent, and the
 * agents that asked the poster a question before bidding (a conversation with no bid).
 */
export async function participantsOf(
  ctx: ServiceContext,
  job: Pick<JobWithRelations, "id" | "agent_id">,
): Promise<Participant[]> {
  const rows = await ctx.db
    .selectFrom("agents")
    .leftJoin("bids", (join) => join.onRef("bids.agent_id", "=", "agents.id").on("bids.job_id", "=", job.id))
    .select([
      "agents.id as agentId",
      "agents.name as agentName",
      "agents.owner_user_id as ownerUserId",
      "bids.status as bidStatus",
    ])
    .where((eb) =>
      eb.or([
        eb("bids.id", "is not", null),
        ...(job.agent_id ? [eb("agents.id", "=", job.agent_id)] : []),
        eb.exists(
          eb
            .selectFrom("job_messages")
            .select("job_messages.id")
            .where("job_messages.job_id", "=", job.id)
            .whereRef("job_messages.agent_id", "=", "agents.id"),
        ),
      ]),
    )
    .orderBy("agents.created_at")
    .limit(500)
    .execute();
  return rows;
}

/**
 * A conversation is open for new messages while the agent is still in the running or doing the
 * work: on an OPEN job, before it bids (questions: a bid is final) or while its bid is PENDING;
 * after, as the assigned agent. A bidder whose bid was rejected, withdrawn or expired keeps its
 * conversation, read-only.
 */
export function conversationIsOpen(
  job: Pick<JobWithRelations, "status" | "agent_id">,
  participant: Pick<Participant, "agentId" | "bidStatus">,
): boolean {
  if (job.status === "CANCELLED") return false;
  if (job.agent_id === participant.agentId) return true;
  return job.status === "OPEN" && (participant.bidStatus === "PENDING" || participant.bidStatus === null);
}

/** Which of the participants the caller speaks for as the agent side: its own agent (a key) or the ones it owns (a session). */
function ownParticipants(actor: Actor, participants: Participant[]): Participant[] {
  if (actor.kind === "AGENT") return participants.filter((p) => p.agentId === actor.agentId);
  return participants.filter((p) => p.ownerUserId !== null && p.ownerUserId === actor.userId);
}

/** The caller's side on the job before a conversation is chosen: POSTER, AGENT (some of its agents take part), or a reader. */
export async function sidesOf(ctx: ServiceContext, actor: Actor, job: JobWithRelations) {
  const participants = await participantsOf(ctx, job);
  const role = jobRoleOf(actor, job);
  const poster = role === "POSTER" || role === "OWNER_OF_POSTER";
  const own = poster ? [] : ownParticipants(actor, participants);
  const reader = !poster && own.length === 0 && (await canReadJobConversation(ctx, actor, job));
  return { participants, poster, own, reader };
}

/**
 * The conversation a request names (`with`, an agent id), and the caller's side in it. The poster
 * must name it; an agent key means its own; a human who owns agents on the job may omit it when it
 * owns one. Strangers are refused (403 NOT_IN_CONVERSATION), whatever they name.
 */
export async function resolveConversation(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  withAgent: string | undefined,
): Promise<ConversationAccess & { asking?: boolean }> {
  const job = await getJobRowOrThrow(ctx, jobId);
  const { participants, poster, own, reader } = await sidesOf(ctx, actor, job);
  const refuse = () =>
    fail(
      "NOT_IN_CONVERSATION",
      "only the job's poster and the agent of the conversation (or the humans who own them) read and write its messages",
    );

  if (poster || reader) {
    if (!withAgent)
      throw fail(
        "CONVERSATION_REQUIRED",
        "name the conversation: with=<agent id> (one of the job's bidders or its assigned agent)",
      );
    const participant = participants.find((p) => p.agentId === withAgent);
    if (!participant) throw fail("NOT_FOUND", "conversation not found");
    return {
      job,
      agentId: participant.agentId,
      side: poster ? "POSTER" : null,
      open: poster && conversationIsOpen(job, participant),
    };
  }
  if (own.length === 0) {
    // An agent key on an OPEN job it has no part in yet: its own conversation with the poster, empty
    // until its first question opens it (postMessage checks that the agent is ACTIVE).
    if (actor.kind === "AGENT" && job.status === "OPEN" && (withAgent === undefined || withAgent === actor.agentId)) {
      return { job, agentId: actor.agentId, side: "AGENT", open: true, asking: true };
    }
    throw refuse();
  }
  let participant: Participant | undefined;
  if (withAgent) {
    participant = own.find((p) => p.agentId === withAgent);
    if (!participant) throw refuse();
  } else if (own.length === 1) {
    participant = own[0];
  } else {
    throw fail(
      "CONVERSATION_REQUIRED",
      "you own several agents on this job: name the conversation with with=<agent id>",
    );
  }
  return { job, agentId: participant!.agentId, side: "AGENT", open: conversationIsOpen(job, participant!) };
}
