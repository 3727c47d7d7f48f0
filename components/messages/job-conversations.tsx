import Link from "next/link";
import type { Conversation, JobMessage } from "@/lib/api/schemas/messages";
import { Markdown } from "@/lib/markdown";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import { TimeAgo } from "@/components/ui/time-ago";
import { MessageForm } from "./message-form";

export interface JobConversationsProps {
  jobId: string;
  posterName: string;
  conversations: Conversation[];
  /** The conversation shown, with its messages (oldest first). */
  selected: { conversation: Conversation; messages: JobMessage[]; hasMore: boolean } | null;
}

/**
 * A job's conversations for the visitor: the poster sees one per bidder (and the assigned agent),
 * an agent's owner its agent's. Each is a link (?with=<agent id>), so the page works without
 * JavaScript; message bodies are Markdown from the other party, rendered by the one safe
 * configuration (lib/markdown).
 */
export function JobConversations({ jobId, posterName, conversations, selected }: JobConversationsProps) {
  const side = conversations[0]?.mySide;
  return (
    <section id="messages" className="mt-8 scroll-mt-20" aria-labelledby="messages-heading">
      <h2 id="messages-heading" className="text-lg font-semibold">
        Messages
      </h2>
      <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
        {side === "POSTER"
          ? "One conversation per bidder: answer questions before you accept, and talk to the assigned agent after."
          : side === "AGENT"
            ? "Your conversation with the poster: ask before you are accepted, and talk about the work after."
            : "What the poster and the agents wrote to each other, read-only: the operator reads a disputed job's conversations to rule on it."}
      </p>
      {conversations.length === 0 ? (
        <p className="mt-3 text-sm text-zinc-500 dark:text-zinc-400">
          No conversations yet: each bidder gets one with the poster.
        </p>
      ) : (
        // minmax(0, …) columns: a long name or message never widens the grid past a phone's screen.
        <div className="mt-3 grid grid-cols-1 gap-4 md:grid-cols-[14rem_minmax(0,1fr)]">
          <nav aria-label="Conversations" className="min-w-0">
            <ul className="space-y-1">
              {conversations.map((c) => {
                const current = selected?.conversation.agentId === c.agentId;
                const label = c.mySide === "AGENT" ? `${posterName} (poster), with ${c.agentName}` : c.agentName;
                return (
                  <li key={c.agentId}>
                    <Link
                      prefetch={false}
                      href={`/jobs/${jobId}?with=${encodeURIComponent(c.agentId)}#messages`}
                      aria-current={current ? "true" : undefined}
                      className={cn(
                        "flex items-center justify-between gap-2 rounded-md px-3 py-2 text-sm",
                        current
                          ? "bg-zinc-100 font-medium dark:bg-zinc-800"
                          : "hover:bg-zinc-50 dark:hover:bg-zinc-900",
                      )}
                    >
                      <span className="truncate">{label}</span>
                      {c.unread > 0 ? (
                        <Badge tone="blue" aria-label={`${c.unread} unread`}>
                          {c.unread} new
                        </Badge>
                      ) : (
                        <span className="text-xs text-zinc-500 dark:text-zinc-400">{c.messageCount}</span>
                      )}
                    </Link>
                  </li>
                );
              })}
            </ul>
          </nav>
          <div className="min-w-0 rounded-xl border border-zinc-200 p-4 [overflow-wrap:anywhere] dark:border-zinc-800">
            {!selected ? (
              <p className="text-sm text-zinc-500 dark:text-zinc-400">Choose a conversation.</p>
            ) : (
              <>
                {selected.hasMore ? (
                  <p className="mb-2 text-xs text-zinc-500 dark:text-zinc-400">
                    Showing the first messages; later ones are in the API.
                  </p>
                ) : null}
                {selected.messages.length === 0 ? (
                  <p className="text-sm text-zinc-500 dark:text-zinc-400">No messages yet.</p>
                ) : (
                  <ol className="space-y-3" aria-label={`Conversation with ${selected.conversation.agentName}`}>
                    {selected.messages.map((m) => {
                      const mine = m.senderSide === selected.conversation.mySide;
                      const who = mine
                        ? "You"
                        : m.senderSide === "AGENT"
                          ? `${selected.conversation.agentName} (agent)`
                          : `${posterName} (poster)`;
                      return (
                        <li
                          key={m.id}
                          className={cn(
                            "rounded-lg p-3",
                            mine ? "bg-brand-50 dark:bg-brand-950/30" : "bg-zinc-50 dark:bg-zinc-900",
                          )}
                        >
                          <p className="text-xs text-zinc-600 dark:text-zinc-400">
                            <span className="font-medium">{who}</span> · <TimeAgo value={m.createdAt} />
                          </p>
                          <Markdown className="mt-1 text-sm" source={m.body} idPrefix={m.id} />
                        </li>
                      );
                    })}
                  </ol>
                )}
                {selected.conversation.open && selected.conversation.mySide ? (
                  <MessageForm
                    jobId={jobId}
                    agentId={selected.conversation.agentId}
                    to={
                      selected.conversation.mySide === "POSTER"
                        ? selected.conversation.agentName
                        : `${posterName} (poster)`
                    }
                  />
                ) : (
                  <p className="mt-3 text-xs text-zinc-500 dark:text-zinc-400">
                    {selected.conversation.mySide
                      ? "This conversation is read-only: the job went to another agent, or the bid is no longer pending."
                      : "Read-only: only the job's parties write here."}
                  </p>
                )}
              </>
            )}
          </div>
        </div>
      )}
    </section>
  );
}
