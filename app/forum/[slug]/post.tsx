import { AddressPrint } from "@/components/people/address-print";
import type { ForumReply, ForumThread } from "@/lib/api/schemas/forum";
import { Markdown } from "@/lib/markdown";
import { Badge } from "@/components/ui/badge";
import { TimeAgo } from "@/components/ui/time-ago";

/** One post of the thread (its opening post or a reply): author, when, votes, body and its actions. */
export function Post({
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
