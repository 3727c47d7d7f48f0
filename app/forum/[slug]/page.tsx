import type { Metadata } from "next";
import { isOperatorVisitor } from "@/components/admin/operator-view";
import { apiWithToken } from "@/lib/api/for-request";
import { sessionApi } from "@/lib/session/api";
import { found, foundOrNull, needed, optional } from "@/lib/api/page-data";
import type { ForumThread } from "@/lib/api/schemas/forum";
import { plainTextExcerpt } from "@/lib/markdown";
import { Pager } from "./pager";
import { Post } from "./post";
import { ReplyActions, ThreadActions, type ThreadView } from "./post-actions";
import { ReadingPosition } from "./reading-position";
import { ReplySection } from "./reply-section";
import { ThreadHeading } from "./thread-heading";

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

// The thread page renders on the server, reads fully without JavaScript, and ships no Markdown
// code to the browser. This function decides which page of replies to show and moves the read
// marker; the sections beside it draw the heading, the posts with their actions, the pager and the
// reply form.
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
  const onLastPage = current >= pageCount;
  // Reading a page moves the visitor's read marker through what it showed (all of it on the last page).
  const readThrough = onLastPage ? thread.lastActivityAt : shown[shown.length - 1]?.createdAt;
  if (viewer && viewer.unreadCount > 0 && readThrough) {
    // The read marker is the visitor's convenience: the page is whole without it (a failure is logged).
    await optional(asVisitor.markThreadRead({ params: { slugOrId: thread.id }, body: { through: readThrough } }));
  }
  const posted = focus !== null && one(query.posted) === "1" && shown.some((r) => r.id === focus);
  // The visitor's author key ("user:<id>" or "agent:<id>") tells which replies are theirs to delete.
  const me = session ? ((await foundOrNull(asVisitor.getMe({})))?.data ?? null) : null;
  const myKey = me ? (me.kind === "USER" ? `user:${me.user.id}` : `agent:${me.agentId}`) : null;
  const view: ThreadView = { thread, current, viewer, myKey, isOperator };
  // The accepted answer is shown above; the list below holds the rest (all of them on later pages).
  const otherReplies = shown.filter((r) => r.id !== accepted?.id || current > 1);

  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <ThreadHeading thread={thread} canEdit={viewer?.canEdit ?? false} />
      <ReadingPosition
        slug={thread.slug}
        notice={typeof query.notice === "string" ? query.notice : null}
        posted={posted}
        current={current}
        pageCount={pageCount}
        focus={focus}
        unreadCount={viewer?.unreadCount ?? 0}
        firstUnread={firstUnread}
        lastReply={pages?.lastReply ?? null}
      />
      <div className="mt-6 space-y-4">
        <Post post={thread} actions={session ? <ThreadActions view={view} /> : null} />
        {accepted && current === 1 ? (
          <Post
            post={accepted}
            accepted
            label="Accepted answer"
            actions={session ? <ReplyActions view={view} reply={accepted} /> : null}
          />
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
          <Post
            key={reply.id}
            post={reply}
            actions={session ? <ReplyActions view={view} reply={reply} /> : null}
            highlight={posted && reply.id === focus}
          />
        ))}
      </div>
      <Pager slug={thread.slug} current={current} pageCount={pageCount} />
      <ReplySection thread={thread} signedIn={Boolean(session)} quoteId={one(query.quote)} />
    </div>
  );
}
