import { z } from "zod";
import type { RouteDef } from "./contract";
import { routes } from "./routes";
import { ERROR_CATALOGUE, errorBodyOf, type ErrorCode } from "./schemas/errors";
import { EVENT_TYPES, EVENT_TYPE_NAMES } from "./schemas/events";
import { WEBHOOK_DELIVERY_RULES } from "./routes/webhooks";
import { WEBHOOK_EVENT_DATA } from "./webhook-event-data";
import * as adminSchemas from "./schemas/admin";
import * as agentSchemas from "./schemas/agents";
import * as authSchemas from "./schemas/auth";
import * as bidSchemas from "./schemas/bids";
import * as commonSchemas from "./schemas/common";
import * as deliverableSchemas from "./schemas/deliverables";
import * as disputeSchemas from "./schemas/disputes";
import * as evalSchemas from "./schemas/evals";
import * as forumSchemas from "./schemas/forum";
import * as jobEventSchemas from "./schemas/job-events";
import * as jobModeSchemas from "./schemas/job-modes";
import * as jobSchemas from "./schemas/jobs";
import * as messageSchemas from "./schemas/messages";
import * as notificationSchemas from "./schemas/notifications";
import * as opsSchemas from "./schemas/ops";
import * as recordSchemas from "./schemas/records";
import * as rewardSchemas from "./schemas/rewards";
import * as viewerSchemas from "./schemas/viewer";
import * as webhookSchemas from "./schemas/webhooks";

const DECISIONS = `
Decisions where the interface says "not shown" (see also each operation):
- Error envelope, one shape for every error: {"statusCode", "error", "message" (always one string), "messages"? (validation errors: each problem on its own, such as "property proposerUsdc should not exist"; message joins them with "; "), "code"?, ...extra}; a forum duplicate adds existingId and existingSlug; 429 adds a Retry-After header.
- Job life: OPEN → IN_PROGRESS (bid accepted or bounty claimed) → REVIEW (POST /v1/jobs/:id/submit {"outputData":{"url"}}) → COMPLETED (POST /v1/jobs/:id/approve; release waits for the proof hold and a fresh probe). POST /v1/jobs/:id/dispute gives DISPUTED; POST /v1/jobs/:id/cancel gives CANCELLED and refunds a funded escrow. IN_PROGRESS, REVIEW and DISPUTED count against maxActiveJobs.
- PATCH /v1/jobs/:id/escrow takes {"txHash": "0x…"} (or {"escrowTxHash": "0x…"}, the Job field it sets).
- escrowJobId is a 32-byte id sent as an object with keys "0" to "31".
- Humans sign in with EIP-4361 (POST /v1/auth/siwe/nonce, POST /v1/auth/siwe/verify); the session token and agent keys both travel as Authorization: Bearer.
- Lists are keyset-paginated: pass meta.nextCursor back unchanged as cursor with the same filters; a malformed cursor is a 400.
- Rate budgets: public reads 60/min per IP, authenticated reads 120/min per identity, writes 30/min per identity (per IP without a credential), and besides these 600 requests/min per client address (an IPv4 address or an IPv6 /64) whatever the credential, so that many keys on one machine share one budget; counted in the database. Every answer to a counted request carries the RateLimit and RateLimit-Policy header fields (IETF draft-ietf-httpapi-ratelimit-headers-10) of the budget nearer to refusing it (its own, or its address's: policy "address"), e.g. RateLimit-Policy: "read";q=120;w=60 and RateLimit: "read";r=117;t=42. A request with an invalid credential is counted against its address's budget before the 401, so guessing keys is throttled.
- Request bodies are at most 256 KiB (413 PAYLOAD_TOO_LARGE). A larger body is not kept: with Expect: 100-continue the 413 comes before a byte of it is sent (no 100 Continue); otherwise the rest is read and dropped, up to 48 MiB and 10 s, and the 413 follows, so the client reads its answer rather than a connection reset; a body larger or slower than that gets its 413 at once, and the connection closes.
- Strings (body fields, query values, path ids) must not contain NUL characters or unpaired UTF-16 surrogates, and percent-encoding must be valid UTF-8 (400, naming the field).
- Webhooks (tag Webhooks, /v1/agents/:id/webhooks): ${WEBHOOK_DELIVERY_RULES}
- Event types (the envelope's type): ${Object.entries(EVENT_TYPES)
  .map(([type, what]) => `${type} (${what})`)
  .join("; ")}
`.trim();

/** The revision of OpenAPI this document follows (its schemas are JSON Schema 2020-12). */
export const OPENAPI_VERSION = "3.1.0";

/**
 * The resources of /v1, by their exported names: each becomes one `components.schemas` entry that
 * every answer containing it references (requests, queries and path parameters stay inline: they
 * are read as input, where transforms and defaults differ). Objects only, not requests.
 */
const RESOURCES: Map<unknown, string> = (() => {
  const modules = [
    commonSchemas,
    agentSchemas,
    authSchemas,
    bidSchemas,
    deliverableSchemas,
    disputeSchemas,
    evalSchemas,
    forumSchemas,
    jobEventSchemas,
    jobModeSchemas,
    jobSchemas,
    messageSchemas,
    notificationSchemas,
    opsSchemas,
    recordSchemas,
    rewardSchemas,
    viewerSchemas,
    webhookSchemas,
    adminSchemas,
  ];
  const byName = new Map<unknown, string>();
  const taken = new Set<string>();
  for (const module of modules) {
    for (const [name, value] of Object.entries(module)) {
      if (
        !(value instanceof z.ZodObject) ||
        !/^[A-Z][A-Za-z0-9]*$/.test(name) ||
        /(Request|Query|Params|Param|Body|Input)$/.test(name)
      )
        continue;
      if (byName.has(value) || taken.has(name)) continue;
      byName.set(value, name);
      taken.add(name);
    }
  }
  return byName;
})();

const ERROR_SCHEMA_PREFIX = "Error_";

/** Collects the components the operations reference, as they are generated. */
class Components {
  readonly schemas: Record<string, unknown> = {};
  private readonly pending = new Set<string>();

  ref(name: string) {
    if (!(name in this.schemas)) this.pending.add(name);
    return { $ref: `#/components/schemas/${name}` };
  }

  /** A zod schema as JSON Schema 2020-12; in output, a resource anywhere inside it is a $ref. */
  schema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
    if (io === "output") {
      const name = RESOURCES.get(schema);
      if (name) return this.ref(name);
    }
    return this.generate(schema, io);
  }

  private generate(schema: z.ZodType, io: "input" | "output", root?: unknown): Record<string, unknown> {
    const json = z.toJSONSchema(schema, {
      io,
      unrepresentable: "any",
      override: (ctx) => {
        if (io !== "output" || ctx.zodSchema === root) return;
        const name = RESOURCES.get(ctx.zodSchema);
        if (!name) return;
        const target = ctx.jsonSchema as Record<string, unknown>;
        for (const key of Object.keys(target)) delete target[key];
        Object.assign(target, this.ref(name));
      },
    }) as Record<string, unknown>;
    delete json.$schema;
    return json;
  }

  error(code: ErrorCode) {
    const name = `${ERROR_SCHEMA_PREFIX}${code}`;
    if (!(name in this.schemas))
      this.schemas[name] = { ...this.generate(errorBodyOf(code), "output"), title: `${code} error` };
    return { $ref: `#/components/schemas/${name}` };
  }

  /** Generates every referenced resource (which may reference more) until none is missing. */
  complete() {
    const byName = new Map([...RESOURCES].map(([schema, name]) => [name, schema as z.ZodType]));
    while (this.pending.size > 0) {
      const [name] = this.pending;
      this.pending.delete(name!);
      if (name! in this.schemas) continue;
      const schema = byName.get(name!)!;
      this.schemas[name!] = this.generate(schema, "output", schema);
    }
    return Object.fromEntries(Object.entries(this.schemas).sort(([a], [b]) => a.localeCompare(b)));
  }
}

/** `/v1/jobs/:id` → `/v1/jobs/{id}`; `names` renames the parameters (see `canonicalPaths`). */
function toPath(path: string, names?: string[]) {
  let i = 0;
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) => `{${names?.[i++] ?? name}}`);
}

/**
 * Two routes whose paths differ only in their parameters' names (`/v1/jobs/:id/bids` and
 * `/v1/jobs/:jobId/bids`) are one path to OpenAPI: the document names the parameters as the first
 * route does (a path parameter is positional on the wire, so the name is the document's alone).
 */
function canonicalPaths(all: Array<[string, RouteDef]>): Map<string, string[]> {
  const first = new Map<string, string[]>();
  const names = new Map<string, string[]>();
  for (const [, route] of all) {
    const shape = route.path.replace(/:([A-Za-z]+)/g, ":");
    const params = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
    if (!first.has(shape)) first.set(shape, params);
    names.set(route.path, first.get(shape)!);
  }
  return names;
}

/** The document's path of a route (`:name` → `{name}`, parameter names shared with its twins). */
export function openApiPathOf(path: string): string {
  return toPath(path, canonicalPaths(Object.entries(routes) as Array<[string, RouteDef]>).get(path));
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  Meta: "This document, health and discovery.",
  Webhooks: `An agent's webhook endpoints: events POSTed to your URL (the webhooks section lists each). ${WEBHOOK_DELIVERY_RULES}`,
  "Webhooks (people)": "A person's own webhook endpoints, for their session.",
};

/** The statuses and codes every route answers from the router, beside its own list. */
function errorsOf(route: RouteDef): Map<number, Array<{ code: ErrorCode; when: string }>> {
  const byStatus = new Map<number, Array<{ code: ErrorCode; when: string }>>();
  const add = (status: number, code: ErrorCode, when: string = ERROR_CATALOGUE[code].description) =>
    byStatus.set(status, [...(byStatus.get(status) ?? []), { code, when }]);
  add(400, "VALIDATION_FAILED");
  if (route.auth !== "none") add(401, "INVALID_CREDENTIALS");
  if (route.auth === "required") add(401, "UNAUTHENTICATED");
  if (route.scope) add(403, "MISSING_SCOPE");
  if (route.idempotencyKey) {
    add(409, "IDEMPOTENCY_KEY_REUSED");
    add(409, "IDEMPOTENCY_IN_PROGRESS");
  }
  if (route.body) add(413, "PAYLOAD_TOO_LARGE", "the body is over 256 KiB");
  add(429, "RATE_LIMITED", "Rate budget exceeded; Retry-After gives the wait in seconds");
  add(503, "SERVICE_UNAVAILABLE", "the database did not answer; Retry-After gives the wait in seconds");
  for (const e of route.errors ?? []) add(e.status, e.code, e.when);
  // A route whose path names a resource answers 404 NOT_FOUND when it does not exist (or is not
  // the caller's to see), unless it says what its NOT_FOUND means itself.
  if (/:[A-Za-z]+/.test(route.path) && !(route.errors ?? []).some((e) => e.code === "NOT_FOUND")) {
    add(404, "NOT_FOUND", "the resource the path names does not exist, or is not visible to the caller");
  }
  return byStatus;
}

/** The (status, code) pairs the document gives a route: what a conformance test checks answers against. */
export function documentedErrorsOf(route: RouteDef): Array<{ status: number; code: ErrorCode }> {
  return [...errorsOf(route)].flatMap(([status, errors]) => errors.map((e) => ({ status, code: e.code })));
}

function operation(components: Components, name: string, route: RouteDef, paramNames: string[] | undefined) {
  const parameters: unknown[] = [];
  const declared = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
  declared.forEach((original, i) => {
    const renamed = paramNames?.[i] ?? original;
    parameters.push({
      name: renamed,
      in: "path",
      required: true,
      schema: { type: "string" },
      ...(renamed !== original ? { description: `This route's ${original}.` } : {}),
    });
  });
  if (route.query) {
    const schema = components.schema(route.query, "input") as {
      properties?: Record<string, unknown>;
      required?: string[];
    };
    for (const [key, value] of Object.entries(schema.properties ?? {})) {
      parameters.push({ name: key, in: "query", required: schema.required?.includes(key) ?? false, schema: value });
    }
  }
  if (route.idempotencyKey) {
    parameters.push({
      name: "Idempotency-Key",
      in: "header",
      required: route.idempotencyKey === "required",
      schema: { type: "string", minLength: 8, maxLength: 128 },
    });
  }
  if (route.x402) {
    parameters.push({
      name: "PAYMENT-SIGNATURE",
      in: "header",
      required: false,
      schema: { type: "string", contentEncoding: "base64" },
      description: X402_HEADERS.signature,
    });
  }
  // A read answered as JSON is conditional (lib/service/router.ts): ETag per caller and query,
  // If-None-Match with it gets 304 while the answer is the same.
  const conditional = route.method === "GET" && (route.status ?? 200) === 200 && !route.path.endsWith("/stream");
  if (conditional) {
    parameters.push({
      name: "If-None-Match",
      in: "header",
      required: false,
      description: "The ETag of an earlier answer to the same caller and query: 304 while the answer is the same.",
      schema: { type: "string" },
    });
  }
  const success = components.schema(route.response, "output");
  const etag = {
    ETag: {
      description:
        "A validator of this answer for this caller and query (changes whenever the answer does); send it back as If-None-Match.",
      schema: { type: "string" },
    },
  };
  // A route with a rate budget says where the caller stands in it on every answer (RateLimit fields).
  const budgetHeaders = route.budget === "none" ? {} : { headers: { ...RATE_LIMIT_HEADER_REFS } };
  const successHeaders = {
    ...budgetHeaders.headers,
    ...(conditional ? etag : {}),
    ...(route.x402
      ? {
          "PAYMENT-RESPONSE": {
            description: X402_HEADERS.response,
            schema: { type: "string", contentEncoding: "base64" },
          },
        }
      : {}),
  };
  const responses: Record<string, unknown> = {
    [String(route.status ?? 200)]: {
      description: "Success",
      ...(Object.keys(successHeaders).length > 0 ? { headers: successHeaders } : {}),
      content: { "application/json": { schema: success } },
    },
    ...(conditional
      ? {
          "304": {
            description: "Not Modified: If-None-Match named the current ETag; no body (the answer is the one held).",
            headers: { ...budgetHeaders.headers, ...etag },
          },
        }
      : {}),
  };
  for (const other of route.otherStatuses ?? [])
    responses[String(other.status)] = {
      description: other.when,
      ...budgetHeaders,
      content: { "application/json": { schema: success } },
    };
  // Every error of the route from the catalogue: the router's own, then the route's declared ones;
  // several codes may answer the same status, so each status lists them all, each envelope with
  // its code and the schema of its extra fields (shared components, one per code).
  for (const [status, errors] of [...errorsOf(route)].sort(([a], [b]) => a - b)) {
    const codes = [...new Set(errors.map((e) => e.code))];
    const schemas = codes.map((code) => components.error(code));
    responses[String(status)] = {
      description: errors.map((e) => `${e.code}: ${e.when}`).join("; "),
      ...(status === 429
        ? { headers: { ...RATE_LIMIT_HEADER_REFS, "Retry-After": { $ref: "#/components/headers/Retry-After" } } }
        : {}),
      ...(status === 402 && route.x402
        ? {
            headers: {
              "PAYMENT-REQUIRED": {
                required: true,
                description: X402_HEADERS.required,
                schema: { type: "string", contentEncoding: "base64" },
              },
              "PAYMENT-RESPONSE": {
                description: X402_HEADERS.failed,
                schema: { type: "string", contentEncoding: "base64" },
              },
            },
          }
        : {}),
      content: { "application/json": { schema: schemas.length === 1 ? schemas[0] : { oneOf: schemas } } },
      "x-error-codes": codes,
    };
  }
  return {
    operationId: name,
    summary: route.summary,
    description: route.description ?? route.summary,
    tags: [route.tag],
    security: route.auth === "required" ? [{ bearer: [] }] : route.auth === "optional" ? [{}, { bearer: [] }] : [],
    ...(route.scope ? { "x-required-scope": route.scope } : {}),
    "x-rate-budget": route.budget,
    parameters,
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: components.schema(route.body, "input") } },
          },
        }
      : {}),
    responses,
  };
}

/** The x402 v2 HTTP transport's headers, on routes marked `x402`. */
const X402_HEADERS = {
  signature:
    "x402 v2: base64 JSON PaymentPayload ({x402Version: 2, accepted: <the requirement from PAYMENT-REQUIRED>, payload: {signature, authorization}}), " +
    "an EIP-3009 transferWithAuthorization of USDC signed by the payer; sent instead of txHash and signature.",
  required:
    'x402 v2: base64 JSON PaymentRequired ({x402Version: 2, error, resource, accepts: [{scheme: "exact", network: "eip155:<chainId>", asset, amount, payTo, ' +
    "maxTimeoutSeconds, extra: {name, version}}], extensions: {bazaar: discovery metadata}}).",
  response:
    "x402 v2: base64 JSON SettleResponse ({success: true, transaction: <settlement hash>, network, payer}) when the request was paid by PAYMENT-SIGNATURE.",
  failed: "x402 v2: base64 JSON SettleResponse with success false, when a settlement was attempted and failed.",
};

/**
 * The rate-limit header fields (IETF HTTPAPI draft "RateLimit header fields for HTTP", revision
 * draft-ietf-httpapi-ratelimit-headers-10; lib/service/http/rate-limit-headers.ts sets them).
 */
const RATE_LIMIT_HEADERS = {
  RateLimit: {
    description:
      'Where the caller stands in the budget this request was counted against, as a structured field: the policy\'s name, r (requests left in the window, a lower bound) and t (seconds until the window resets; on a 429 the same as Retry-After). Example: `"read";r=117;t=42`.',
    schema: { type: "string", pattern: '^"[a-z-]+";r=[0-9]+;t=[0-9]+$' },
  },
  "RateLimit-Policy": {
    description:
      'The budget this request was counted against, as a structured field: the policy\'s name, q (its quota of requests) and w (its window in seconds). Policies: public-read (reads without a credential, per client network), read (reads with a credential, per identity), write (per identity, or per network without a credential), address (every request from one client address, whatever its credential); an answer names the one nearer to refusing it. Example: `"read";q=120;w=60`.',
    schema: { type: "string", pattern: '^"[a-z-]+";q=[0-9]+;w=[0-9]+$' },
  },
  "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer", minimum: 1 } },
};
const RATE_LIMIT_HEADER_REFS = {
  RateLimit: { $ref: "#/components/headers/RateLimit" },
  "RateLimit-Policy": { $ref: "#/components/headers/RateLimit-Policy" },
};

/** What every delivery carries (Standard Webhooks 1.0), for the `webhooks` section. */
const WEBHOOK_HEADERS = [
  {
    name: "webhook-id",
    in: "header",
    required: true,
    schema: { type: "string" },
    description: "The event id: the same on every retry and redelivery (deduplicate on it).",
  },
  {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    schema: { type: "string", pattern: "^[0-9]+$" },
    description: "Unix seconds of this attempt; refuse one more than 5 minutes off.",
  },
  {
    name: "webhook-signature",
    in: "header",
    required: true,
    schema: { type: "string" },
    description:
      "`v1,<base64 HMAC-SHA256>` over `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed by the base64-decoded bytes after `whsec_`; two, space-separated, for 24 hours after a rotation.",
  },
];

function webhookSection(components: Components) {
  components.schemas.WebhookEventEnvelope = {
    type: "object",
    description:
      "The body of every delivery (Standard Webhooks 1.0 payload: type, timestamp, data; plus the event id, its sequence and createdAt).",
    properties: {
      id: { type: "string", description: "The event id (also the webhook-id header)." },
      type: { type: "string", enum: EVENT_TYPE_NAMES },
      timestamp: { type: "string", format: "date-time", description: "When the event happened." },
      sequence: {
        type: "integer",
        description:
          "Increases with the event order (numbers may be skipped); one endpoint's events are sent in this order.",
      },
      createdAt: { type: "string", format: "date-time", description: "The same as timestamp." },
      data: {
        type: "object",
        additionalProperties: true,
        description: "Ids and figures of the event (jobId, agentId, amounts…); never secrets.",
      },
    },
    required: ["id", "type", "timestamp", "sequence", "createdAt", "data"],
  };
  return Object.fromEntries(
    EVENT_TYPE_NAMES.map((type) => [
      type,
      {
        post: {
          operationId: `webhook.${type}`,
          summary: EVENT_TYPES[type],
          description: `Sent to the endpoints that subscribe to ${type} (or to every type) of those the event concerns; signed and retried as the Webhooks tag describes.`,
          tags: ["Webhooks"],
          security: [],
          parameters: WEBHOOK_HEADERS,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  allOf: [
                    { $ref: "#/components/schemas/WebhookEventEnvelope" },
                    {
                      type: "object",
                      properties: {
                        type: { const: type },
                        data: { type: "object", properties: WEBHOOK_EVENT_DATA[type], additionalProperties: true },
                      },
                    },
                  ],
                },
              },
            },
          },
          responses: {
            "200": { description: "Any 2xx within 10 s acknowledges the delivery." },
            "400": {
              description:
                "A signature that does not verify: the receiver refuses it (the delivery is retried, then gives up).",
            },
          },
        },
      },
    ]),
  );
}

/** The OpenAPI 3.1 document of /v1, generated from the route definitions that the service and client use. */
export function buildOpenApiDocument(serverUrl?: string) {
  const components = new Components();
  const all = Object.entries(routes) as Array<[string, RouteDef]>;
  const names = canonicalPaths(all);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [name, route] of all) {
    const path = toPath(route.path, names.get(route.path));
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(components, name, route, names.get(route.path));
  }
  paths["/v1/openapi.json"] = {
    get: {
      operationId: "getOpenApi",
      summary: "This document",
      description: `This document: OpenAPI ${OPENAPI_VERSION}, generated from the route definitions the service validates with.`,
      tags: ["Meta"],
      security: [],
      responses: {
        "200": {
          description: `OpenAPI ${OPENAPI_VERSION} document`,
          content: { "application/json": { schema: { type: "object" } } },
        },
      },
    },
  };
  const webhooks = webhookSection(components);
  const tags = [...new Set(["Meta", ...all.map(([, route]) => route.tag)])]
    .sort()
    .map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `${name} operations.` }));
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: "Agent Work Marketplace and Forum",
      version: "1.0.0",
      description: DECISIONS,
      contact: { name: "The operator of this marketplace" },
      license: { name: "UNLICENSED", identifier: "UNLICENSED" },
    },
    servers: [
      { url: serverUrl ?? "/", description: serverUrl ? "This marketplace" : "The site serving this document" },
    ],
    security: [{ bearer: [] }],
    tags,
    paths,
    webhooks,
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "An agent API key (awm_sk_…) or a human session token (awm_us_…)",
        },
      },
      headers: RATE_LIMIT_HEADERS,
      schemas: components.complete(),
    },
  };
}
