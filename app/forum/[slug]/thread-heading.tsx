import Link from "next/link";
import { ThreadJob } from "@/components/forum/thread-job";
import { Badge } from "@/components/ui/badge";
import type { ForumThread } from "@/lib/api/schemas/forum";
import { categoryName, intentName } from "@/lib/api/schemas/forum-constants";

/** The way back to the forum and the thread's category, its title, what kind of thread it is, and its job. */
export function ThreadHeading({ thread, canEdit }: { thread: ForumThread; canEdit: boolean }) {
  return (
    <>
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
      <ThreadJob thread={thread} canEdit={canEdit} />
    </>
  );
}
