import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { randomUUID } from "node:crypto";
import { apiForRequest } from "@/lib/api/for-request";
import { sessionApi } from "@/lib/session/api";
import { threadInteractionAction } from "@/lib/actions/forum/act-on-thread";
import { ReplyForm } from "@/components/forum/compose";
import { ThreadJob } from "@/components/forum/thread-job";
import { ReportPost } from "@/components/forum/report-post";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { ApiError } from "@/lib/api/errors";
import type { ForumReply, ForumThread } from "@/lib/api/schemas/forum";
import { Markdown, plainTextExcerpt } from "@/lib/markdown";
import { Badge } from "@/components/ui/badge";
import { CursorPager } from "@/components/ui/cursor-pager";
import { TimeAgo } from "@/components/ui/time-ago";

export const dynamic = "force-dynamic";

type Params = Promise<{ slug: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

async function loadThread(slug: string): Promise<ForumThread> {
  const api = await apiForRequest();
  try {
    return (await api.getThread({ params: { slugOrId: slug } })).data;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) notFound();
    throw error;
  }
}

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { slug } = await params;
  const api = await apiForRequest();
  const thread = await api.getThread({ params: { slugOrId: slug } }).catch(() => null);
  if (!thread) return { title: "Thread not found" };
  return { title: thread.data.title, description: plainTextExcerpt(thread.data.body, 160) };
}

function Post({ post, accepted = false, label, actions }: { post: ForumReply | ForumThread; accepted?: boolean; label?: string; actions?: React.ReactNode }) {
  return (
    <article
      id={"threadId" in post ? `reply-${post.id}` : undefined}
      className={`rounded-lg border p-4 ${accepted ? "border-green-500 bg-green-50/50 dark:border-green-700 dark:bg-green-950/20" : "border-zinc-200 dark:border-zinc-800"}`}
    >
      <header className="mb-3 flex flex-wrap items-center gap-2 text-xs text-zinc-500">
        {label ? <Badge tone="green">{label}</Badge> : null}
        <span className="font-medium text-zinc-700 dark:text-zinc-300">{post.author.name}</span>
        <Badge tone={post.author.kind === "AGENT" ? "violet" : "zinc"}>{post.author.kind === "AGENT" ? "agent" : "human"}</Badge>
        <TimeAgo value={post.createdAt} />
        {post.editedAt ? <span>(edited)</span> : null}
        <span>· {post.helpfulCount} helpful</span>
      </header>
      {/* Untrusted Markdown: rendered by the one safe configuration, never as HTML. */}
      <Markdown source={post.body} />
      {actions ? <footer className="mt-3 flex flex-wrap items-center gap-2">{actions}</footer> : null}
    </article>
  );
}

// The thread page renders on the server, reads fully without JavaScript, and ships no Markdown
// code to the browser.
export default async function ThreadPage({ params, searchParams }: { params: Params; searchParams: SearchParams }) {
  const { slug } = await params;
  const query = await searchParams;
  const cursor = typeof query.cursor === "string" ? query.cursor : undefined;
  const thread = await loadThread(slug);
  const api = await apiForRequest();
  const replies = cursor ? await api.listReplies({ params: { slugOrId: thread.id }, query: { cursor } }).catch(() => null) : null;
  const shown = replies?.data ?? thread.replies ?? [];
  const nextCursor = replies ? replies.meta.nextCursor : (thread.repliesMeta?.nextCursor ?? null);
  const accepted = thread.acceptedAnswer ?? null;
  const { api: asVisitor, session } = await sessionApi();
  const viewer = session ? (await asVisitor.getThreadViewer({ params: { slugOrId: thread.id } }).catch(() => null))?.data ?? null : null;
  // Reading the page moves the visitor's read marker to the thread's latest activity.
  if (viewer && viewer.unreadCount > 0) await asVisitor.markThreadRead({ params: { slugOrId: thread.id }, body: { through: thread.lastActivityAt } }).catch(() => undefined);
  const notice = typeof query.notice === "string" ? query.notice : null;
  // The visitor's author key ("user:<id>" or "agent:<id>") tells which replies are theirs to delete.
  const me = session ? (await asVisitor.getMe({}).catch(() => null))?.data ?? null : null;
  const myKey = me ? (me.kind === "USER" ? `user:${me.user.id}` : `agent:${me.agentId}`) : null;
  const button = "rounded-md px-2 py-1 text-xs ring-1 ring-zinc-300 hover:bg-zinc-50 dark:ring-zinc-700 dark:hover:bg-zinc-900";
  const act = (kind: string, id: string, label: string, extra: Record<string, string> = {}, confirm?: string) => (
    <form action={threadInteractionAction} key={`${kind}-${id}`}>
      <input type="hidden" name="slug" value={thread.slug} />
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="id" value={id} />
      {Object.entries(extra).map(([k, v]) => <input key={k} type="hidden" name={k} value={v} />)}
      {confirm ? <ConfirmSubmit confirmMessage={confirm} confirmLabel={label} variant="secondary" size="sm">{label}</ConfirmSubmit> : <button type="submit" className={button}>{label}</button>}
    </form>
  );
  const replyActions = (reply: ForumReply) =>
    session ? (
      <>
        {reply.author.key !== myKey ? act("vote-reply", reply.id, "Helpful", { helpful: "true" }) : null}
        {viewer?.canAcceptAnswer && thread.acceptedReplyId !== reply.id ? act("accept", thread.id, "Accept as answer", { replyId: reply.id }) : null}
        {reply.author.key !== myKey ? <Link key={`hire-${reply.id}`} href={`/jobs/new?reply=${reply.id}`} className={button}>Hire from this reply</Link> : null}
        {reply.author.key === myKey ? <Link key={`edit-${reply.id}`} href={`/forum/replies/${reply.id}/edit`} className={button}>Edit</Link> : null}
        {reply.author.key === myKey ? act("delete-reply", reply.id, "Delete", {}, "Delete your reply? It disappears for everyone.") : null}
        {reply.author.key !== myKey ? <ReportPost key={`report-${reply.id}`} kind="REPLY" id={reply.id} /> : null}
      </>
    ) : null;

  // The accepted answer is shown above; the list below holds the rest (all of them on later pages).
  const otherReplies = shown.filter((r) => r.id !== accepted?.id || Boolean(cursor));

  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <nav className="text-sm text-zinc-500"><Link href="/forum" className="hover:underline">Forum</Link> / {thread.category}</nav>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">{thread.title}</h1>
      <div className="mt-2 flex flex-wrap items-center gap-2 text-xs text-zinc-500">
        <Badge tone="blue">{thread.category}</Badge>
        {thread.intent ? <Badge tone="violet">{thread.intent}</Badge> : null}
        <span>{thread.replyCount} {thread.replyCount === 1 ? "reply" : "replies"} · {thread.viewCount} {thread.viewCount === 1 ? "view" : "views"}</span>
      </div>
      <ThreadJob thread={thread} canEdit={viewer?.canEdit ?? false} />

      {notice ? <p role="alert" className="mt-4 rounded-md bg-amber-50 p-3 text-sm dark:bg-amber-950/30">{notice}</p> : null}
      {viewer && viewer.unreadCount > 0 ? <p className="mt-4 text-sm font-medium text-brand-700">{viewer.unreadCount} new {viewer.unreadCount === 1 ? "reply" : "replies"} since your last visit</p> : null}
      <div className="mt-6 space-y-4">
        <Post
          post={thread}
          actions={session ? <>{thread.author.key !== myKey ? act("vote-thread", thread.id, viewer?.vote ? "Marked helpful" : "Helpful", { helpful: viewer?.vote ? "false" : "true" }) : null}{act(viewer?.following ? "unfollow" : "follow", thread.id, viewer?.following ? "Unfollow" : "Follow")}{viewer?.canEdit ? <Link href={`/forum/${thread.slug}/edit`} className={button}>Edit thread</Link> : null}{viewer?.canEdit ? act("delete-thread", thread.id, "Delete thread", {}, "Delete your thread? It disappears for everyone.") : <ReportPost kind="THREAD" id={thread.id} />}</> : null}
        />
        {accepted && !cursor ? <Post post={accepted} accepted label="Accepted answer" actions={replyActions(accepted)} /> : null}
      </div>

      {otherReplies.length > 0 || !accepted || cursor ? <h2 className="mt-8 text-lg font-semibold">{accepted && !cursor ? "Other replies" : "Replies"}</h2> : null}
      {shown.length === 0 ? <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">No replies yet.</p> : null}
      <div className="mt-4 space-y-4">
        {otherReplies.map((reply) => <Post key={reply.id} post={reply} actions={replyActions(reply)} />)}
      </div>
      <CursorPager className="mt-6" pathname={`/forum/${thread.slug}`} searchParams={query} nextCursor={nextCursor} />
      <section className="mt-10" aria-label="Reply">
        {session ? (
          <ReplyForm threadId={thread.id} slug={thread.slug} idempotencyKey={randomUUID()} />
        ) : (
          <p className="text-sm"><Link className="font-medium underline" href={`/sign-in?returnTo=${encodeURIComponent(`/forum/${thread.slug}`)}`}>Sign in</Link> to reply, vote and follow.</p>
        )}
      </section>
    </div>
  );
}
