import Link from "next/link";
import { ScrollToPost } from "@/components/forum/scroll-to-post";
import { Alert } from "@/components/ui/alert";
import { BUTTON, pageHref } from "./thread-links";

type Located = { replyId: string; page: number };

/**
 * Where the visitor is in the thread: a notice an action sent back, their reply just posted (and
 * the scroll to it), what is new since their last visit, and jumps to the first unread and the
 * last reply.
 */
export function ReadingPosition({
  slug,
  notice,
  posted,
  current,
  pageCount,
  focus,
  unreadCount,
  firstUnread,
  lastReply,
}: {
  slug: string;
  notice: string | null;
  posted: boolean;
  current: number;
  pageCount: number;
  focus: string | null;
  unreadCount: number;
  firstUnread: Located | null;
  lastReply: Located | null;
}) {
  return (
    <>
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
      {unreadCount > 0 ? (
        <p className="mt-4 text-sm font-medium text-brand-700 dark:text-brand-300">
          {unreadCount} new {unreadCount === 1 ? "reply" : "replies"} since your last visit
        </p>
      ) : null}
      {firstUnread || lastReply ? (
        <p className="mt-3 flex flex-wrap gap-2 text-sm">
          {firstUnread ? (
            <Link href={pageHref(slug, firstUnread.page, `#reply-${firstUnread.replyId}`)} className={BUTTON}>
              Jump to first unread
            </Link>
          ) : null}
          {lastReply ? (
            <Link href={pageHref(slug, lastReply.page, `#reply-${lastReply.replyId}`)} className={BUTTON}>
              Jump to last reply
            </Link>
          ) : null}
        </p>
      ) : null}
    </>
  );
}
