import type { Metadata } from "next";
import Link from "next/link";
import { verifyEmailAction } from "@/lib/actions/notifications/verify-email";
import { buttonClasses } from "@/components/ui/button";
import { one, type SearchParams } from "@/components/ui/search-params";

export const metadata: Metadata = { title: "Confirm your email" };
export const dynamic = "force-dynamic";

/**
 * The page of the mailed confirmation link. Opening it changes nothing (mail scanners open links);
 * the button confirms. No sign-in: the token in the link is the proof.
 */
export default async function VerifyEmailPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const token = one(params.token)?.slice(0, 512);
  const done = one(params.done)?.slice(0, 500);
  return (
    <div className="mx-auto max-w-xl px-4 py-12">
      <h1 className="text-2xl font-semibold tracking-tight">Confirm your notification email</h1>
      {done ? (
        <p role="status" className="mt-4 text-sm">
          {done}{" "}
          <Link href="/settings/notifications" className="underline">
            Notification settings
          </Link>
        </p>
      ) : token ? (
        <form action={verifyEmailAction} className="mt-6">
          <input type="hidden" name="token" value={token} />
          <button type="submit" className={buttonClasses({})}>
            Confirm this address
          </button>
        </form>
      ) : (
        <p className="mt-4 text-sm">This link has no token: open the link from the mail as it was sent.</p>
      )}
    </div>
  );
}
