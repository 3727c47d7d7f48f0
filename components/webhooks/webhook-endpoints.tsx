"use client";

import Link from "next/link";
import { useActionState } from "react";
import { EVENT_TYPES, EVENT_TYPE_NAMES } from "@/lib/api/schemas/event-names";
import { WEBHOOK_LIMITS, type WebhookDelivery, type WebhookEndpoint } from "@/lib/api/schemas/webhooks";
import { createWebhookAction, type NewWebhookState } from "@/lib/actions/webhooks/create-webhook";
import { rotateWebhookSecretAction } from "@/lib/actions/webhooks/rotate-webhook-secret";
import { setWebhookEnabledAction } from "@/lib/actions/webhooks/set-webhook-enabled";
import { deleteWebhookAction } from "@/lib/actions/webhooks/delete-webhook";
import { sendWebhookTestAction, type WebhookQueuedState } from "@/lib/actions/webhooks/send-webhook-test";
import { redeliverWebhookAction } from "@/lib/actions/webhooks/redeliver-webhook";
import { messagesOf, type FormState } from "@/lib/actions/form-state";
import { CopyButton } from "@/components/rewards/copy-button";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { Input } from "@/components/ui/field";
import { formatDate } from "@/components/ui/time";

const DELIVERY_TONE = { PENDING: "amber", DELIVERED: "green", FAILED: "red" } as const;

export interface EndpointWithLog {
  endpoint: WebhookEndpoint;
  /** The newest deliveries, or null when the log could not be read. */
  deliveries: WebhookDelivery[] | null;
}

/** A secret the service returned once: shown here, with a copy button, and never again. */
function NewSecret({ created }: { created: NonNullable<NewWebhookState["created"]> }) {
  return (
    <Alert
      tone="success"
      className="mt-4"
      title={`Signing secret of ${created.url}: copy it now, it is not shown again`}
    >
      <div className="mt-1 flex flex-wrap items-center gap-2">
        <code
          aria-label="Webhook signing secret"
          className="break-all rounded bg-white/60 px-2 py-1 font-mono text-xs dark:bg-zinc-950/40"
        >
          {created.secret}
        </code>
        <CopyButton value={created.secret} label="Copy secret" />
      </div>
    </Alert>
  );
}

/** The endpoint's owner (an agent's id; none for the person's own endpoints) and the endpoint. */
function Hidden({ agentId, webhookId }: { agentId: string | null; webhookId: string }) {
  return (
    <>
      {agentId ? <input type="hidden" name="agentId" value={agentId} /> : null}
      <input type="hidden" name="webhookId" value={webhookId} />
    </>
  );
}

function DeliveryLog({
  agentId,
  endpointId,
  deliveries,
  redeliver,
}: {
  agentId: string | null;
  endpointId: string;
  deliveries: WebhookDelivery[];
  redeliver: (form: FormData) => void;
}) {
  if (deliveries.length === 0)
    return <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">No deliveries yet.</p>;
  return (
    <ul
      className="mt-2 divide-y divide-zinc-200 rounded-lg border border-zinc-200 text-sm dark:divide-zinc-800 dark:border-zinc-800"
      aria-label="Deliveries"
    >
      {deliveries.map((delivery) => (
        <li
          key={delivery.id}
          className="px-3 py-2"
          aria-label={`Delivery ${delivery.eventType} ${delivery.status.toLowerCase()}`}
        >
          <div className="flex flex-wrap items-center gap-2">
            <span className="font-mono text-xs">{delivery.eventType}</span>
            <Badge tone={DELIVERY_TONE[delivery.status]}>{delivery.status.toLowerCase()}</Badge>
            <span className="text-xs text-zinc-500 dark:text-zinc-400">
              {delivery.attempts} attempt{delivery.attempts === 1 ? "" : "s"} · queued{" "}
              {formatDate(delivery.createdAt, { withTime: true })}
              {delivery.status === "PENDING" && delivery.nextAttemptAt
                ? ` · next ${formatDate(delivery.nextAttemptAt, { withTime: true })}`
                : ""}
            </span>
            <form action={redeliver} className="ml-auto" aria-label={`Redeliver ${delivery.eventType}`}>
              <Hidden agentId={agentId} webhookId={endpointId} />
              <input type="hidden" name="deliveryId" value={delivery.id} />
              <Button type="submit" variant="secondary" size="sm">
                Redeliver
              </Button>
            </form>
          </div>
          {delivery.log.length > 0 ? (
            <ol className="mt-1 space-y-0.5 text-xs text-zinc-600 dark:text-zinc-400" aria-label="Attempts">
              {delivery.log.map((attempt) => (
                <li key={attempt.id}>
                  {formatDate(attempt.at, { withTime: true })} ·{" "}
                  {attempt.statusCode === null ? "no answer" : `HTTP ${attempt.statusCode}`} · {attempt.latencyMs} ms
                  {attempt.error ? ` · ${attempt.error}` : ""}
                  {attempt.responseExcerpt ? (
                    <code className="ml-1 break-all font-mono">{attempt.responseExcerpt.slice(0, 200)}</code>
                  ) : null}
                </li>
              ))}
            </ol>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/**
 * Webhook endpoints: an agent's for its owner (agentId, on the agent's page), or the signed-in
 * person's own (agentId null, /settings/webhooks). Register one (URL, events; the signing secret is
 * shown once), and per endpoint its state (a notice when it was disabled after a day of failures),
 * send test, enable/disable, rotate the secret, delete, and its delivery log with redelivery.
 */
export function WebhookEndpoints({
  agentId,
  endpoints,
  pagePath,
}: {
  agentId: string | null;
  endpoints: EndpointWithLog[];
  pagePath: string;
}) {
  const [created, create, creating] = useActionState<NewWebhookState, FormData>(createWebhookAction, {});
  const [rotated, rotate] = useActionState<NewWebhookState, FormData>(rotateWebhookSecretAction, {});
  const [tested, test, testing] = useActionState<WebhookQueuedState, FormData>(sendWebhookTestAction, {});
  const [redelivered, redeliver] = useActionState<WebhookQueuedState, FormData>(redeliverWebhookAction, {});
  const [toggled, toggle] = useActionState<FormState, FormData>(setWebhookEnabledAction, {});
  const [deleted, remove] = useActionState<FormState, FormData>(deleteWebhookAction, {});
  const errors = [
    ...messagesOf(created, { url: "URL", events: "Events", description: "Description" }),
    ...messagesOf(rotated),
    ...messagesOf(tested),
    ...messagesOf(redelivered),
    ...messagesOf(toggled),
    ...messagesOf(deleted),
  ];

  return (
    <div>
      <form
        action={create}
        key={created.attempt ?? 0}
        className="mt-4 space-y-3"
        aria-label="Register a webhook endpoint"
      >
        {agentId ? <input type="hidden" name="agentId" value={agentId} /> : null}
        <div className="flex flex-wrap items-end gap-4">
          <label className="block min-w-72 flex-1">
            <span className="mb-1 block text-sm font-medium">Endpoint URL</span>
            <Input
              name="url"
              type="url"
              required
              maxLength={WEBHOOK_LIMITS.urlMax}
              placeholder="https://example.com/webhooks/awm"
              defaultValue={created.values?.url ?? ""}
            />
          </label>
          <label className="block w-64">
            <span className="mb-1 block text-sm font-medium">Description (optional)</span>
            <Input
              name="description"
              maxLength={WEBHOOK_LIMITS.descriptionMax}
              defaultValue={created.values?.description ?? ""}
            />
          </label>
        </div>
        <details className="text-sm">
          <summary className="cursor-pointer font-medium">Events (none checked: every event)</summary>
          <fieldset className="mt-2 grid gap-1 sm:grid-cols-2">
            <legend className="sr-only">Events</legend>
            {EVENT_TYPE_NAMES.map((type) => (
              <label key={type} className="flex items-start gap-1.5 text-xs" title={EVENT_TYPES[type]}>
                <input type="checkbox" name="events" value={type} className="mt-0.5" />{" "}
                <span className="font-mono">{type}</span>
              </label>
            ))}
          </fieldset>
        </details>
        <Button type="submit" loading={creating} loadingLabel="Registering…">
          Register endpoint
        </Button>
      </form>
      {errors.length > 0 ? (
        <Alert className="mt-4" title="The webhook could not be changed">
          {errors.join(" ")}
        </Alert>
      ) : null}
      {created.created ? <NewSecret created={created.created} /> : null}
      {rotated.created ? <NewSecret created={rotated.created} /> : null}
      {tested.queued || redelivered.queued ? (
        <Alert variant="inline" tone="success" className="mt-4 font-medium">
          Queued: it is sent within seconds.{" "}
          <Link className="underline" href={pagePath}>
            Refresh the log
          </Link>
        </Alert>
      ) : null}

      {endpoints.length === 0 ? (
        <p className="mt-4 text-sm text-zinc-500 dark:text-zinc-400">No endpoints yet.</p>
      ) : (
        <ul className="mt-4 space-y-4" aria-label="Webhook endpoints">
          {endpoints.map(({ endpoint, deliveries }) => (
            <li
              key={endpoint.id}
              className="rounded-xl border border-zinc-200 p-4 dark:border-zinc-800"
              aria-label={`Endpoint ${endpoint.url}`}
            >
              <div className="flex flex-wrap items-center gap-2">
                <code className="break-all font-mono text-sm">{endpoint.url}</code>
                {endpoint.enabled ? <Badge tone="green">enabled</Badge> : <Badge tone="red">disabled</Badge>}
                <span className="font-mono text-xs text-zinc-500 dark:text-zinc-400">{endpoint.secretPrefix}…</span>
              </div>
              {endpoint.description ? (
                <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-300">{endpoint.description}</p>
              ) : null}
              <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
                Events: {endpoint.events.length === 0 ? "every event" : endpoint.events.join(", ")}
                {endpoint.failingSince
                  ? ` · failing since ${formatDate(endpoint.failingSince, { withTime: true })}`
                  : ""}
              </p>
              {!endpoint.enabled && endpoint.disabledReason ? (
                <Alert
                  tone="warning"
                  className="mt-2"
                  title={`Disabled${endpoint.disabledAt ? ` ${formatDate(endpoint.disabledAt, { withTime: true })}` : ""}`}
                >
                  {endpoint.disabledReason}. Nothing is sent to it but tests; enable it once the receiver answers 2xx
                  again.
                </Alert>
              ) : null}
              <div className="mt-3 flex flex-wrap items-center gap-2">
                <form action={test} aria-label={`Send a test to ${endpoint.url}`}>
                  <Hidden agentId={agentId} webhookId={endpoint.id} />
                  <Button type="submit" variant="secondary" size="sm" loading={testing} loadingLabel="Sending…">
                    Send test
                  </Button>
                </form>
                <form action={toggle} aria-label={`${endpoint.enabled ? "Disable" : "Enable"} ${endpoint.url}`}>
                  <Hidden agentId={agentId} webhookId={endpoint.id} />
                  <input type="hidden" name="enabled" value={endpoint.enabled ? "false" : "true"} />
                  <Button type="submit" variant="secondary" size="sm">
                    {endpoint.enabled ? "Disable" : "Enable"}
                  </Button>
                </form>
                <form action={rotate} aria-label={`Rotate the secret of ${endpoint.url}`}>
                  <Hidden agentId={agentId} webhookId={endpoint.id} />
                  <ConfirmSubmit
                    variant="secondary"
                    size="sm"
                    confirmTitle="Rotate the signing secret?"
                    confirmMessage="A new secret signs every delivery from now on; the old one keeps signing beside it for 24 hours, then stops."
                    confirmLabel="Rotate secret"
                    pendingLabel="Rotating…"
                  >
                    Rotate secret
                  </ConfirmSubmit>
                </form>
                <form action={remove} aria-label={`Delete ${endpoint.url}`}>
                  <Hidden agentId={agentId} webhookId={endpoint.id} />
                  <ConfirmSubmit
                    variant="danger"
                    size="sm"
                    confirmTitle="Delete this endpoint?"
                    confirmMessage={`Nothing more is sent to ${endpoint.url}, and its delivery log is deleted.`}
                    confirmLabel="Delete endpoint"
                    pendingLabel="Deleting…"
                  >
                    Delete
                  </ConfirmSubmit>
                </form>
              </div>
              <h3 className="mt-4 text-sm font-semibold">Recent deliveries</h3>
              {deliveries === null ? (
                <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">The log could not be loaded.</p>
              ) : (
                <DeliveryLog agentId={agentId} endpointId={endpoint.id} deliveries={deliveries} redeliver={redeliver} />
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
