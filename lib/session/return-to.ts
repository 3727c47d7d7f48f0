/** Only paths of this site: an open redirect would let a link send people elsewhere after sign-in. */
export function safeReturnTo(value: string | undefined | null): string {
  return value && value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\") ? value : "/jobs";
}
