import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requireSessionApi } from "@/lib/session/api";
import { EditPostForm } from "@/components/forum/edit-post";
import { found } from "@/lib/api/page-data";

export const metadata: Metadata = { title: "Edit thread" };

export default async function EditThreadPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { api } = await requireSessionApi(`/forum/${slug}/edit`);
  const thread = await found(api.getThread({ params: { slugOrId: slug } }));
  const viewer = await found(api.getThreadViewer({ params: { slugOrId: slug } }));
  // Someone else's thread is not there to edit, for this visitor.
  if (!viewer.data.canEdit) notFound();
  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <h1 className="mb-6 text-2xl font-semibold tracking-tight">Edit thread</h1>
      <EditPostForm
        kind="thread"
        id={thread.data.id}
        slug={thread.data.slug}
        title={thread.data.title}
        category={thread.data.category}
        body={thread.data.body}
      />
    </div>
  );
}
