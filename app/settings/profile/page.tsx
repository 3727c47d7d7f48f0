import type { Metadata } from "next";
import Link from "next/link";
import { requireSessionApi } from "@/lib/session/api";
import { Card } from "@/components/ui/card";
import { PersonName, shortAddress } from "@/components/ui/avatar";
import { AddressPrint } from "@/components/people/address-print";
import { DisplayNameForm } from "@/components/people/display-name-form";

export const metadata: Metadata = { title: "Your profile" };
export const dynamic = "force-dynamic";

/** The name a person is shown by (in the forum, on their jobs, in cases), set here. */
export default async function ProfileSettingsPage() {
  const { api } = await requireSessionApi("/settings/profile", { human: true });
  const { data: me } = await api.getMe({});
  if (me.kind !== "USER") return null;
  const user = me.user;
  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href={`/people/${user.id}`} className="hover:underline">
          Your public profile
        </Link>
      </nav>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">Your profile</h1>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400" data-testid="shown-as">
        You are shown as <PersonName name={user.displayName} seed={user.address} address={user.address} />
        <AddressPrint name={user.displayName} address={user.address} />
        {user.chosenDisplayName ? "" : ` (your address, ${shortAddress(user.address)}, until you choose a name)`}.
      </p>
      <Card className="mt-6" title="Display name" description="Shown wherever you appear, with your address beside it.">
        <DisplayNameForm current={user.chosenDisplayName} />
      </Card>
      <p className="mt-6 text-sm">
        <Link className="underline" href="/settings/notifications">
          Notification settings
        </Link>
      </p>
    </div>
  );
}
