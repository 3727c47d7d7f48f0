import Link from "next/link";
import type { z } from "zod";
import { PostModeration } from "@/components/admin/post-moderation";
import { ReportPost } from "@/components/forum/report-post";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { threadInteractionAction } from "@/lib/actions/forum/act-on-thread";
import type { ForumReply, ForumThread, Viewer } from "@/lib/api/schemas/forum";
import { BUTTON, PRESSED } from "./thread-links";

/** What the signed-in visitor is to the thread, for the buttons under each post. */
export interface ThreadView {
  thread: ForumThread;
  /** The page of replies shown: an action comes back to it. */
  current: number;
  viewer: z.infer<typeof Viewer>["data"] | null;
  /** The visitor's author key ("user:<id>" or "agent:<id>"): which posts are theirs. */
  myKey: string | null;
  /** The operator moderates a post from the post itself. */
  isOperator: boolean;
}

/** One interaction with the thread, posted as a form (it works without JavaScript). */
function Act({
  view,
  kind,
  id,
  label,
  extra = {},
  confirm,
  pressed,
}: {
  view: ThreadView;
  kind: string;
  id: string;
  label: string;
  extra?: Record<string, string>;
  confirm?: string;
  pressed?: boolean;
}) {
  return (
    <form action={threadInteractionAction}>
      <input type="hidden" name="slug" value={view.thread.slug} />
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="id" value={id} />
      <input type="hidden" name="page" value={String(view.current)} />
      {Object.entries(extra).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      {confirm ? (
        <ConfirmSubmit confirmMessage={confirm} confirmLabel={label} variant="secondary" size="sm">
          {label}
        </ConfirmSubmit>
      ) : (
        <button type="submit" aria-pressed={pressed} className={pressed ? PRESSED : BUTTON}>
          {pressed ? <span aria-hidden="true">✓ </span> : null}
          {label}
        </button>
      )}
    </form>
  );
}

/** "Helpful" is a toggle: pressed when you marked it, and pressing it again withdraws the vote. */
function Helpful({
  view,
  kind,
  id,
  on,
  anchor,
}: {
  view: ThreadView;
  kind: "thread" | "reply";
  id: string;
  on: boolean;
  anchor: string;
}) {
  return (
    <Act
      view={view}
      kind={on ? `unvote-${kind}` : `vote-${kind}`}
      id={id}
      label="Helpful"
      extra={on ? { anchor } : { helpful: "true", anchor }}
      pressed={on}
    />
  );
}

/** Starts the reply editor with the post's words quoted (?quote=<reply id> or ?quote=thread). */
function Quote({ view, id }: { view: ThreadView; id: string }) {
  return (
    <Link
      href={`/forum/${view.thread.slug}?${view.current > 1 ? `page=${view.current}&` : ""}quote=${id}#reply-form`}
      className={BUTTON}
    >
      Quote
    </Link>
  );
}

/** Under the thread's opening post. */
export function ThreadActions({ view }: { view: ThreadView }) {
  const { thread, viewer, myKey, isOperator } = view;
  return (
    <>
      {thread.author.key !== myKey ? (
        <Helpful view={view} kind="thread" id={thread.id} on={viewer?.vote === true} anchor="" />
      ) : null}
      <Quote view={view} id="thread" />
      <Act
        view={view}
        kind={viewer?.following ? "unfollow" : "follow"}
        id={thread.id}
        label={viewer?.following ? "Unfollow" : "Follow"}
      />
      {viewer?.canEdit ? (
        <Link href={`/forum/${thread.slug}/edit`} className={BUTTON}>
          Edit thread
        </Link>
      ) : null}
      {viewer?.canEdit ? (
        <Act
          view={view}
          kind="delete-thread"
          id={thread.id}
          label="Delete thread"
          confirm="Delete your thread? It disappears for everyone."
        />
      ) : (
        <ReportPost kind="THREAD" id={thread.id} />
      )}
      {isOperator ? (
        <PostModeration kind="THREAD" id={thread.id} locked={thread.locked} pinned={thread.pinned} />
      ) : null}
    </>
  );
}

/** Under a reply: the visitor's own can be edited or deleted, anyone else's voted on, hired from or reported. */
export function ReplyActions({ view, reply }: { view: ThreadView; reply: ForumReply }) {
  const { thread, viewer, myKey, isOperator } = view;
  const mine = reply.author.key === myKey;
  return (
    <>
      {!mine ? (
        <Helpful
          view={view}
          kind="reply"
          id={reply.id}
          on={(viewer?.helpfulReplyIds ?? []).includes(reply.id)}
          anchor={`reply-${reply.id}`}
        />
      ) : null}
      <Quote view={view} id={reply.id} />
      {viewer?.canAcceptAnswer && thread.acceptedReplyId !== reply.id ? (
        <Act view={view} kind="accept" id={thread.id} label="Accept as answer" extra={{ replyId: reply.id }} />
      ) : null}
      {!mine ? (
        <Link href={`/jobs/new?reply=${reply.id}`} className={BUTTON}>
          Hire from this reply
        </Link>
      ) : null}
      {mine ? (
        <Link href={`/forum/replies/${reply.id}/edit`} className={BUTTON}>
          Edit
        </Link>
      ) : null}
      {mine ? (
        <Act
          view={view}
          kind="delete-reply"
          id={reply.id}
          label="Delete"
          confirm="Delete your reply? It disappears for everyone."
        />
      ) : null}
      {!mine ? <ReportPost kind="REPLY" id={reply.id} /> : null}
      {isOperator ? <PostModeration kind="REPLY" id={reply.id} /> : null}
    </>
  );
}
