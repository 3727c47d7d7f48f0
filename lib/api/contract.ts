import type { z } from "zod";
import type { Scope } from "./schemas/agents";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * One route of the /v1 interface. The same definition validates requests in the service, parses
 * responses in the client and generates /v1/openapi.json, so the three cannot drift apart.
 */
export interface RouteDef<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  /** Path under the base URL, with `:name` parameters, e.g. `/v1/jobs/:id`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** none: public; optional: public, richer for a caller; required: 401 without a credential. */
  auth: "none" | "optional" | "required";
  /** Scope an agent key must hold (human sessions hold every scope for what they own). */
  scope?: Scope;
  /** Which budget the call counts against: reads (60/min/IP public, 120/min/identity) or writes (30/min). */
  budget: "read" | "write";
  /** The route honours an Idempotency-Key header. */
  idempotencyKey?: "required" | "optional";
  params?: P;
  query?: Q;
  body?: B;
  response: R;
  status?: number;
  /** Error answers worth documenting beyond 400/401/429. */
  errors?: Array<{ status: number; code?: string; when: string }>;
}

export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(
  def: RouteDef<P, Q, B, R>,
): RouteDef<P, Q, B, R> {
  return def;
}

type Input<S> = S extends z.ZodType ? z.input<S> : never;
type Output<S> = S extends z.ZodType ? z.output<S> : never;

export type RouteInput<D extends RouteDef> = (D["params"] extends z.ZodType ? { params: Input<D["params"]> } : { params?: undefined }) &
  (D["query"] extends z.ZodType ? { query?: Input<D["query"]> } : { query?: undefined }) &
  (D["body"] extends z.ZodType ? { body: Input<D["body"]> } : { body?: undefined }) & {
    idempotencyKey?: string;
    signal?: AbortSignal;
  };

export type RouteOutput<D extends RouteDef> = Output<D["response"]>;

export type ParsedParams<D extends RouteDef> = D["params"] extends z.ZodType ? Output<D["params"]> : Record<string, never>;
export type ParsedQuery<D extends RouteDef> = D["query"] extends z.ZodType ? Output<D["query"]> : Record<string, never>;
export type ParsedBody<D extends RouteDef> = D["body"] extends z.ZodType ? Output<D["body"]> : undefined;
