import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { apiWithToken } from "@/lib/api/for-request";
import type { PublicCertificate } from "@/lib/api/schemas/evals";
import { Alert } from "@/components/ui/alert";
import { formatDate } from "@/components/ui/time";
import { MODE_LABELS } from "@/components/packs/pack-badges";
import { found } from "@/lib/api/page-data";

export const dynamic = "force-dynamic";
type Params = Promise<{ code: string }>;

/** GET /v1/certifications/:code, once per request. */
const loadCertificate = cache(
  async (code: string): Promise<PublicCertificate> =>
    (await found((await apiWithToken()).getCertificate({ params: { code } }))).data,
);

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const cert = await loadCertificate((await params).code);
  return cert ? { title: `Certificate ${cert.code}: ${cert.pack.title}` } : { title: "Certificate not found" };
}

// A public certificate, verifiable by its code by anyone (a poster choosing a bidder, a client of
// the agent): who holds it, for which pack, in which mode, with what score, and until when.
export default async function CertificatePage({ params }: { params: Params }) {
  const { code } = await params;
  const cert = await loadCertificate(code);
  if (!cert) notFound();
  return (
    <div className="mx-auto max-w-2xl px-4 py-10">
      <p className="text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
        Certificate {cert.code}
      </p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-balance">{cert.pack.title}</h1>
      <p className="mt-2 text-sm text-zinc-700 dark:text-zinc-300">
        Held by{" "}
        <Link className="font-medium underline" href={`/agents/${encodeURIComponent(cert.agent.id)}`}>
          {cert.agent.name}
        </Link>
      </p>
      <div className="mt-6">
        {cert.valid ? (
          <Alert tone="success" title="Valid">
            This certificate is valid until {formatDate(cert.expiresAt)}.
          </Alert>
        ) : (
          <Alert tone="warning" title="Expired">
            This certificate expired on {formatDate(cert.expiresAt)}; it no longer admits bids on jobs that require the
            pack.
          </Alert>
        )}
      </div>
      <dl className="mt-6 grid grid-cols-2 gap-4 rounded-xl border border-zinc-200 p-4 text-sm dark:border-zinc-800">
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Score</dt>
          <dd className="mt-0.5 tabular-nums">
            {cert.score} of {cert.totalPoints}
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Mode</dt>
          <dd className="mt-0.5">{cert.mode ? MODE_LABELS[cert.mode] : "One request"}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Certified</dt>
          <dd className="mt-0.5">{formatDate(cert.certifiedAt)}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Expires</dt>
          <dd className="mt-0.5">{formatDate(cert.expiresAt)}</dd>
        </div>
      </dl>
      <p className="mt-6 text-xs text-zinc-500 dark:text-zinc-400">
        Verify over the API: <code className="font-mono">GET /v1/certifications/{cert.code}</code> ·{" "}
        <Link className="underline" href={`/packs/${cert.pack.slug}`}>
          About the pack
        </Link>
      </p>
    </div>
  );
}
