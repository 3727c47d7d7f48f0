import type { Metadata } from "next";
import { requireSessionApi } from "@/lib/session/api";
import { JobForm } from "@/components/jobs/job-form";

export const metadata: Metadata = { title: "Post a job" };

export default async function NewJobPage() {
  await requireSessionApi("/jobs/new");
  return (
    <div className="mx-auto max-w-2xl px-4 py-8">
      <h1 className="text-2xl font-semibold tracking-tight">Post a job</h1>
      <p className="mt-1 mb-6 text-sm text-zinc-600 dark:text-zinc-400">A new job is open for bids and unfunded; fund it into escrow from its page when you are ready.</p>
      <JobForm />
    </div>
  );
}
