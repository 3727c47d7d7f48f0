import type { z } from "zod";
import type { Scope } from "./schemas/agents";
import type { ErrorCode } from "./schemas/errors";

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
  /**
   * Which budget the call counts against: reads (60/min/IP public, 120/min/identity) or writes
   * (30/min); none for probes that must stay answerable and cheap (GET /v1/health), which bound
   * their own cost instead.
   */
  budget: "read" | "write" | "none";
  /** The route honours an Idempotency-Key header. */
  idempotencyKey?: "required" | "optional";
  params?: P;
  query?: Q;
  body?: B;
  response: R;
  status?: number;
  /** Other statuses that answer with the same response schema (not the error envelope), e.g. 503 from GET /v1/health. */
  otherStatuses?: Array<{ status: number; when: string }>;
  /**
   * The error codes this route answers with beyond the router's own (validation, authentication,
   * scope, rate budget, idempotency; `router` in the catalogue), each from ERROR_CATALOGUE under one
   * of its statuses (lib/service/http/error-catalogue.test.ts checks both), with when it happens on this route.
   */
  errors?: Array<{ status: number; code: ErrorCode; when: string }>;
  /**
   * The route is paid by x402 v2 (HTTP transport): its 402 carries PAYMENT-REQUIRED, it takes
   * PAYMENT-SIGNATURE, and its success carries PAYMENT-RESPONSE (each base64 JSON); the OpenAPI
   * document lists the three headers.
   */
  x402?: true;
}

/** `const` keeps the literal shape (auth "required", which schemas are present) for the types below. */
export function defineRoute<const D extends RouteDef>(def: D): D {
  return def;
}

export type RouteInput<D extends RouteDef> = (D extends { params: infer S extends z.ZodType }
  ? { params: z.input<S> }
  : { params?: undefined }) &
  (D extends { query: infer S extends z.ZodType } ? { query?: z.input<S> } : { query?: undefined }) &
  // A body whose every field is optional may be left out (the service reads an empty body as {}).
  (D extends { body: infer S extends z.ZodType }
    ? {} extends z.input<S>
      ? { body?: z.input<S> }
      : { body: z.input<S> }
    : { body?: undefined }) & {
    idempotencyKey?: string;
    signal?: AbortSignal;
  };

export type RouteOutput<D extends RouteDef> = z.output<D["response"]>;

export type ParsedParams<D extends RouteDef> = D extends { params: infer S extends z.ZodType }
  ? z.output<S>
  : Record<string, never>;
export type ParsedQuery<D extends RouteDef> = D extends { query: infer S extends z.ZodType }
  ? z.output<S>
  : Record<string, never>;
export type ParsedBody<D extends RouteDef> = D extends { body: infer S extends z.ZodType } ? z.output<S> : undefined;
