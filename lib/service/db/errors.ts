import { BaseError } from "viem";
import { isStalePreparedStatement } from "./prepared-statements";

/** True when a statement failed on a unique constraint (optionally a named one), on pg and PGlite alike. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string; message?: string } | null;
  if (!e || e.code !== "23505") return false;
  if (!constraint) return true;
  return e.constraint === constraint || Boolean(e.message?.includes(constraint));
}

// Errors that say the database could not be reached or did not answer in time, as opposed to a
// statement it refused: node's socket errors, pg's own timeouts and lost connections, and the
// server's classes 08 (connection exception), 57P0x (shutting down, failing over) and 53300 (too
// many connections), plus 57014 (a statement or lock cancelled by statement_timeout).
const UNAVAILABLE_SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
const UNAVAILABLE_MESSAGES = [
  "Query read timeout",
  "timeout exceeded when trying to connect",
  "Connection terminated",
  "Client has encountered a connection error and is not queryable",
  "Client was closed and is not queryable",
  "Connection terminated due to connection timeout",
  "terminating connection",
];

/** True when the database is unavailable (not when it answered with an error about the statement). */
export function isDatabaseUnavailable(error: unknown): boolean {
  // A chain call's socket error is the RPC's, not the database's (lib/chain/escrow/errors.ts, isChainUnavailable).
  if (error instanceof BaseError) return false;
  for (
    let e = error as { code?: unknown; message?: unknown; cause?: unknown } | null, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    const code = typeof e.code === "string" ? e.code : "";
    if (
      UNAVAILABLE_SOCKET_CODES.has(code) ||
      code.startsWith("08") ||
      code === "57P01" ||
      code === "57P02" ||
      code === "57P03" ||
      code === "53300" ||
      code === "57014"
    )
      return true;
    // Its connection was dropped (prepared-statements.ts): the same request on a fresh one succeeds.
    if (isStalePreparedStatement(e)) return true;
    const message = typeof e.message === "string" ? e.message : "";
    if (UNAVAILABLE_MESSAGES.some((m) => message.startsWith(m))) return true;
    if (e instanceof AggregateError && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
  }
  return false;
}
