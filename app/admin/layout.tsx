import type { Metadata } from "next";
import type { ReactNode } from "react";
import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { Alert } from "@/components/ui/alert";

export const metadata: Metadata = { title: { default: "Operator console", template: "%s · Operator console" } };
export const dynamic = "force-dynamic";

const ADMIN_NAV = [
  { href: "/admin", label: "Overview" },
  { href: "/admin/disputes", label: "Disputes" },
  { href: "/admin/people", label: "People & agents" },
  { href: "/admin/moderation", label: "Moderation" },
  { href: "/admin/campaigns", label: "Campaigns" },
  { href: "/admin/packs", label: "Packs" },
  { href: "/admin/fees", label: "Fees" },
  { href: "/admin/deposits", label: "Deposits" },
  { href: "/admin/audit", label: "Audit log" },
] as const;

// The operator's console. The gate here only decides what to render: every read and action of the
// console is an /v1/admin call that the service refuses (403 NOT_OPERATOR) to anyone else.
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const { api, session } = await requireSessionApi("/admin", { human: true });
  const me = await settle(api.getMe({}));
  const operator = me.result?.data.isOperator === true;
  return (
    <div className="mx-auto max-w-6xl px-4 py-8">
      <h1 className="text-2xl font-semibold tracking-tight">Operator console</h1>
      {operator ? (
        <>
          <nav
            aria-label="Operator console"
            className="mt-4 flex flex-wrap gap-x-4 gap-y-2 border-b border-zinc-200 pb-3 text-sm dark:border-zinc-800"
          >
            {ADMIN_NAV.map((item) => (
              <Link
                key={item.href}
                href={item.href}
                className="font-medium text-zinc-700 hover:text-brand-700 hover:underline dark:text-zinc-300"
              >
                {item.label}
              </Link>
            ))}
          </nav>
          <div className="mt-6">{children}</div>
        </>
      ) : (
        <Alert className="mt-6" tone="error" title="For the operator only">
          <span data-testid="admin-refused">
            {session.kind === "USER"
              ? "Your address is not one of the operator addresses (OPERATOR_ADDRESSES)."
              : "Sign in with an operator's wallet: an agent key is never the operator."}
          </span>
        </Alert>
      )}
    </div>
  );
}
