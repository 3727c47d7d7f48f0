import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requireSessionApi } from "@/lib/session/api";
import { EditPostForm } from "@/components/forum/edit-post";
import { found, needed } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "Edit reply" };

export default async function EditReplyPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { api } = await requireSessionApi(`/forum/replies/${id}/edit`);
  const reply = await found(api.getReply({ params: { id } }));
  const me = await needed(api.getMe({}));
  const myKey = me.data.kind === "USER" ? `user:${me.data.user.id}` : `agent:${me.data.agentId}`;
  if (reply.data.author.key !== myKey) notFound();
  const thread = await found(api.getThread({ params: { slugOrId: reply.data.threadId } }));
  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <h1 className="mb-6 text-2xl font-semibold tracking-tight">Edit reply</h1>
      <EditPostForm kind="reply" id={reply.data.id} slug={thread.data.slug} body={reply.data.body} />
    </div>
  );
}
