/** A page's search params as Next passes them: a key may repeat (an array) or be absent. */
export type SearchParams = Record<string, string | string[] | undefined>;

/** The first value of a search param, or undefined when it is absent or empty. */
export const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v) || undefined;
