import "server-only";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import pino from "pino";
import { PAGE_PATH_HEADER } from "@/lib/net/client-address.mjs";
import { ApiContractError, ApiError, ApiNetworkError, settle as settleCall } from "./errors";
import { tryAgainDigest } from "./try-again";

// The one way a page loads data through lib/api (docs/conventions.md, "Loading a page's data"):
//
//   const job = await found(api.getJob({ params: { id } }));         // the thing the URL names
//   const thread = await foundOrNull(api.getThread({ params: ... }));  // a thing that may be gone
//   const chain = await needed(api.getChain({}));                      // a read the page cannot do without
//   const unread = await optional(api.getUnreadNotificationCount({}));  // a detail the page can lack
//
// A thing that does not exist is a 404 page; a service that cannot answer now (503, 429, the
// network) is a "try again" page with the wait it gave (Retry-After); anything else is the error
// page. Every failed call is logged here, once, with the API route and the page's path.

/** The dashboard's log: pino, one JSON object per line on stdout, like the service's. */
const log = pino(
  { level: process.env.LOG_LEVEL || "info", base: { service: "agent-work-marketplace", part: "dashboard" } },
  process.stdout,
);

/** The service cannot answer now; asking again later may work. Its digest carries the wait (lib/api/try-again.ts). */
export class ServiceUnavailableError extends Error {
  readonly digest: string;
  constructor(
    readonly retryAfterSeconds: number | null,
    cause: unknown,
  ) {
    super("the service cannot answer now; try again", { cause });
    this.name = "ServiceUnavailableError";
    this.digest = tryAgainDigest(retryAfterSeconds);
  }
}

/** A rate limit, the service or a proxy failing, or no answer at all: worth another try later. */
export function isOutage(error: unknown): boolean {
  if (error instanceof ApiNetworkError) return true;
  return (
    error instanceof ApiError &&
    (error.status === 429 || error.status === 502 || error.status === 503 || error.status === 504)
  );
}

/** A thing that does not exist for this visitor, or an id that cannot name one (400 on a malformed id). */
const isMissing = (error: unknown) => error instanceof ApiError && (error.status === 404 || error.status === 400);

async function logFailure(error: unknown, outcome: "not-found" | "try-again" | "error" | "left-out" | "shown") {
  let page: string | null = null;
  try {
    page = (await headers()).get(PAGE_PATH_HEADER);
  } catch {
    // Outside a request (a build-time render): no page path to add.
  }
  const fields =
    error instanceof ApiError
      ? {
          api: error.route,
          status: error.status,
          code: error.code,
          retryAfter: error.retryAfterSeconds,
          reason: error.message,
        }
      : error instanceof ApiNetworkError || error instanceof ApiContractError
        ? { reason: error.message }
        : { err: error instanceof Error ? error : new Error(String(error)) };
  const line = { page, outcome, ...fields };
  if (outcome === "error" || (outcome === "shown" && isOutage(error)))
    log.error(line, "a page's call to the service failed");
  else log.warn(line, "a page's call to the service failed");
}

/** Turns a failure into the page's answer: a "try again" page for an outage, else the error as thrown. */
function unavailableOrSame(error: unknown): unknown {
  if (!isOutage(error)) return error;
  return new ServiceUnavailableError(error instanceof ApiError ? error.retryAfterSeconds : null, error);
}

/** The thing this page is about: a 404 page when it does not exist, "try again" when the service cannot answer. */
export async function found<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (isMissing(error)) {
      await logFailure(error, "not-found");
      notFound();
    }
    await logFailure(error, isOutage(error) ? "try-again" : "error");
    throw unavailableOrSame(error);
  }
}

/** A read the page cannot do without that names nothing in the URL (the chain's settings): "try again" when the service cannot answer, else the error page. */
export async function needed<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    await logFailure(error, isOutage(error) ? "try-again" : "error");
    throw unavailableOrSame(error);
  }
}

/**
 * A thing the page shows when this visitor may see it (a linked thread, a quoted reply, what the
 * visitor is to a thread): null when it does not exist, is not theirs to see, or their session is no
 * longer known (401); "try again" when the service cannot answer.
 */
export async function foundOrNull<T>(call: Promise<T>): Promise<T | null> {
  try {
    return await call;
  } catch (error) {
    if (isMissing(error) || (error instanceof ApiError && (error.status === 401 || error.status === 403))) {
      await logFailure(error, "left-out");
      return null;
    }
    await logFailure(error, isOutage(error) ? "try-again" : "error");
    throw unavailableOrSame(error);
  }
}

/**
 * A detail the page is whole without (an explorer link, the header's unread count): null on any
 * failure, logged. Never for what the page is about: a visitor must not read "none" where the
 * truth is "could not be asked".
 */
export async function optional<T>(call: Promise<T>): Promise<T | null> {
  try {
    return await call;
  } catch (error) {
    await logFailure(error, "left-out");
    return null;
  }
}

/**
 * A refusal the page explains in place (the bids the service would not show, with
 * `<Alert error={…}>`): the result, or the ApiError; anything else is thrown on. Logged like every
 * other failed call.
 */
export async function settle<T>(call: Promise<T>): ReturnType<typeof settleCall<T>> {
  const settled = await settleCall(call);
  if (settled.error) await logFailure(settled.error, "shown");
  return settled;
}
