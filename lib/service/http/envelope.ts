import { z } from "zod";
import type { RouteOutput, RouteDef } from "@/lib/api/contract";
import type { ListMeta } from "@/lib/api/schemas/common";

/** What a list verb returns: its rows and the list's meta; the router answers `{ data: items, meta }`. */
export interface Page<T, M = ListMeta> {
  items: T[];
  meta: M;
}

/**
 * How a route's answer is built from what its handler returns, read from its response schema:
 * `{ data }` wraps a value, `{ data, meta }` a page, and any other answer (a stream, a document
 * with its own shape) is returned whole.
 */
export type EnvelopeKind = "data" | "page" | "whole";

export function envelopeKindOf(response: z.ZodType): EnvelopeKind {
  if (!(response instanceof z.ZodObject)) return "whole";
  const keys = Object.keys(response.shape).sort().join(",");
  if (keys === "data") return "data";
  if (keys === "data,meta") return "page";
  return "whole";
}

/** The answer's body for what the handler returned (a Response is its own answer, never wrapped). */
export function wrapOutput(kind: EnvelopeKind, output: unknown): unknown {
  if (kind === "whole" || output instanceof Response) return output;
  if (kind === "data") return { data: output };
  const page = output as Page<unknown, unknown>;
  return { data: page.items, meta: page.meta };
}

/** The same rule at the type level, from the same schema: the value, the page, or the whole body. */
type Exactly<K, Expected> = [K] extends [Expected] ? ([Expected] extends [K] ? true : false) : false;

type ShapeKeysOf<S> = S extends z.ZodObject<infer Shape> ? keyof Shape : never;

export type HandlerOutput<D extends RouteDef> =
  Exactly<ShapeKeysOf<D["response"]>, "data"> extends true
    ? RouteOutput<D> extends { data: infer T }
      ? T
      : never
    : Exactly<ShapeKeysOf<D["response"]>, "data" | "meta"> extends true
      ? RouteOutput<D> extends { data: Array<infer T>; meta: infer M }
        ? Page<T, M>
        : never
      : RouteOutput<D>;
