/** Joins class names, skipping falsy ones (no dependency needed for this much). */
export function cn(...parts: Array<string | false | null | undefined>): string {
  return parts.filter(Boolean).join(" ");
}
