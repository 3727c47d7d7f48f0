import Link from "next/link";
import { randomUUID } from "node:crypto";
import { ReplyForm } from "@/components/forum/compose";
import { apiWithToken } from "@/lib/api/for-request";
import { foundOrNull } from "@/lib/api/page-data";
import type { ForumReply, ForumThread } from "@/lib/api/schemas/forum";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

/**
 * The reply form at the foot of the thread, or the way to sign in. Quoting (?quote=<reply id> or
 * ?quote=thread) starts the editor with the quoted words; a quoted reply is loaded here.
 */
export async function ReplySection({
  thread,
  signedIn,
  quoteId,
}: {
  thread: ForumThread;
  signedIn: boolean;
  quoteId: string | undefined;
}) {
  const quoted =
    !signedIn || !quoteId
      ? null
      : quoteId === "thread"
        ? thread
        : UUID.test(quoteId)
          ? ((await foundOrNull((await apiWithToken()).getReply({ params: { id: quoteId } })))?.data ?? null)
          : null;
  const idempotencyKey = randomUUID();
  return (
    <section className="mt-10 scroll-mt-24" aria-label="Reply" id="reply-form">
      {signedIn ? (
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
  );
}
