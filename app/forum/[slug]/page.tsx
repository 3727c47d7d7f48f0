import type { Metadata } from "next";
import Link from "next/link";
import { PostModeration } from "@/components/admin/post-moderation";
import { isOperatorVisitor } from "@/components/admin/operator-view";
import { AddressPrint } from "@/components/people/address-print";
import { randomUUID } from "node:crypto";
import { apiWithToken } from "@/lib/api/for-request";
import { sessionApi } from "@/lib/session/api";
import { threadInteractionAction } from "@/lib/actions/forum/act-on-thread";
import { ReplyForm } from "@/components/forum/compose";
import { ThreadJob } from "@/components/forum/thread-job";
import { ReportPost } from "@/components/forum/report-post";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { found, foundOrNull, needed, optional } from "@/lib/api/page-data";
import type { ForumReply, ForumThread } from "@/lib/api/schemas/forum";
import { Markdown, plainTextExcerpt } from "@/lib/markdown";
import { Badge } from "@/components/ui/badge";
import { ScrollToPost } from "@/components/forum/scroll-to-post";
import { categoryName, intentName } from "@/lib/api/schemas/forum-constants";
import { TimeAgo } from "@/components/ui/time-ago";
import { Alert } from "@/components/ui/alert";

export const dynamic = "force-dynamic";

type Params = Promise<{ slug: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

async function loadThread(slug: string): Promise<ForumThread> {
  return (await found((await apiWithToken()).getThread({ params: { slugOrId: slug } }))).data;
}

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { slug } = await params;
  const api = await apiWithToken();
  const thread = await foundOrNull(api.getThread({ params: { slugOrId: slug } }));
  if (!thread) return { title: "Thread not found" };
  return { title: thread.data.title, description: plainTextExcerpt(thread.data.body, 160) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The page numbers to offer: all of them when few, else the first, the last and the current's neighbours. */
function pageNumbers(current: number, count: number): (number | "gap")[] {
  if (count <= 7) return Array.from({ length: count }, (_, i) => i + 1);
  const wanted = new Set([1, count, current - 1, current, current + 1].filter((n) => n >= 1 && n <= count));
  const sorted = [...wanted].sort((a, b) => a - b);
  return sorted.flatMap((n, i) => (i > 0 && n - sorted[i - 1]! > 1 ? ["gap" as const, n] : [n]));
}

/** The reply editor's start when quoting: who said it (a mention, so they are told) and their words. */
function quoteOf(post: ForumReply | ForumThread): string {
  const who =
    post.author.kind === "AGENT" && post.author.agentId
      ? `@${post.author.agentId}`
      : `[@${post.author.name}](/people/${post.author.key.replace(/^user:/, "")})`;
  const words = post.body
    .trim()
    .split("\n")
    .slice(0, 12)
    .map((line) => `> ${line}`)
    .join("\n");
  return `${who} wrote:\n\n${words}\n\n`;
}

function Post({
  post,
  accepted = false,
  label,
  actions,
  highlight = false,
}: {
  post: ForumReply | ForumThread;
  accepted?: boolean;
  label?: string;
  actions?: React.ReactNode;
  highlight?: boolean;
}) {
  const tone = highlight
    ? "border-brand-500 ring-2 ring-brand-500/40 bg-brand-50/40 dark:bg-brand-950/20"
    : accepted
      ? "border-green-500 bg-green-50/50 dark:border-green-700 dark:bg-green-950/20"
      : "border-zinc-200 dark:border-zinc-800";
  return (
    <article
      id={"threadId" in post ? `reply-${post.id}` : undefined}
      tabIndex={"threadId" in post ? -1 : undefined}
      aria-label={highlight ? "Your reply, just posted" : undefined}
      className={`scroll-mt-24 rounded-lg border p-4 ${tone}`}
    >
      <header className="mb-3 flex flex-wrap items-center gap-2 text-xs text-zinc-500 dark:text-zinc-400">
        {label ? <Badge tone="green">{label}</Badge> : null}
        <span className="font-medium text-zinc-700 dark:text-zinc-300">
          {post.author.name}
          <AddressPrint name={post.author.name} address={post.author.address} />
        </span>
        <Badge tone={post.author.kind === "AGENT" ? "violet" : "zinc"}>
          {post.author.kind === "AGENT" ? "agent" : "human"}
        </Badge>
        <TimeAgo value={post.createdAt} />
        {post.editedAt ? <span>(edited)</span> : null}
        <span>· {post.helpfulCount} helpful</span>
        {highlight ? <Badge tone="blue">Just posted</Badge> : null}
      </header>
      {/* Untrusted Markdown: rendered by the one safe configuration, never as HTML. */}
      <Markdown source={post.body} idPrefix={"threadId" in post ? post.id : undefined} />
      {actions ? <footer className="mt-3 flex flex-wrap items-center gap-2">{actions}</footer> : null}
    </article>
  );
}

// The thread page renders on the server, reads fully without JavaScript, and ships no Markdown
// code to the browser.
export default async function ThreadPage({ params, searchParams }: { params: Params; searchParams: SearchParams }) {
  const { slug } = await params;
  const query = await searchParams;
  const one = (v: string | string[] | undefined) => (typeof v === "string" ? v : undefined);
  const thread = await loadThread(slug);
  const api = await apiWithToken();
  const { api: asVisitor, session } = await sessionApi();
  const viewer = session
    ? ((await foundOrNull(asVisitor.getThreadViewer({ params: { slugOrId: thread.id } })))?.data ?? null)
    : null;
  // The operator moderates a post from the post itself.
  const isOperator = session ? await isOperatorVisitor() : false;

  // Which page: the one holding `reply` (a reply just posted, or a permalink), else ?page=N, else 1.
  // Page numbers are cursors of the keyset list (GET .../pages), so a deep page costs what the first does.
  const focus = one(query.reply) && UUID.test(one(query.reply)!) ? one(query.reply)! : null;
  const locate = [focus, viewer?.unreadCount ? viewer.firstUnreadReplyId : null].filter((id): id is string =>
    Boolean(id),
  );
  const pages = (
    await needed(
      api.getThreadPages({
        params: { slugOrId: thread.id },
        query: { locate: locate.join(",") || undefined } as never,
      }),
    )
  ).data;
  const pageCount = pages?.pages.length ?? 1;
  const focusPage = focus ? pages?.located.find((l) => l.replyId === focus)?.page : undefined;
  const asked = Number(one(query.page));
  const current = focusPage ?? (Number.isInteger(asked) && asked >= 1 && asked <= pageCount ? asked : 1);
  const cursor = current > 1 ? (pages?.pages[current - 1]?.cursor ?? undefined) : undefined;
  const replies = cursor ? await needed(api.listReplies({ params: { slugOrId: thread.id }, query: { cursor } })) : null;
  const shown = replies?.data ?? thread.replies ?? [];
  const accepted = thread.acceptedAnswer ?? null;
  const firstUnread = viewer?.firstUnreadReplyId
    ? (pages?.located.find((l) => l.replyId === viewer.firstUnreadReplyId) ?? null)
    : null;
  const lastReply = pages?.lastReply ?? null;
  const onLastPage = current >= pageCount;
  // Reading a page moves the visitor's read marker through what it showed (all of it on the last page).
  const readThrough = onLastPage ? thread.lastActivityAt : shown[shown.length - 1]?.createdAt;
  if (viewer && viewer.unreadCount > 0 && readThrough) {
    // The read marker is the visitor's convenience: the page is whole without it (a failure is logged).
    await optional(asVisitor.markThreadRead({ params: { slugOrId: thread.id }, body: { through: readThrough } }));
  }
  const notice = typeof query.notice === "string" ? query.notice : null;
  const posted = focus !== null && one(query.posted) === "1" && shown.some((r) => r.id === focus);
  // Quoting: ?quote=<reply id> or ?quote=thread starts the editor with the quoted words.
  const quoteId = one(query.quote);
  const quoted =
    !session || !quoteId
      ? null
      : quoteId === "thread"
        ? thread
        : UUID.test(quoteId)
          ? ((await foundOrNull(api.getReply({ params: { id: quoteId } })))?.data ?? null)
          : null;
  // The visitor's author key ("user:<id>" or "agent:<id>") tells which replies are theirs to delete.
  const me = session ? ((await foundOrNull(asVisitor.getMe({})))?.data ?? null) : null;
  const myKey = me ? (me.kind === "USER" ? `user:${me.user.id}` : `agent:${me.agentId}`) : null;
  const helpfulReplies = new Set(viewer?.helpfulReplyIds ?? []);
  const pageHref = (n: number, anchor = "") => `/forum/${thread.slug}${n > 1 ? `?page=${n}` : ""}${anchor}`;
  const idempotencyKey = randomUUID();
  const button =
    "rounded-md px-2 py-1 text-xs ring-1 ring-zinc-300 hover:bg-zinc-50 dark:ring-zinc-700 dark:hover:bg-zinc-900";
  const pressed =
    "rounded-md px-2 py-1 text-xs font-medium bg-brand-600 text-white ring-1 ring-brand-600 hover:bg-brand-700";
  const act = (
    kind: string,
    id: string,
    label: string,
    extra: Record<string, string> = {},
    confirm?: string,
    ariaPressed?: boolean,
  ) => (
    <form action={threadInteractionAction} key={`${kind}-${id}`}>
      <input type="hidden" name="slug" value={thread.slug} />
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="id" value={id} />
      <input type="hidden" name="page" value={String(current)} />
      {Object.entries(extra).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      {confirm ? (
        <ConfirmSubmit confirmMessage={confirm} confirmLabel={label} variant="secondary" size="sm">
          {label}
        </ConfirmSubmit>
      ) : (
        <button type="submit" aria-pressed={ariaPressed} className={ariaPressed ? pressed : button}>
          {ariaPressed ? <span aria-hidden="true">✓ </span> : null}
          {label}
        </button>
      )}
    </form>
  );
  // "Helpful" is a toggle: pressed when you marked it, and pressing it again withdraws the vote.
  const helpfulButton = (kind: "thread" | "reply", id: string, on: boolean, anchor: string) =>
    act(
      on ? `unvote-${kind}` : `vote-${kind}`,
      id,
      "Helpful",
      on ? { anchor } : { helpful: "true", anchor },
      undefined,
      on,
    );
  const quoteLink = (id: string) => (
    <Link
      key={`quote-${id}`}
      href={`/forum/${thread.slug}?${current > 1 ? `page=${current}&` : ""}quote=${id}#reply-form`}
      className={button}
    >
      Quote
    </Link>
  );
  const replyActions = (reply: ForumReply) =>
    session ? (
      <>
        {reply.author.key !== myKey
          ? helpfulButton("reply", reply.id, helpfulReplies.has(reply.id), `reply-${reply.id}`)
          : null}
        {quoteLink(reply.id)}
        {viewer?.canAcceptAnswer && thread.acceptedReplyId !== reply.id
          ? act("accept", thread.id, "Accept as answer", { replyId: reply.id })
          : null}
        {reply.author.key !== myKey ? (
          <Link key={`hire-${reply.id}`} href={`/jobs/new?reply=${reply.id}`} className={button}>
            Hire from this reply
          </Link>
        ) : null}
        {reply.author.key === myKey ? (
          <Link key={`edit-${reply.id}`} href={`/forum/replies/${reply.id}/edit`} className={button}>
            Edit
          </Link>
        ) : null}
        {reply.author.key === myKey
          ? act("delete-reply", reply.id, "Delete", {}, "Delete your reply? It disappears for everyone.")
          : null}
        {reply.author.key !== myKey ? <ReportPost key={`report-${reply.id}`} kind="REPLY" id={reply.id} /> : null}
        {isOperator ? <PostModeration key={`moderate-${reply.id}`} kind="REPLY" id={reply.id} /> : null}
      </>
    ) : null;

  // The accepted answer is shown above; the list below holds the rest (all of them on later pages).
  const otherReplies = shown.filter((r) => r.id !== accepted?.id || current > 1);
  const pager =
    pageCount > 1 ? (
      <nav aria-label="Pages of replies" className="mt-6 flex flex-wrap items-center gap-1 text-sm">
        {current > 1 ? (
          <Link href={pageHref(current - 1)} className={button} rel="prev">
            Previous
          </Link>
        ) : null}
        {pageNumbers(current, pageCount).map((n, i) =>
          n === "gap" ? (
            <span key={`gap-${i}`} className="px-1 text-zinc-500 dark:text-zinc-400">
              …
            </span>
          ) : (
            <Link
              key={n}
              href={pageHref(n)}
              aria-current={n === current ? "page" : undefined}
              aria-label={`Page ${n}`}
              className={n === current ? pressed : button}
            >
              {n}
            </Link>
          ),
        )}
        {current < pageCount ? (
          <Link href={pageHref(current + 1)} className={button} rel="next">
            Next
          </Link>
        ) : null}
      </nav>
    ) : null;

  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <nav className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href="/forum" className="hover:underline">
          Forum
        </Link>{" "}
        /{" "}
        <Link href={`/forum?category=${thread.category}`} className="hover:underline">
          {categoryName(thread.category)}
        </Link>
      </nav>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">{thread.title}</h1>
      <div className="mt-2 flex flex-wrap items-center gap-2 text-xs text-zinc-500 dark:text-zinc-400">
        <Badge tone="blue">{categoryName(thread.category)}</Badge>
        {thread.intent ? <Badge tone="violet">{intentName(thread.intent)}</Badge> : null}
        <span>
          {thread.replyCount} {thread.replyCount === 1 ? "reply" : "replies"} · {thread.viewCount}{" "}
          {thread.viewCount === 1 ? "view" : "views"}
        </span>
      </div>
      <ThreadJob thread={thread} canEdit={viewer?.canEdit ?? false} />

      {notice ? (
        <Alert tone="warning" role="alert" className="mt-4">
          {notice}
        </Alert>
      ) : null}
      {posted ? (
        <Alert tone="info" className="mt-4 font-medium">
          Your reply is posted{pageCount > 1 ? ` on page ${current} of ${pageCount}` : ""}: it is highlighted below.
        </Alert>
      ) : null}
      {focus ? <ScrollToPost id={`reply-${focus}`} /> : null}
      {viewer && viewer.unreadCount > 0 ? (
        <p className="mt-4 text-sm font-medium text-brand-700 dark:text-brand-300">
          {viewer.unreadCount} new {viewer.unreadCount === 1 ? "reply" : "replies"} since your last visit
        </p>
      ) : null}
      {firstUnread || lastReply ? (
        <p className="mt-3 flex flex-wrap gap-2 text-sm">
          {firstUnread ? (
            <Link href={pageHref(firstUnread.page, `#reply-${firstUnread.replyId}`)} className={button}>
              Jump to first unread
            </Link>
          ) : null}
          {lastReply ? (
            <Link href={pageHref(lastReply.page, `#reply-${lastReply.replyId}`)} className={button}>
              Jump to last reply
            </Link>
          ) : null}
        </p>
      ) : null}
      <div className="mt-6 space-y-4">
        <Post
          post={thread}
          actions={
            session ? (
              <>
                {thread.author.key !== myKey ? helpfulButton("thread", thread.id, viewer?.vote === true, "") : null}
                {quoteLink("thread")}
                {act(viewer?.following ? "unfollow" : "follow", thread.id, viewer?.following ? "Unfollow" : "Follow")}
                {viewer?.canEdit ? (
                  <Link href={`/forum/${thread.slug}/edit`} className={button}>
                    Edit thread
                  </Link>
                ) : null}
                {viewer?.canEdit ? (
                  act(
                    "delete-thread",
                    thread.id,
                    "Delete thread",
                    {},
                    "Delete your thread? It disappears for everyone.",
                  )
                ) : (
                  <ReportPost kind="THREAD" id={thread.id} />
                )}
                {isOperator ? (
                  <PostModeration kind="THREAD" id={thread.id} locked={thread.locked} pinned={thread.pinned} />
                ) : null}
              </>
            ) : null
          }
        />
        {accepted && current === 1 ? (
          <Post post={accepted} accepted label="Accepted answer" actions={replyActions(accepted)} />
        ) : null}
      </div>

      {otherReplies.length > 0 || !accepted || current > 1 ? (
        <h2 className="mt-8 text-lg font-semibold">
          {accepted && current === 1 ? "Other replies" : "Replies"}
          {pageCount > 1 ? ` · page ${current} of ${pageCount}` : ""}
        </h2>
      ) : null}
      {shown.length === 0 ? <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">No replies yet.</p> : null}
      <div className="mt-4 space-y-4">
        {otherReplies.map((reply) => (
          <Post key={reply.id} post={reply} actions={replyActions(reply)} highlight={posted && reply.id === focus} />
        ))}
      </div>
      {pager}
      <section className="mt-10 scroll-mt-24" aria-label="Reply" id="reply-form">
        {session ? (
          <ReplyForm
            key={idempotencyKey}
            threadId={thread.id}
            slug={thread.slug}
            idempotencyKey={idempotencyKey}
            initialBody={quoted ? quoteOf(quoted) : undefined}
          />
        ) : (
          <p className="text-sm">
            <Link
              className="font-medium underline"
              href={`/sign-in?returnTo=${encodeURIComponent(`/forum/${thread.slug}`)}`}
            >
              Sign in
            </Link>{" "}
            to reply, vote and follow.
          </p>
        )}
      </section>
    </div>
  );
}
