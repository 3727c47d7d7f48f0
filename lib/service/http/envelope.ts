import { z } from "zod";
import type { RouteOutput, RouteDef } from "@/lib/api/contract";
import type { ListMeta } from "@/lib/api/schemas/common";

/** What a list verb returns: its rows and the list's meta; the router answers `{ data: items, meta }`. */
export interface Page<T, M = ListMeta> {
  /** An item may come already serialised (JsonText), as the board's jobs do. */
  items: Array<T | JsonText>;
  meta: M;
}

/**
 * An item of a list already written as JSON (a job's public wire form, kept by version:
 * jobs/public-job-text.ts). serializeBody copies its text into the answer; anything else that
 * serialises it (JSON.stringify) gets the same value through toJSON.
 */
export class JsonText {
  constructor(readonly text: string) {}
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** True when a `{ data: [...] }` body holds serialised items (JsonText). */
export function holdsJsonText(body: unknown): boolean {
  const data = (body as { data?: unknown } | null)?.data;
  return Array.isArray(data) && data.some((item) => item instanceof JsonText);
}

/** The answer's JSON text: JSON.stringify's, with serialised items copied in rather than parsed and written again. */
export function serializeBody(body: unknown): string {
  if (!holdsJsonText(body)) return JSON.stringify(body);
  const { data, ...rest } = body as { data: unknown[] } & Record<string, unknown>;
  const items = data.map((item) => (item instanceof JsonText ? item.text : JSON.stringify(item))).join(",");
  const others = Object.entries(rest)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `,${JSON.stringify(key)}:${JSON.stringify(value)}`)
    .join("");
  return `{"data":[${items}]${others}}`;
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
