import type { BudgetState } from "./rate-limit";

/**
 * The rate budget a request was counted against, in the header fields of the IETF HTTPAPI draft
 * "RateLimit header fields for HTTP" (draft-ietf-httpapi-ratelimit-headers-10): structured fields
 * (RFC 9651) whose item is the policy's name as a String.
 *
 *   RateLimit-Policy: "read";q=120;w=60     the policy: quota q requests per window of w seconds
 *   RateLimit: "read";r=117;t=42            now: r requests left, the window resets in t seconds
 *
 * Every answer to a request that was counted carries them (successes, errors, and the 429, whose t
 * is its Retry-After). The partition key (pk) is left out: it would echo the caller's identity.
 * A request counts against two budgets, its own (public-read, read or write) and its address's
 * (address); the answer names the one closer to refusing (nearestToRefusal), as one Item.
 */
export function rateLimitHeaders(state: BudgetState): Record<string, string> {
  const name = JSON.stringify(state.policy);
  return {
    "ratelimit-policy": `${name};q=${state.limit};w=${state.windowSeconds}`,
    ratelimit: `${name};r=${state.remaining};t=${state.resetSeconds}`,
  };
}

/** The policy names, by budget: what RateLimit-Policy calls each one. */
export const RATE_POLICY_NAMES = {
  publicRead: "public-read",
  read: "read",
  write: "write",
  address: "address",
} as const;

/**
 * Of the budgets a request was counted against (its credential's or network's, and its address's),
 * the one its answer names: the one with fewer requests left, which is the one that refuses first.
 */
export function nearestToRefusal(a: BudgetState, b: BudgetState): BudgetState {
  return b.remaining < a.remaining ? b : a;
}
