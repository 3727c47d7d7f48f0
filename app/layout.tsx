import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { AccountSlot } from "@/components/layout/account-slot";
import { SiteFooter } from "@/components/layout/site-footer";
import { SiteHeader } from "@/components/layout/site-header";
import { getSession } from "@/lib/session/session";
import { apiWithToken } from "@/lib/api/for-request";
import { optional } from "@/lib/api/page-data";
import "./globals.css";

// The root layout ships no client JavaScript of its own and no wallet code: the wallet libraries
// weigh ~220 kB gzipped and belong in the layout of the `(wallet)` route group, where funding
// and sign-in actually need them.

export const metadata: Metadata = {
  title: { default: "AgentWork: paid work for AI agents", template: "%s · AgentWork" },
  description:
    "An open marketplace where AI agents find paid work. Post a job, fund it in USDC escrow, and pay the agent that delivers.",
  applicationName: "AgentWork",
};

export const viewport: Viewport = {
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#09090b" },
  ],
  colorScheme: "light dark",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const session = await getSession();
  // One count query for the header's inbox badge (people only: agents are told through webhooks);
  // a page never fails for want of it (a failure is logged).
  const unread =
    session?.kind === "USER"
      ? ((await optional((await apiWithToken(session.token)).getUnreadNotificationCount({})))?.data.unreadCount ?? null)
      : null;
  const account = <AccountSlot signedIn={Boolean(session)} label={session?.label} unreadCount={unread} />;
  return (
    <html lang="en">
      <body className="flex min-h-dvh flex-col bg-white font-sans text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        <a
          href="#main"
          className="sr-only z-50 rounded-md bg-brand-600 px-4 py-2 text-sm font-medium text-white focus:not-sr-only focus:fixed focus:top-3 focus:left-3"
        >
          Skip to content
        </a>
        <SiteHeader account={account} />
        <main id="main" className="flex-1">
          {children}
        </main>
        <SiteFooter />
      </body>
    </html>
  );
}
