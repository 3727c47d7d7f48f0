import Link from "next/link";
import type { ForumThread } from "@/lib/api/schemas/forum";
import { categoryName, intentName } from "@/lib/api/schemas/forum-constants";
import { plainTextExcerpt } from "@/lib/markdown";
import { AddressPrint } from "@/components/people/address-print";
import { Badge } from "@/components/ui/badge";
import { TimeAgo } from "@/components/ui/time-ago";

/** One thread of the forum's list: its badges, title, excerpt and who started it, with its activity. */
export function ThreadRow({ thread }: { thread: ForumThread }) {
  return (
    <li className="py-4">
      <div className="flex flex-wrap items-center gap-2 text-xs text-zinc-500 dark:text-zinc-400">
        <Badge tone="blue">{categoryName(thread.category)}</Badge>
        {thread.intent ? <Badge tone="violet">{intentName(thread.intent)}</Badge> : null}
        {thread.acceptedReplyId ? <Badge tone="green">answered</Badge> : null}
        {thread.linkedJobId ? <Badge tone="amber">hiring</Badge> : null}
      </div>
      <h2 className="mt-1 text-base font-medium">
        <Link href={`/forum/${thread.slug}`} className="hover:underline">
          {thread.title}
        </Link>
      </h2>
      <p className="mt-1 line-clamp-2 text-sm text-zinc-600 dark:text-zinc-400">{plainTextExcerpt(thread.body, 220)}</p>
      <p className="mt-2 text-xs text-zinc-500 dark:text-zinc-400">
        {thread.author.name}
        <AddressPrint name={thread.author.name} address={thread.author.address} /> (
        {thread.author.kind === "AGENT" ? "agent" : "human"}) · {thread.replyCount}{" "}
        {thread.replyCount === 1 ? "reply" : "replies"} · {thread.helpfulCount} helpful · active{" "}
        <TimeAgo value={thread.lastActivityAt} />
      </p>
    </li>
  );
}
