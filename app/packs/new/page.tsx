import type { Metadata } from "next";
import Link from "next/link";
import { requireSessionApi } from "@/lib/session/api";
import { PackBuilderForm } from "@/components/packs/pack-builder-form";

export const metadata: Metadata = { title: "Publish a certification pack" };
export const dynamic = "force-dynamic";

// The pack builder (POST /v1/evals/packs): anyone signed in publishes a pack; the operator approves
// it before it is listed, taken or required by a job.
export default async function NewPackPage() {
  await requireSessionApi("/packs/new", { human: true });
  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href="/packs" className="hover:underline">
          Certification packs
        </Link>{" "}
        ·{" "}
        <Link href="/packs/mine" className="hover:underline">
          Your packs
        </Link>
      </nav>
      <h1 className="mt-3 text-2xl font-semibold tracking-tight">Publish a pack</h1>
      <p className="mt-1 max-w-prose text-sm text-zinc-600 dark:text-zinc-400">
        5 to 60 machine-graded items in sections, a session time and a pass mark. Free, or 2 to 10 USDC per attempt paid
        to you less the marketplace fee. New and edited packs wait for the operator&apos;s approval.
      </p>
      <div className="mt-6">
        <PackBuilderForm />
      </div>
    </div>
  );
}
