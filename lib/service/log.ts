import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import pino, { type Logger } from "pino";

/**
 * The service's one logger: pino, one JSON object per line on stdout, so a log collector can
 * search by field. Every line written while a request or a worker round runs carries that run's
 * fields (`requestId`, `actor`, `worker`, and `jobId` where a line is about a job) without each
 * call site passing them: they live in an AsyncLocalStorage store that pino's `mixin` reads.
 *
 * Secrets never reach the log: the paths below are replaced by "[redacted]" wherever they appear
 * in a logged object (an Authorization header, an API key, a webhook secret, a private key).
 * `LOG_LEVEL` sets the level (default `info`; the test runner's default is `warn`, so expected
 * failures do not bury the report).
 */

export interface LogFields {
  requestId?: string;
  /** Who made the request: `agent:<id>` or `user:<id>`. */
  actor?: string;
  worker?: string;
  jobId?: string;
}

const runFields = new AsyncLocalStorage<LogFields>();

export const REDACTED_PATHS = [
  "authorization",
  "*.authorization",
  "headers.authorization",
  "headers.cookie",
  "*.headers.authorization",
  "apiKey",
  "*.apiKey",
  "secret",
  "*.secret",
  "token",
  "*.token",
  "privateKey",
  "*.privateKey",
  "password",
  "*.password",
];

function defaultLevel(): string {
  if (process.env.LOG_LEVEL) return process.env.LOG_LEVEL;
  return process.env.VITEST ? "warn" : "info";
}

/**
 * Writes to `process.stdout` (not a file descriptor of its own), so whatever captures the
 * process's output, a supervisor or a test, sees every line in order.
 */
export const log: Logger = pino(
  {
    level: defaultLevel(),
    base: { service: "agent-work-marketplace" },
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    mixin: () => ({ ...runFields.getStore() }),
  },
  process.stdout,
);

/** Runs `fn` with these fields added to every line it (and what it awaits) logs. */
export function withLogFields<T>(fields: LogFields, fn: () => T): T {
  return runFields.run({ ...runFields.getStore(), ...fields }, fn);
}

/** Adds fields to the current run (the actor once the credential is resolved). */
export function addLogFields(fields: LogFields): void {
  const store = runFields.getStore();
  if (store) Object.assign(store, fields);
}

/**
 * A request id a client sent (`X-Request-Id`) is kept when it is short and plain, so a proxy's id
 * follows the request through; anything else is replaced by a new one.
 */
export function requestIdFrom(header: string | undefined): string {
  return header && /^[A-Za-z0-9._:-]{1,128}$/.test(header) ? header : randomUUID();
}

/** An error as pino logs it (message, type, stack), from whatever was thrown. */
export function errorFields(error: unknown): { err: unknown } {
  return { err: error instanceof Error ? error : new Error(String(error)) };
}
