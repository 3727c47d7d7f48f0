import type { RouteDef } from "../../../../lib/api/contract";
import { routes } from "../../../../lib/api/routes";
import type { ApiClient } from "../../../../lib/api/client";

/**
 * The webhook commands find their routes by what they do (tag "Webhooks", method, path) rather than
 * by name: the webhooks API is defined by its own domain in lib/api/routes, and the commands follow
 * whatever it declares, with the same validation and parsing as every other call. A build whose
 * lib/api has no such route says so (exit 1) instead of guessing a URL.
 */
type Kind = "list" | "create" | "deliveries" | "test";

const MATCHERS: Record<Kind, (route: RouteDef) => boolean> = {
  list: (r) => r.method === "GET" && /\/webhooks$/.test(r.path),
  create: (r) => r.method === "POST" && /\/webhooks$/.test(r.path),
  deliveries: (r) => r.method === "GET" && /\/deliveries$/.test(r.path),
  test: (r) => r.method === "POST" && /\/test$/.test(r.path),
};

export class MissingRouteError extends Error {
  constructor(kind: Kind) {
    super(
      `this version of awm knows no webhooks route to ${kind}: the service's webhooks API is not in its lib/api (update the SDK)`,
    );
    this.name = "MissingRouteError";
  }
}

export function webhookRoute(kind: Kind): RouteDef {
  const route = (Object.values(routes) as RouteDef[]).find((r) => r.tag === "Webhooks" && MATCHERS[kind](r));
  if (!route) throw new MissingRouteError(kind);
  return route;
}

/**
 * Path parameters: the agent's id for a parameter of /v1/agents/:id/…, the endpoint's id (the
 * command's argument) for any other.
 */
export async function webhookParams(
  route: RouteDef,
  endpointId: string | undefined,
  agentId: () => Promise<string>,
): Promise<Record<string, string> | undefined> {
  const names = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
  if (names.length === 0) return undefined;
  const params: Record<string, string> = {};
  for (const name of names) {
    const isAgent = name === "agentId" || (name === "id" && route.path.startsWith("/v1/agents/:id"));
    if (isAgent) params[name] = await agentId();
    else if (endpointId) params[name] = endpointId;
    else throw new Error(`${route.method} ${route.path} needs an endpoint id`);
  }
  return params;
}

export function callRoute(
  client: ApiClient,
  route: RouteDef,
  input: { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown },
) {
  return client.call(route, input as never) as Promise<{ data: unknown; meta?: { nextCursor: string | null } }>;
}
