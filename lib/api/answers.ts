import type { ApiClient } from "@/lib/api/client";
import type { ApiError } from "@/lib/api/errors";

/** What a client method answers (its envelope), by the method's name. */
export type Answer<K extends keyof ApiClient> = ApiClient[K] extends (...args: never[]) => Promise<infer R> ? R : never;

/** A call as `settle` hands it back: the answer, or the service's refusal. */
export type Settled<T> = { result: T; error: null } | { result: null; error: ApiError };
