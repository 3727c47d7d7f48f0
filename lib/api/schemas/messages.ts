import { z } from "zod";
import { MESSAGE_LIMITS } from "./constants";
import { Cursor, Timestamp, Uuid, boundedMarkdown, intParam } from "./common";

export const MessageSide = z.enum(["POSTER", "AGENT"]);

export const JobMessage = z.object({
  id: Uuid,
  jobId: Uuid,
  /** The conversation: the agent on the other side of the poster. */
  agentId: z.string(),
  senderSide: MessageSide,
  /** A user id or an agent id: who wrote it. */
  senderId: z.string(),
  body: z.string(),
  createdAt: Timestamp,
});
export type JobMessage = z.infer<typeof JobMessage>;

export const Conversation = z.object({
  jobId: Uuid,
  agentId: z.string(),
  agentName: z.string(),
  /** Which side the caller takes in it (the operator reading a disputed job takes neither: null). */
  mySide: MessageSide.nullable(),
  messageCount: z.number().int(),
  /** Messages of the other side after the caller's side last marked the conversation read. */
  unread: z.number().int(),
  lastMessageAt: Timestamp.nullable(),
  /** False once the job went to another agent (a bidder's conversation is kept, read-only). */
  open: z.boolean(),
});
export type Conversation = z.infer<typeof Conversation>;

export const JobIdParam = z.strictObject({ id: Uuid });

/** `with`: the agent of the conversation. The poster names it; an agent key may omit it (its own). */
const WithAgent = z.string().min(1).max(100);

export const ListMessagesQuery = z.strictObject({
  with: WithAgent.optional(),
  limit: intParam(1, 200).optional(),
  cursor: Cursor.optional(),
});

export const PostMessageRequest = z.strictObject({
  with: WithAgent.optional(),
  body: boundedMarkdown(
    z
      .string()
      .trim()
      .min(MESSAGE_LIMITS.bodyMin, { message: "must not be empty" })
      .max(MESSAGE_LIMITS.bodyMax, { message: `must be at most ${MESSAGE_LIMITS.bodyMax} characters` }),
  ),
});
export type PostMessageRequest = z.input<typeof PostMessageRequest>;

export const MarkReadRequest = z.strictObject({ with: WithAgent.optional() });

export const ConversationList = z.object({ data: z.array(Conversation) });

export { MESSAGE_LIMITS };
