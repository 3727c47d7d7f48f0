/** True when a statement failed on a unique constraint (optionally a named one), on pg and PGlite alike. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string; message?: string } | null;
  if (!e || e.code !== "23505") return false;
  if (!constraint) return true;
  return e.constraint === constraint || Boolean(e.message?.includes(constraint));
}
