/** A page's search params as Next passes them: a key may repeat (an array) or be absent. */
export type SearchParams = Record<string, string | string[] | undefined>;

/** The first value of a search param, or undefined when it is absent or empty. */
export const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v) || undefined;

/** The first value of a search param when it is one of `allowed`, else undefined (a hand-edited URL). */
export function oneOf<const T extends readonly string[]>(
  v: string | string[] | undefined,
  allowed: T,
): T[number] | undefined {
  const value = one(v);
  return value !== undefined && (allowed as readonly string[]).includes(value) ? value : undefined;
}
