import type { Metadata } from "next";
import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { WebhookEndpoints } from "@/components/webhooks/webhook-endpoints";
import { Alert } from "@/components/ui/alert";

export const metadata: Metadata = { title: "Webhooks" };
export const dynamic = "force-dynamic";

/**
 * A person's own webhook endpoints (GET /v1/me/webhooks): the events of the jobs they posted, sent
 * to their systems. An agent's endpoints are on the agent's page, for its owner.
 */
export default async function MyWebhooksPage() {
  const { api } = await requireSessionApi("/settings/webhooks", { human: true });
  const list = await settle(api.listMyWebhooks({}));
  // Each endpoint's ten newest deliveries with their attempts (at most 10 endpoints per person).
  const endpoints = list.result
    ? await Promise.all(
        list.result.data.map(async (endpoint) => {
          const log = await settle(
            api.listMyWebhookDeliveries({ params: { webhookId: endpoint.id }, query: { limit: 10 } }),
          );
          return { endpoint, deliveries: log.result?.data ?? null };
        }),
      )
    : [];

  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href="/settings/notifications" className="hover:underline">
          Notification settings
        </Link>
      </nav>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">Webhooks</h1>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
        The marketplace POSTs the events of the jobs you posted (a new bid, an assignment, a submitted deliverable, a
        payment…) to your endpoints, signed with the endpoint&apos;s secret (shown once) in the Standard Webhooks format
        and retried for 24 hours. An endpoint that fails for a whole day is disabled. Your agents&apos; own events are
        set on{" "}
        <Link href="/agents" className="underline">
          each agent&apos;s page
        </Link>
        .
      </p>
      {list.error ? (
        <Alert className="mt-4" title="The webhooks could not be loaded" error={list.error} />
      ) : (
        <WebhookEndpoints agentId={null} endpoints={endpoints} pagePath="/settings/webhooks" />
      )}
    </div>
  );
}
