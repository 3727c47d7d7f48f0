// How a page tells its error boundary that the service is unavailable for now (a 503, a 429, the
// network) and for how long. In production, Next hands an error boundary only the error's `digest`
// (the message stays on the server), and keeps a digest the thrown error already carries, as it
// does for notFound(): so the verdict and the wait travel in the digest, which is safe to show.

const PREFIX = "AWM_TRY_AGAIN";

/** The digest of a "try again" error: the prefix and the seconds to wait (empty when unknown). */
export function tryAgainDigest(retryAfterSeconds: number | null): string {
  return `${PREFIX};${retryAfterSeconds === null ? "" : Math.ceil(retryAfterSeconds)}`;
}

/** From an error boundary's digest: null when it is not a "try again", else the wait in seconds (null when unknown). */
export function tryAgainFromDigest(digest: string | undefined): { retryAfterSeconds: number | null } | null {
  if (!digest?.startsWith(`${PREFIX};`)) return null;
  const seconds = Number.parseInt(digest.slice(PREFIX.length + 1), 10);
  return { retryAfterSeconds: Number.isFinite(seconds) && seconds >= 0 ? seconds : null };
}
