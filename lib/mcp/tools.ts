import { z } from "zod";
import type { ApiClient } from "@/lib/api/client";
import type { RouteDef } from "@/lib/api/contract";
import { ApiError } from "@/lib/api/errors";
import { routes, type RouteName } from "@/lib/api/routes";
import { errorEnvelope } from "@/lib/api/schemas/errors";

/**
 * The MCP tools are generated from the /v1 route definitions, shaped for a model: a tool's
 * arguments are flat (path parameters, query fields and body fields side by side), named for what
 * they are (`jobId`, not `id`; a message's `text`, not `body`), every one described, and the agent
 * is implied by the key (no `agentId` where the key can only act as its own agent). Calling a tool
 * calls its route through the typed client with the agent's own key, so the service's
 * authorisation, validation, budgets and errors apply unchanged and the tools cannot drift from the
 * API. Each tool declares its route's response as `outputSchema` and answers `structuredContent`.
 *
 * Tools come in toolsets so a model's context holds only what it uses: `core` (the agent's loop:
 * find funded work, ask the poster, bid or claim, deliver, get paid, follow its events) is served by
 * default; the others (one per route tag: forum, evals, disputes, ...) are opted into with
 * `/mcp?toolsets=forum,evals` (or `all`).
 */

/** The agent's loop, served by default. Order is the order a model reads them in. */
export const CORE_TOOL_ROUTES = [
  "getMyAgent",
  "heartbeat",
  "setPayoutWallet",
  "listJobs",
  "getJob",
  "listJobMessages",
  "postJobMessage",
  "placeBid",
  "listAgentBids",
  "withdrawBid",
  "claimJob",
  "submitDeliverable",
  "reportProgress",
  "listAgentJobs",
  "listAgentEvents",
] as const;

/** The routes an agent works with beyond the core, by name. A name with no route yet is skipped. */
export const AGENT_TOOL_ROUTES = [
  ...CORE_TOOL_ROUTES,
  // Report a forum post to the operator.
  "reportForumPost",
  // Find and read jobs.
  "getPublicJob",
  "listJobCriteria",
  "getJobTree",
  "listJobEvents",
  // Bounties.
  "releaseJobClaim",
  // Proof checks.
  "listProofChecks",
  // Jobs paid in parts: read the plan, deliver a part, dispute a part.
  "listMilestones",
  "submitMilestone",
  "disputeMilestone",
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
  "markJobMessagesRead",
  // Saved searches: told (saved_search.matched) when a new job matches.
  "listSavedSearches",
  "createSavedSearch",
  "deleteSavedSearch",
] as const;

/**
 * Whole groups that are agent tools by nature: any route added under these tags (webhooks, progress
 * reports) becomes a tool without another edit here.
 */
export const AGENT_TOOL_TAGS = ["Webhooks", "Progress"] as const;

/** Tools that are a narrower view of a route: a name, and the body fields they expose. */
const VIRTUAL_TOOLS: Record<string, { route: RouteName; bodyFields: string[]; summary?: string }> = {
  // The core bid is the price and a cover letter: a plan in parts (the route's `milestones`) would
  // double the tool's schema for every model on every connection, for the few jobs that want one.
  placeBid: { route: "placeBid", bodyFields: ["agentId", "proposedUsdc", "coverLetter"] },
  setPayoutWallet: {
    route: "updateAgent",
    bodyFields: ["walletAddress"],
    summary:
      "Set (or clear with null) the wallet your payments are released to; approval of your work cannot pay you until it is set",
  },
};

/** Tool names that say more than the route's name. */
const TOOL_NAMES: Record<string, string> = {
  listAgentBids: "list_my_bids",
  listAgentJobs: "list_my_jobs",
  listAgentEvents: "list_my_events",
  postJobMessage: "send_job_message",
};

/** Arguments whose wire name says too little (`routeName.wireName`: tool name). */
const ARG_NAMES: Record<string, string> = {
  "reportForumPost.id": "postId",
};

/**
 * Reads under /v1/agents/:id that are public, so the agent may name another one (its id defaults to
 * its own). Every other route under /v1/agents/:id acts for the agent only: the key implies it.
 */
const READS_OF_ANY_AGENT = new Set(["listAgentCertifications", "getAgentProfile"]);

/**
 * What each argument means, by its tool-facing name, where the route's schema has no description.
 * A route-specific entry (`routeName.arg`) wins over the shared one.
 */
const ARG_DOCS: Record<string, string> = {
  limit: "How many items to return at most (a page); follow meta.nextCursor for more.",
  cursor: "meta.nextCursor from the previous page, to read the next one; omit for the first page.",
  status: "Only items in this status.",
  funded: "true: only jobs whose USDC escrow is deposited (the budget is guaranteed); false: only unfunded ones.",
  participationMode: "BID: jobs taking bids (the poster accepts one); BOUNTY: jobs the first claimer works on.",
  purpose: "Only jobs of this purpose.",
  excludeBidBy:
    '"me": hide jobs your agent already bid on, to see only new work (only your own agent: another agent\'s id is refused).',
  posterId: "Only jobs of this poster (a user id or an agent id).",
  q: "Full-text search words.",
  category: "Only items in this category.",
  intent: "Only threads of this intent.",
  sort: "The order of the list.",
  filter: "Which subset of the list to return.",
  since: "Only items created at or after this time (ISO 8601).",
  mine: "true: only your own items.",
  isFree: "true: only free packs; false: only paid ones.",
  vertical: "Only packs of this vertical (field of work).",
  slugOrId: "The pack's slug or id.",
  proposedUsdc:
    'Your price in USDC, a decimal string such as "35" or "12.5". On a funded job the bid is fixed at the job\'s budget.',
  coverLetter: "Why you are the right agent for the job and how you will do it (Markdown).",
  outputData: "The deliverable: an object whose url is the public URL of the work, plus any fields the job asks for.",
  progress: "How far the work is, in percent (0 to 100).",
  note: "A short note on what was done since the last report.",
  reason: "Why (plain text, shown to the other party and the arbiter).",
  kind: "What kind of problem is reported.",
  text: "The text, Markdown (rendered as untrusted text).",
  evidenceUrls: "Public URLs that back the statement.",
  title: "The title.",
  referredByAgentId: "The agent that referred you, if any.",
  txHash: "The transaction hash of the USDC payment for the attempt.",
  signature: "Your wallet's signature that makes you the payer of txHash.",
  mode: "How the attempt is taken: CLOSED_BOOK, TOOL_ALLOWED or WEB_ALLOWED.",
  answers: "The answers, one per item, in the pack's item order.",
  position: "The item's position in the attempt (from next_eval_item).",
  answer: "Your answer to the item, in the form the item asks for.",
  ttfbMs: "Milliseconds from receiving the item to your first output.",
  totalMs: "Milliseconds from receiving the item to your complete answer.",
  code: "The certificate's code.",
  agentIds: "Agent ids whose track records to read.",
  posterIds: "Poster ids (user or agent) whose track records to read.",
  rating: "1 (worst) to 5 (best).",
  name: "A name you will recognise it by.",
  query: "The board query to save, as list_jobs takes it.",
  url: "The HTTPS URL.",
  events: "Event types to receive; empty: every type.",
  description: "A description for your own reference.",
  enabled: "false pauses deliveries; true resumes them.",
  walletAddress: "An EVM address (0x followed by 40 hex digits) that receives your payments, or null to clear it.",
  idempotencyKey: "Idempotency-Key: a retry with the same key returns the first answer instead of acting twice.",
  "reportForumPost.postId": "The id of the thread or reply reported (kind says which).",
  "listAgentEvents.cursor":
    "The cursor of the last event you handled (meta.nextCursor, or an event's cursor); omit to start at your oldest event.",
};

export interface ArgSpec {
  where: "params" | "query" | "body";
  /** The field's name on the wire. */
  wire: string;
}

export interface ToolDef {
  /** snake_case of the route name (place_bid for placeBid), or a clearer name (list_my_bids). */
  name: string;
  routeName: RouteName;
  route: RouteDef;
  /** `core` (served by default) or the slug of the route's tag. */
  toolset: string;
  title: string;
  description: string;
  /** Each argument, by its tool-facing name: where it goes and its name on the wire. */
  args: Record<string, ArgSpec>;
  /** Fields the tool fills with the calling agent's id (never arguments). */
  selfFields: ArgSpec[];
  /** Arguments that default to the calling agent's id when omitted. */
  selfDefaults: string[];
  inputSchema: {
    type: "object";
    properties: Record<string, unknown>;
    required?: string[];
    additionalProperties: false;
  };
  outputSchema?: { type: "object"; [key: string]: unknown };
  /** Hints only: the display name is the tool's own `title` (not repeated here, where older clients looked for it). */
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
}

export const toolNameOf = (routeName: string) =>
  TOOL_NAMES[routeName] ?? routeName.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export const toolsetOfTag = (tag: string) =>
  tag
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

/** The chosen route names that exist: the explicit list, then every route of an agent tag. */
export function agentToolRouteNames(all: Record<string, RouteDef> = routes): string[] {
  const named = AGENT_TOOL_ROUTES.filter(
    (name) => name in all || (name in VIRTUAL_TOOLS && VIRTUAL_TOOLS[name]!.route in all),
  ) as string[];
  const tagged = Object.entries(all)
    .filter(([name, route]) => (AGENT_TOOL_TAGS as readonly string[]).includes(route.tag) && !named.includes(name))
    .map(([name]) => name);
  return [...named, ...tagged];
}

type JsonObject = { properties?: Record<string, Record<string, unknown>>; required?: string[]; [key: string]: unknown };

function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonObject {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest as JsonObject;
}

/** `:id` after `/jobs` is a jobId, after `/replies` a replyId, after `/saved-searches` a savedSearchId. */
function idArgName(path: string): string {
  const segments = path.split("/");
  const at = segments.indexOf(":id");
  const resource = (segments[at - 1] ?? "item").replace(/ies$/, "y").replace(/s$/, "");
  return `${resource.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())}Id`;
}

/**
 * A response schema cut to what a model needs to read a result: the envelope and the names and
 * JSON types of the fields of what it holds (three levels), deeper structure left open ({}). Complete
 * schemas of a job run to 12 kB each and would crowd the context the toolsets keep small; the
 * full schemas are in /v1/openapi.json. Still a true schema of the result: it only allows more.
 */
export function outlineSchema(schema: unknown, depth = 3): Record<string, unknown> {
  if (!schema || typeof schema !== "object" || depth <= 0) return {};
  const node = schema as Record<string, unknown>;
  if ("$ref" in node) return {};
  const out: Record<string, unknown> = {};
  // The innermost level keeps its type only (its enum of statuses is in the description of the tool's route).
  for (const key of depth > 1 ? (["type", "enum", "const"] as const) : (["type"] as const))
    if (key in node) out[key] = node[key];
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = node[key];
    if (Array.isArray(options)) {
      const outlined = options.map((option) => outlineSchema(option, depth));
      // An option left open allows anything: the union does too.
      if (outlined.some((option) => Object.keys(option).length === 0)) return {};
      out[key] = outlined;
    }
  }
  if (node.properties && typeof node.properties === "object") {
    out.properties = Object.fromEntries(
      Object.entries(node.properties as Record<string, unknown>).map(([k, v]) => [k, outlineSchema(v, depth - 1)]),
    );
    if (Array.isArray(node.required)) out.required = node.required;
  }
  if (node.items && typeof node.items === "object") out.items = outlineSchema(node.items, depth - 1);
  return out;
}

function describeArg(routeName: string, arg: string): string | undefined {
  const own = ARG_DOCS[`${routeName}.${arg}`] ?? ARG_DOCS[arg];
  if (own) return own;
  const id = /^(.+)Id$/.exec(arg);
  if (id) return `The id of the ${id[1]!.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)}.`;
  return undefined;
}

function describeRoute(route: RouteDef, summary: string): string {
  const lines = [summary];
  if (route.description) lines.push("", route.description);
  if (route.errors?.length)
    lines.push(
      "",
      `Errors: ${route.errors.map((e) => `${e.status}${e.code ? ` ${e.code}` : ""} (${e.when})`).join("; ")}.`,
    );
  return lines.join("\n");
}

/** One tool from one route (or a virtual tool over one): flat, named and described arguments. */
export function toolFromRoute(toolKey: string, all: Record<string, RouteDef> = routes): ToolDef {
  const virtual = VIRTUAL_TOOLS[toolKey];
  const routeName = (virtual?.route ?? toolKey) as RouteName;
  const route = all[routeName];
  if (!route) throw new Error(`no route ${routeName}`);
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  const args: Record<string, ArgSpec> = {};
  const selfFields: ArgSpec[] = [];
  const selfDefaults: string[] = [];
  const agentPath = route.path.startsWith("/v1/agents/:id");
  const selfOnly = route.method !== "GET" || !READS_OF_ANY_AGENT.has(toolKey);

  const add = (name: string, spec: ArgSpec, schema: Record<string, unknown>, isRequired: boolean) => {
    if (name in properties) throw new Error(`tool ${toolKey}: two arguments are called ${name}`);
    const { description, ...rest } = schema;
    const doc = (typeof description === "string" && description) || describeArg(toolKey, name);
    properties[name] = { ...rest, ...(doc ? { description: doc } : {}) };
    args[name] = spec;
    if (isRequired) required.push(name);
  };

  for (const where of ["params", "query", "body"] as const) {
    const part = route[where];
    if (!part) continue;
    const schema = jsonSchemaOf(part, "input");
    const requiredHere = new Set(schema.required ?? []);
    for (const [wire, value] of Object.entries(schema.properties ?? {})) {
      if (virtual && where === "body" && !virtual.bodyFields.includes(wire)) continue;
      // The conversation an agent key writes in is its own: `with` is for the poster's side.
      if (wire === "with") continue;
      const name =
        ARG_NAMES[`${toolKey}.${wire}`] ??
        (wire === "id" && where === "params"
          ? idArgName(route.path)
          : wire === "body" && where === "body"
            ? "text"
            : wire);
      if (name === "agentId" && ((where === "params" && agentPath) || where === "body")) {
        // The key is the agent: it acts only as itself, and reads its own data by default.
        if (where === "body" || selfOnly) {
          selfFields.push({ where, wire });
          continue;
        }
        selfDefaults.push(name);
        add(name, { where, wire }, { ...value, description: "The agent's id; omit for your own." }, false);
        continue;
      }
      // Query fields are optional on the wire even when the schema's output has a default.
      add(name, { where, wire }, value, where !== "query" && requiredHere.has(wire));
    }
  }
  if (route.idempotencyKey) {
    add(
      "idempotencyKey",
      { where: "query", wire: "__idempotencyKey" },
      { type: "string", minLength: 1, maxLength: 255 },
      route.idempotencyKey === "required",
    );
  }
  const output = outlineSchema(jsonSchemaOf(route.response, "output"));
  const summary = virtual?.summary ?? route.summary;
  const read = route.method === "GET";
  return {
    name: toolNameOf(toolKey),
    routeName,
    route,
    toolset: (CORE_TOOL_ROUTES as readonly string[]).includes(toolKey) ? "core" : toolsetOfTag(route.tag),
    title: summary,
    description: describeRoute(route, summary),
    args,
    selfFields,
    selfDefaults,
    inputSchema: { type: "object", properties, ...(required.length ? { required } : {}), additionalProperties: false },
    ...(output.type === "object" ? { outputSchema: output as ToolDef["outputSchema"] } : {}),
    annotations: {
      readOnlyHint: read,
      destructiveHint: route.method === "DELETE",
      idempotentHint: read || route.method === "PUT" || route.method === "DELETE",
      openWorldHint: false,
    },
  };
}

let cached: ToolDef[] | undefined;

/** Every agent tool, generated once per process. */
export function agentTools(): ToolDef[] {
  cached ??= agentToolRouteNames().map((name) => toolFromRoute(name));
  return cached;
}

/** The toolsets there are: core first, then the rest by name. */
export function toolsetNames(): string[] {
  return ["core", ...[...new Set(agentTools().map((t) => t.toolset))].filter((s) => s !== "core").sort()];
}

/**
 * The tools of the named toolsets (`core` is always included; `all` is every tool). An unknown
 * name is an error the caller turns into a 400, so a typo is not a silently smaller list.
 */
export function toolsFor(requested: string[] = []): ToolDef[] {
  const names = new Set(["core", ...requested.map((s) => s.trim().toLowerCase()).filter(Boolean)]);
  const known = new Set([...toolsetNames(), "all"]);
  const unknown = [...names].filter((n) => !known.has(n));
  if (unknown.length) throw new UnknownToolsetError(unknown);
  if (names.has("all")) return agentTools();
  return agentTools().filter((t) => names.has(t.toolset));
}

export class UnknownToolsetError extends Error {
  constructor(readonly unknown: string[]) {
    super(`unknown toolset ${unknown.join(", ")}: the toolsets are ${toolsetNames().join(", ")} (or all)`);
  }
}

export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const errorResult = (payload: unknown): ToolResult => ({
  content: [{ type: "text", text: JSON.stringify(payload) }],
  isError: true,
});

/**
 * Calls the tool's route with the arguments put back into params, query and body, and the calling
 * agent's id where the agent is implied. The service validates them; its answer (or its error
 * envelope, as a tool error the model can read) is the result.
 */
export async function callTool(
  client: ApiClient,
  tool: ToolDef,
  args: Record<string, unknown>,
  selfAgentId: () => Promise<string>,
): Promise<ToolResult> {
  const unknown = Object.keys(args).filter((k) => !(k in tool.args));
  if (unknown.length) {
    return errorResult(
      errorEnvelope(
        400,
        unknown.map((k) => `property ${k} should not exist`),
        "VALIDATION_FAILED",
      ),
    );
  }
  const parts: Record<ArgSpec["where"], Record<string, unknown>> = { params: {}, query: {}, body: {} };
  for (const [name, spec] of Object.entries(tool.args)) {
    if (args[name] !== undefined) parts[spec.where][spec.wire] = args[name];
  }
  const missing = Object.entries(tool.args).filter(
    ([name, spec]) =>
      spec.where === "params" &&
      !tool.selfDefaults.includes(name) &&
      (args[name] === undefined || args[name] === null || args[name] === ""),
  );
  if (missing.length) {
    return errorResult(
      errorEnvelope(
        400,
        missing.map(([name]) => `${name} should not be empty`),
        "VALIDATION_FAILED",
      ),
    );
  }
  if (tool.selfFields.length || tool.selfDefaults.some((name) => args[name] === undefined)) {
    const self = await selfAgentId();
    for (const spec of tool.selfFields) parts[spec.where][spec.wire] = self;
    for (const name of tool.selfDefaults)
      if (args[name] === undefined) parts[tool.args[name]!.where][tool.args[name]!.wire] = self;
  }
  const idempotencyKey = parts.query.__idempotencyKey;
  delete parts.query.__idempotencyKey;
  const { route } = tool;
  try {
    const result = await client.call(route, {
      params: route.params ? parts.params : undefined,
      query: route.query ? parts.query : undefined,
      body: route.body ? parts.body : undefined,
      idempotencyKey: typeof idempotencyKey === "string" ? idempotencyKey : undefined,
    } as never);
    const structured =
      result && typeof result === "object" && !Array.isArray(result) ? (result as Record<string, unknown>) : { result };
    return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: structured };
  } catch (error) {
    if (error instanceof ApiError) return errorResult(error.body ?? errorEnvelope(error.status, error.message));
    throw error;
  }
}
