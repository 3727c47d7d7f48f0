import type { RouteDef, RouteInput, RouteOutput } from "./contract";
import { ApiContractError, ApiError, ApiNetworkError } from "./errors";
import { routes, type Routes } from "./routes";
import { ApiErrorBody } from "./schemas/errors";

export interface ApiClientOptions {
  /** Origin of the service, e.g. http://127.0.0.1:3000 (routes carry their /v1 prefix). */
  baseUrl: string;
  /** An agent API key or a human session token, sent as a Bearer credential. */
  token?: string;
  fetch?: typeof fetch;
  /**
   * Attempts for a retryable request (429, 5xx, network failure): a read, or a write to a route that
   * honours an Idempotency-Key (`route.idempotencyKey`) sent with one.
   */
  maxAttempts?: number;
  /** Base delay of the exponential backoff. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the error goes to the caller (an hourly limit, say). */
  maxRetryAfterMs?: number;
  headers?: Record<string, string>;
  /**
   * "auto": a write to a route that honours an Idempotency-Key gets a fresh one when the caller gave
   * none, so that it too can be retried safely (the SDK's default). "manual" (the app's): only the
   * caller's keys are sent.
   */
  idempotencyKeys?: "auto" | "manual";
  /** Called before each retry; tests and logs use it. */
  onRetry?: (info: { attempt: number; delayMs: number; status: number | null }) => void;
}

/** A rate limit, or the service (or a proxy in front of it) failing: worth another try later. 501 and 505 never change. */
const isRetryableStatus = (status: number) => status === 429 || (status >= 500 && status !== 501 && status !== 505);

function buildUrl(
  baseUrl: string,
  route: RouteDef,
  params: Record<string, unknown> | undefined,
  query: Record<string, unknown> | undefined,
) {
  const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null) throw new TypeError(`missing path parameter ${name} for ${route.path}`);
    return encodeURIComponent(String(value));
  });
  const url = new URL(path, baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    url.searchParams.set(key, Array.isArray(value) ? value.join(",") : String(value));
  }
  return url;
}

/** Seconds from a Retry-After header (delta seconds or an HTTP date). */
export function parseRetryAfter(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
}

/** Exponential backoff with full jitter: a random delay in [0, min(max, base * 2^attempt)]. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  return Math.floor(random() * Math.min(maxMs, baseMs * 2 ** attempt));
}

/** The envelope's code, read from a copy so the answer can still be read (or cancelled) after. */
async function peekCode(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.clone().json()) as { code?: unknown } | null;
    return typeof body?.code === "string" ? body.code : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

type Methods = { [K in keyof Routes]: (input: RouteInput<Routes[K]>) => Promise<RouteOutput<Routes[K]>> };

type ListRoute = RouteDef & { method: "GET" };
type ItemOf<D extends RouteDef> = RouteOutput<D> extends { data: Array<infer T> } ? T : never;

export type ApiClient = Methods & {
  call<D extends RouteDef>(route: D, input: RouteInput<D>): Promise<RouteOutput<D>>;
  /** Every item of a list: follows nextCursor with the same filters and drops repeated ids. */
  paginate<D extends ListRoute>(route: D, input: RouteInput<D>): AsyncGenerator<ItemOf<D>>;
  withToken(token: string | undefined): ApiClient;
};

export function createApiClient(options: ApiClientOptions): ApiClient {
  const fetchImpl = options.fetch ?? fetch;
  const maxAttempts = options.maxAttempts ?? 4;
  const baseDelayMs = options.baseDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 8000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 15_000;

  async function call<D extends RouteDef>(route: D, input: RouteInput<D>): Promise<RouteOutput<D>> {
    const {
      params,
      query,
      body,
      idempotencyKey: givenKey,
      signal,
    } = (input ?? {}) as {
      params?: Record<string, unknown>;
      query?: Record<string, unknown>;
      body?: unknown;
      idempotencyKey?: string;
      signal?: AbortSignal;
    };
    const url = buildUrl(options.baseUrl, route, params, query);
    const headers: Record<string, string> = { accept: "application/json", ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const idempotencyKey =
      givenKey ??
      (route.idempotencyKey && options.idempotencyKeys === "auto" && route.method !== "GET"
        ? `awm-${crypto.randomUUID()}`
        : undefined);
    if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
    // Reads are always safe to repeat; a write only when an idempotency key makes it so, and the
    // service honours keys only on the routes that declare them (lib/service/router.ts): a key sent
    // to any other route is ignored there, and a retry would repeat the write.
    const retryable = route.method === "GET" || Boolean(idempotencyKey && route.idempotencyKey);

    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetchImpl(url, {
          method: route.method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal,
          cache: "no-store",
        });
      } catch (error) {
        if (signal?.aborted) throw error;
        if (!retryable || attempt + 1 >= maxAttempts) {
          throw new ApiNetworkError(`${route.method} ${url.pathname} failed: ${(error as Error).message}`, error);
        }
        const delayMs = backoffDelay(attempt, baseDelayMs, maxDelayMs);
        options.onRetry?.({ attempt: attempt + 1, delayMs, status: null });
        await sleep(delayMs, signal);
        continue;
      }

      if (response.ok) {
        const json = response.status === 204 ? {} : await response.json();
        const parsed = route.response.safeParse(json);
        if (!parsed.success) {
          throw new ApiContractError(
            `${route.method} ${route.path}: response does not match the contract`,
            parsed.error.issues,
          );
        }
        return parsed.data as RouteOutput<D>;
      }

      const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
      const waitable = retryAfter === null || retryAfter * 1000 <= maxRetryAfterMs;
      // The first request with this key is still running on the service: its answer will be stored, ask again shortly.
      const inProgress =
        response.status === 409 && Boolean(idempotencyKey) && (await peekCode(response)) === "IDEMPOTENCY_IN_PROGRESS";
      if (retryable && waitable && (isRetryableStatus(response.status) || inProgress) && attempt + 1 < maxAttempts) {
        // Honour the server's Retry-After; otherwise back off with jitter.
        const delayMs =
          retryAfter !== null
            ? retryAfter * 1000 + backoffDelay(0, 100, 100)
            : backoffDelay(attempt, baseDelayMs, maxDelayMs);
        options.onRetry?.({ attempt: attempt + 1, delayMs, status: response.status });
        await response.body?.cancel();
        await sleep(delayMs, signal);
        continue;
      }

      const text = await response.text();
      let envelope: ApiErrorBody;
      try {
        envelope = ApiErrorBody.parse(JSON.parse(text));
      } catch {
        envelope = {
          statusCode: response.status,
          error: response.statusText || "Error",
          message: text.slice(0, 500) || response.statusText,
        };
      }
      throw new ApiError(response.status, envelope, retryAfter, `${route.method} ${route.path}`);
    }
  }

  async function* paginate<D extends ListRoute>(route: D, input: RouteInput<D>): AsyncGenerator<ItemOf<D>> {
    const seen = new Set<string>();
    let cursor: string | undefined = (input as { query?: { cursor?: string } }).query?.cursor;
    for (;;) {
      const query = { ...((input as { query?: object }).query ?? {}), ...(cursor ? { cursor } : {}) };
      const page = (await call(route, { ...input, query } as RouteInput<D>)) as unknown as {
        data: Array<{ id: string }>;
        meta: { nextCursor: string | null };
      };
      for (const item of page.data) {
        if (seen.has(item.id)) continue;
        seen.add(item.id);
        yield item as ItemOf<D>;
      }
      if (!page.meta.nextCursor) return;
      cursor = page.meta.nextCursor;
    }
  }

  const methods = Object.fromEntries(
    Object.entries(routes).map(([name, route]) => [
      name,
      (input: unknown) => call(route as RouteDef, (input ?? {}) as never),
    ]),
  ) as Methods;

  return {
    ...methods,
    call,
    paginate,
    withToken: (token) => createApiClient({ ...options, token }),
  };
}
