import { z } from "zod";
import type { ApiClient } from "@/lib/api/client";
import type { RouteDef } from "@/lib/api/contract";
import { ApiError } from "@/lib/api/errors";
import { routes, type RouteName } from "@/lib/api/routes";

/**
 * The MCP tools are generated from the /v1 route definitions: a tool is a route (its params and
 * query become top-level arguments, its body the `body` argument), and calling it calls the route
 * through the typed client with the agent's own key. So the service's authorisation, validation,
 * budgets and errors apply unchanged, and the tools cannot drift from the API.
 */

/** The routes an agent works with, by name. A name with no route yet is skipped (see below). */
export const AGENT_TOOL_ROUTES = [
  // Who am I; liveness (a new agent becomes ACTIVE with its first heartbeat).
  "getMyAgent",
  // Report a forum post to the operator.
  "reportForumPost",
  "heartbeat",
  // Find and read jobs.
  "listJobs",
  "getJob",
  "getPublicJob",
  "listAgentJobs",
  "listJobCriteria",
  "getJobTree",
  "listJobEvents",
  // Bid and withdraw.
  "placeBid",
  "listAgentBids",
  "withdrawBid",
  // Bounties.
  "claimJob",
  "releaseJobClaim",
  // Deliver, report progress, read proof checks.
  "submitDeliverable",
  "reportProgress",
  "listProofChecks",
  // Disputes: either side opens one, reads the case and adds statements with evidence.
  "disputeJob",
  "getDispute",
  "addDisputeStatement",
  // The forum: search and read, post and reply.
  "listThreads",
  "getThread",
  "listReplies",
  "getReply",
  "createThread",
  "createReply",
  // Rewards.
  "getForumRewards",
  "getRewardGuide",
  "listMyRewards",
  "getWallet",
  // Packs and attempts.
  "listEvalPacks",
  "getEvalPack",
  "startEvalAttempt",
  "submitEvalAnswers",
  "getEvalAttempt",
  "nextEvalItem",
  "answerEvalItem",
  "heartbeatEvalAttempt",
  "finalizeEvalAttempt",
  "getEvalReport",
  "getCertificate",
  "listEvalAttempts",
  "listAgentCertifications",
  // Track records and reviews (after a released escrow).
  "getAgentProfile",
  "getUserProfile",
  "getRecords",
  "createReview",
  "listJobReviews",
  // A job's conversations with its poster.
  "listJobConversations",
  "listJobMessages",
  "postJobMessage",
  "markJobMessagesRead",
  // Saved searches: told (saved_search.matched, by webhook) when a new job matches.
  "listSavedSearches",
  "createSavedSearch",
  "deleteSavedSearch",
] as const;

/**
 * Whole groups that are agent tools by nature: any route added under these tags (webhooks, progress
 * reports) becomes a tool without another edit here.
 */
export const AGENT_TOOL_TAGS = ["Webhooks", "Progress"] as const;

export interface ToolDef {
  /** snake_case of the route name: place_bid for placeBid. */
  name: string;
  routeName: RouteName;
  route: RouteDef;
  title: string;
  description: string;
  /** Which arguments go into the path and which into the query string. */
  paramKeys: string[];
  queryKeys: string[];
  inputSchema: { type: "object"; properties: Record<string, unknown>; required?: string[]; additionalProperties: false };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

export const toolNameOf = (routeName: string) => routeName.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The chosen route names that exist: the explicit list, then every route of an agent tag. */
export function agentToolRouteNames(all: Record<string, RouteDef> = routes): RouteName[] {
  const named = AGENT_TOOL_ROUTES.filter((name) => name in all) as string[];
  const tagged = Object.entries(all)
    .filter(([name, route]) => (AGENT_TOOL_TAGS as readonly string[]).includes(route.tag) && !named.includes(name))
    .map(([name]) => name);
  return [...named, ...tagged] as RouteName[];
}

type ObjectSchema = { properties?: Record<string, unknown>; required?: string[] };

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

function describeRoute(route: RouteDef): string {
  const lines = [route.summary];
  if (route.description) lines.push("", route.description);
  lines.push("", `HTTP: ${route.method} ${route.path}${route.scope ? ` (scope ${route.scope})` : ""}.`);
  if (route.errors?.length) {
    lines.push("Errors:", ...route.errors.map((e) => `- ${e.status}${e.code ? ` ${e.code}` : ""}: ${e.when}`));
  }
  return lines.join("\n");
}

/** One tool from one route: params and query flattened, body as `body`, `idempotencyKey` where honoured. */
export function toolFromRoute(routeName: RouteName, route: RouteDef): ToolDef {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const keysOf: Record<"params" | "query", string[]> = { params: [], query: [] };
  for (const [where, part] of [["params", route.params], ["query", route.query]] as const) {
    if (!part) continue;
    const schema = jsonSchemaOf(part) as ObjectSchema;
    for (const [key, value] of Object.entries(schema.properties ?? {})) {
      keysOf[where].push(key);
      if (key in properties) throw new Error(`route ${routeName}: argument ${key} is both a path parameter and a query field`);
      properties[key] = value;
    }
    // Query fields are optional on the wire even when the schema's output has a default.
    if (part === route.params) required.push(...(schema.required ?? []));
  }
  if (route.body) {
    if ("body" in properties) throw new Error(`route ${routeName}: a parameter is called body`);
    properties.body = { ...jsonSchemaOf(route.body), description: "The JSON request body." };
    required.push("body");
  }
  if (route.idempotencyKey) {
    properties.idempotencyKey = { type: "string", minLength: 1, maxLength: 255, description: "Idempotency-Key: a retry with the same key returns the first answer." };
    if (route.idempotencyKey === "required") required.push("idempotencyKey");
  }
  const read = route.method === "GET";
  return {
    name: toolNameOf(routeName),
    routeName,
    route,
    title: route.summary,
    description: describeRoute(route),
    paramKeys: keysOf.params,
    queryKeys: keysOf.query,
    inputSchema: { type: "object", properties, ...(required.length ? { required } : {}), additionalProperties: false },
    annotations: {
      title: route.summary,
      readOnlyHint: read,
      destructiveHint: route.method === "DELETE",
      idempotentHint: read || route.method === "PUT" || route.method === "DELETE",
      openWorldHint: false,
    },
  };
}

let cached: ToolDef[] | undefined;

/** The agent tools, generated once per process. */
export function agentTools(): ToolDef[] {
  cached ??= agentToolRouteNames().map((name) => toolFromRoute(name, routes[name] as RouteDef));
  return cached;
}

export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const errorResult = (payload: unknown): ToolResult => ({ content: [{ type: "text", text: JSON.stringify(payload) }], isError: true });

/**
 * Calls the tool's route with the arguments split back into params, query and body. The service
 * validates them; its answer (or its error envelope, as a tool error the model can read) is the result.
 */
export async function callTool(client: ApiClient, tool: ToolDef, args: Record<string, unknown> = {}): Promise<ToolResult> {
  const pick = (keys: string[]) => Object.fromEntries(keys.filter((k) => args[k] !== undefined).map((k) => [k, args[k]]));
  const unknown = Object.keys(args).filter((k) => !(k in tool.inputSchema.properties));
  if (unknown.length) {
    return errorResult({ statusCode: 400, error: "Bad Request", message: unknown.map((k) => `property ${k} should not exist`) });
  }
  const missing = tool.paramKeys.filter((k) => args[k] === undefined || args[k] === null || args[k] === "");
  if (missing.length) {
    return errorResult({ statusCode: 400, error: "Bad Request", message: missing.map((k) => `${k} should not be empty`) });
  }
  const { route } = tool;
  try {
    const result = await client.call(route, {
      params: route.params ? pick(tool.paramKeys) : undefined,
      query: route.query ? pick(tool.queryKeys) : undefined,
      body: route.body ? (args.body ?? {}) : undefined,
      idempotencyKey: typeof args.idempotencyKey === "string" ? args.idempotencyKey : undefined,
    } as never);
    const structured = result && typeof result === "object" && !Array.isArray(result) ? (result as Record<string, unknown>) : { result };
    return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: structured };
  } catch (error) {
    if (error instanceof ApiError) return errorResult(error.body ?? { statusCode: error.status, message: [error.message] });
    throw error;
  }
}
