import { sql } from "kysely";
import { WEBHOOK_RESPONSE_EXCERPT_BYTES } from "@/lib/api/schemas/webhooks";
import { webhookHeaders } from "@/lib/api/webhooks";
import type { ServiceContext } from "../context";
import { safeFetch } from "../proofs/safe-fetch";
import { serviceFetchPolicy } from "../proofs/fetch-policy";
import { publishEvent } from "../events/publish-event";
import { openWebhookSecret } from "./endpoint-secret";

/**
 * A claimed delivery stays out of other instances' reach this long (its POST takes at most 10 s);
 * if the instance dies mid-POST the row comes back after it, so delivery is at least once.
 */
const CLAIM_LEASE_MS = 120_000;
const DELIVERY_TIMEOUT_MS = 10_000;

/** Exponential backoff with full jitter: a uniform wait in [0, min(max, base × 2^(attempt−1))]. */
export function retryDelayMs(
  config: ServiceContext["config"],
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(config.webhookRetry.maxMs, config.webhookRetry.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * The envelope every receiver gets; its exact bytes are what the signature covers. `type`,
 * `timestamp` and `data` are Standard Webhooks' payload; `sequence` increases with the event order
 * (it may skip numbers), so a receiver can order what it got; `createdAt` is `timestamp`, kept for
 * receivers written before.
 */
function webhookBody(event: ClaimedEvent): string {
  const at = event.created_at.toISOString();
  return JSON.stringify({
    id: event.id,
    type: event.type,
    timestamp: at,
    sequence: Number(event.seq),
    createdAt: at,
    data: event.data,
  });
}

interface ClaimedEvent {
  id: string;
  seq: string;
  type: string;
  created_at: Date;
  data: Record<string, unknown>;
}

interface Claimed {
  id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  give_up_at: Date;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  /** The event itself, read with the claim (one query per round, not one per delivery). */
  event: ClaimedEvent;
}

/**
 * Claims due deliveries (SKIP LOCKED, then a lease), POSTs each signed envelope through the SSRF-safe
 * fetcher, and records the attempt. `now` is when "due" is judged (tests move it instead of
 * sleeping); the signature's timestamp is the real clock's. Returns how many it attempted.
 */
export async function deliverDueWebhooks(
  ctx: ServiceContext,
  options: { now?: Date; limit?: number } = {},
): Promise<number> {
  const now = options.now ?? ctx.now();
  const claimed: Claimed[] = await ctx.db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom("webhook_deliveries as d")
      .innerJoin("webhook_endpoints as e", "e.id", "d.endpoint_id")
      .innerJoin("domain_events as ev", "ev.id", "d.event_id")
      .select([
        "d.id",
        "d.endpoint_id",
        "d.event_id",
        "d.attempts",
        "d.give_up_at",
        "e.url",
        "e.secret_sealed",
        "e.previous_secret_sealed",
        "e.previous_secret_expires_at",
        "d.event_seq",
        "ev.type as event_type",
        "ev.created_at as event_created_at",
        "ev.data as event_data",
      ])
      .where("d.status", "=", "PENDING")
      .where("d.next_attempt_at", "<=", now)
      // A disabled endpoint gets nothing but the tests its owner asks for.
      .where((eb) => eb.or([eb("e.enabled", "=", true), eb("d.event_type", "=", "webhook.test")]))
      // One endpoint's events go out in event order, one at a time: a delivery waits while an
      // earlier one to the same endpoint is pending (being retried, or in flight under its lease).
      // A test event is outside that order: it neither waits nor holds others back.
      .where((eb) =>
        eb.or([
          eb("d.event_type", "=", "webhook.test"),
          eb.not(
            eb.exists(
              eb
                .selectFrom("webhook_deliveries as p")
                .select(sql<number>`1`.as("one"))
                .whereRef("p.endpoint_id", "=", "d.endpoint_id")
                .where("p.status", "=", "PENDING")
                .whereRef("p.event_seq", "<", "d.event_seq")
                .where("p.event_type", "<>", "webhook.test"),
            ),
          ),
        ]),
      )
      .orderBy("d.next_attempt_at")
      .limit(options.limit ?? 20)
      .forUpdate("d")
      .skipLocked()
      .execute();
    if (rows.length > 0) {
      await trx
        .updateTable("webhook_deliveries")
        .set({ next_attempt_at: new Date(now.getTime() + CLAIM_LEASE_MS), updated_at: ctx.now() })
        .where(
          "id",
          "in",
          rows.map((row) => row.id),
        )
        .execute();
    }
    return rows.map(({ event_seq, event_type, event_created_at, event_data, ...row }) => ({
      ...row,
      event: { id: row.event_id, seq: event_seq, type: event_type, created_at: event_created_at, data: event_data },
    }));
  });
  await Promise.all(claimed.map((delivery) => attemptDelivery(ctx, delivery, now)));
  return claimed.length;
}

async function attemptDelivery(ctx: ServiceContext, delivery: Claimed, now: Date): Promise<void> {
  const { event } = delivery;
  const secret = openWebhookSecret(ctx.config, delivery.secret_sealed);
  // A rotated-out secret signs too (after the current one) until its overlap ends.
  const previous =
    delivery.previous_secret_sealed !== null &&
    delivery.previous_secret_expires_at !== null &&
    delivery.previous_secret_expires_at.getTime() > ctx.now().getTime()
      ? openWebhookSecret(ctx.config, delivery.previous_secret_sealed)
      : null;
  const started = performance.now();
  let statusCode: number | null = null;
  let excerpt: string | null = null;
  let error: string | null = null;
  if (secret === null) {
    error = "the endpoint's secret cannot be opened (the server's webhook key changed): rotate the secret";
  } else {
    const body = webhookBody(event);
    const timestamp = Math.floor(ctx.now().getTime() / 1000);
    const result = await safeFetch(delivery.url, {
      ...serviceFetchPolicy(ctx.config),
      post: {
        body,
        headers: {
          "Content-Type": "application/json",
          ...webhookHeaders({
            secrets: previous === null ? [secret] : [secret, previous],
            id: event.id,
            timestamp,
            body,
          }),
        },
      },
      // A redirect is a failure: the signed body is never sent on to another address.
      maxRedirects: 0,
      readAnyStatus: true,
      maxBodyBytes: WEBHOOK_RESPONSE_EXCERPT_BYTES,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      userAgent: "AgentWorkMarketplace-Webhooks/1.0",
    });
    if (result.ok) {
      statusCode = result.status;
      excerpt = result.text === null ? null : result.text.slice(0, WEBHOOK_RESPONSE_EXCERPT_BYTES);
      if (result.status < 200 || result.status > 299) error = `the receiver answered ${result.status}`;
    } else {
      error =
        result.code === "REDIRECT_LIMIT"
          ? "the receiver answered with a redirect; webhooks do not follow redirects"
          : result.reason;
    }
  }
  const latencyMs = Math.round(performance.now() - started);
  await recordAttempt(ctx, delivery, now, { statusCode, excerpt, error, latencyMs });
}

async function recordAttempt(
  ctx: ServiceContext,
  delivery: Claimed,
  now: Date,
  outcome: { statusCode: number | null; excerpt: string | null; error: string | null; latencyMs: number },
): Promise<void> {
  const delivered = outcome.error === null;
  const attempts = delivery.attempts + 1;
  await ctx.db.transaction().execute(async (trx) => {
    // The endpoint may have been deleted meanwhile (its deliveries with it): nothing to record.
    const current = await trx
      .selectFrom("webhook_deliveries")
      .select(["id"])
      .where("id", "=", delivery.id)
      .forUpdate()
      .executeTakeFirst();
    if (!current) return;
    await trx
      .insertInto("webhook_attempts")
      .values({
        delivery_id: delivery.id,
        status_code: outcome.statusCode,
        latency_ms: outcome.latencyMs,
        response_excerpt: outcome.excerpt,
        error: outcome.error?.slice(0, 500) ?? null,
      })
      .execute();
    if (delivered) {
      await trx
        .updateTable("webhook_deliveries")
        .set({
          status: "DELIVERED",
          attempts,
          delivered_at: now,
          last_status_code: outcome.statusCode,
          last_error: null,
          updated_at: now,
        })
        .where("id", "=", delivery.id)
        .execute();
      await trx
        .updateTable("webhook_endpoints")
        .set({ failing_since: null })
        .where("id", "=", delivery.endpoint_id)
        .where("failing_since", "is not", null)
        .execute();
      return;
    }
    const next = new Date(now.getTime() + retryDelayMs(ctx.config, attempts));
    const givingUp = next.getTime() > delivery.give_up_at.getTime();
    await trx
      .updateTable("webhook_deliveries")
      .set({
        status: givingUp ? "FAILED" : "PENDING",
        attempts,
        next_attempt_at: givingUp ? now : next,
        last_status_code: outcome.statusCode,
        last_error: outcome.error?.slice(0, 500) ?? null,
        updated_at: now,
      })
      .where("id", "=", delivery.id)
      .execute();
    const endpoint = await trx
      .updateTable("webhook_endpoints")
      .set({ failing_since: sql<Date>`coalesce(failing_since, ${now}::timestamptz)` })
      .where("id", "=", delivery.endpoint_id)
      .returning(["id", "owner_id", "url", "enabled", "failing_since"])
      .executeTakeFirst();
    if (!endpoint?.enabled || !endpoint.failing_since) return;
    const failingMs = now.getTime() - endpoint.failing_since.getTime();
    if (failingMs < ctx.config.webhookRetry.failingHoursToDisable * 3600_000) return;
    // A day of nothing but failures: stop sending, and tell the owner (its other endpoints and its notifications).
    const reason =
      `every delivery failed for ${ctx.config.webhookRetry.failingHoursToDisable} hours (last: ${outcome.error})`.slice(
        0,
        500,
      );
    await trx
      .updateTable("webhook_endpoints")
      .set({ enabled: false, disabled_reason: reason, disabled_at: now, updated_at: now })
      .where("id", "=", endpoint.id)
      .execute();
    await publishEvent(trx, {
      type: "webhook.disabled",
      to: [endpoint.owner_id],
      data: { endpointId: endpoint.id, url: endpoint.url, reason },
    });
  });
}
