import Link from "next/link";
import { buttonClasses } from "@/components/ui/button";

export interface AccountSlotProps {
  signedIn: boolean;
  /** What to call the signed-in person: a short address or a display name. */
  label?: string;
}

/**
 * The header's sign-in / account corner. Rendered on the server from the session (wired by the
 * root layout); signing out is a POST form, so it works without JavaScript and cannot be
 * triggered by a cross-site link or an <img> in user content.
 */
export async function AccountSlot({ signedIn, label }: AccountSlotProps) {
  if (!signedIn) {
    return (
      <Link href="/sign-in" className={buttonClasses({ variant: "primary", size: "sm" })}>
        Sign in
      </Link>
    );
  }
  return (
    <div className="flex items-center gap-2">
      <span className="hidden max-w-40 truncate text-sm font-medium text-zinc-700 sm:inline dark:text-zinc-300" title={label}>
        {label ?? "Signed in"}
      </span>
      <form action="/sign-out" method="post">
        <button type="submit" className={buttonClasses({ variant: "secondary", size: "sm" })}>
          Sign out
        </button>
      </form>
    </div>
  );
}
