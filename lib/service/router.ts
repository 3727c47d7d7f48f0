import { createHash } from "node:crypto";
import { Hono, type Context } from "hono";
import type { RouteDef, RouteOutput, ParsedBody, ParsedParams, ParsedQuery } from "@/lib/api/contract";
import type { ServiceContext } from "./context";
import { resolveActor, requireScope, type Actor } from "./auth/actor";
import { HttpError, badRequest, internalErrorBody, payloadTooLarge, unauthorized } from "./http/errors";
import { parseOrThrow, refuseMalformedPath, refuseUnsafeText, strictQueryValues } from "./http/validation";
import { consumeBudget } from "./http/rate-limit";
import { withIdempotency } from "./http/idempotency";
import { ownHeaderValueOf } from "./proofs/fetch-policy";
import { OWN_ORIGIN_HEADER } from "./proofs/own-origin";

export interface ServiceBindings {
  /** The caller's address, stamped by the server in front of the service (never by the client). */
  clientIp: string;
  /** The request came through a proxy (carried X-Forwarded-For, Forwarded or X-Real-IP), as judged in front of Next. */
  forwarded: boolean;
}

export type ServiceApp = Hono<{ Bindings: ServiceBindings }>;

export interface HandlerArgs<D extends RouteDef> {
  ctx: ServiceContext;
  actor: D extends { auth: "required" } ? Actor : Actor | null;
  params: ParsedParams<D>;
  query: ParsedQuery<D>;
  body: ParsedBody<D>;
  request: Request;
  clientIp: string;
  /** The request came through a proxy (see ServiceBindings). */
  forwarded: boolean;
  /** The public site URL: configured, or the origin this request came to. */
  siteUrl: string;
  /** Answer with another status than the route's (one of its otherStatuses), with the same response schema. */
  setStatus(status: number): void;
}

export type Handler<D extends RouteDef> = (args: HandlerArgs<D>) => Promise<RouteOutput<D>>;

export interface ImplementOptions<D extends RouteDef> {
  /**
   * The answer is the same for everyone who passes this test (e.g. the board's anonymous first page):
   * it is kept for config.sharedCacheMs (≤ 1 s) and served with ETag and Cache-Control, and a
   * matching If-None-Match gets 304. Budgets, validation and the rest of the gate still run.
   */
  sharedCache?: (args: { actor: Actor | null; query: ParsedQuery<D> }) => boolean;
}

/**
 * The largest request body. The biggest legitimate one is a job (a 20000-character description,
 * criteria, skills): even with every character JSON-escaped as \uXXXX it stays under this.
 */
export const MAX_BODY_BYTES = 256 * 1024;

/**
 * Binds route definitions of lib/api to domain functions. Every request passes the same gate in the
 * same order: credential, budget, scope, validation, idempotency; then the handler; then the
 * response is parsed with the route's schema before it leaves, so a database shape never leaks.
 */
export class ServiceRouter {
  readonly app: ServiceApp = new Hono<{ Bindings: ServiceBindings }>();

  constructor(readonly ctx: ServiceContext) {
    // Every answer names its site, so this app's prober recognises its own pages behind any alias
    // (a name or proxy it cannot see through) and refuses them (proofs/own-origin.ts).
    this.app.use("*", async (c, next) => {
      await next();
      const site = ownHeaderValueOf(ctx.config);
      if (site) c.res.headers.set(OWN_ORIGIN_HEADER, site);
    });
    this.app.onError((error, c) => errorResponse(error, c));
    // Before anything else, for every request: a declared body over the limit is refused before a
    // byte of it is read, and a path that does not decode is a 400 rather than a raw id.
    this.app.use("*", async (c, next) => {
      const declared = c.req.header("content-length");
      if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) throw payloadTooLarge(MAX_BODY_BYTES);
      refuseMalformedPath(new URL(c.req.url).pathname);
      await next();
    });
    this.app.notFound((c) =>
      c.json(new HttpError(404, `Cannot ${c.req.method} ${new URL(c.req.url).pathname}`, "NOT_FOUND").toBody(), 404),
    );
  }

  private readonly sharedCache = new SharedCache();

  implement<D extends RouteDef>(route: D, handler: Handler<D>, options: ImplementOptions<D> = {}): void {
    const method = route.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete";
    this.app[method](route.path, async (c) => {
      const ctx = this.ctx;
      const clientIp = c.env?.clientIp ?? "unknown";
      // Unknown means proxied: whatever sits in front of the service did not say otherwise.
      const forwarded = c.env?.forwarded ?? true;
      let actor: Actor | null;
      try {
        actor = await resolveActor(ctx, c.req.header("authorization") ?? null);
      } catch (error) {
        // A refused credential still costs its address a request: otherwise keys could be guessed
        // at full speed, since only callers who already hold a valid one were ever counted.
        await this.consumeRateBudget(route, null, clientIp);
        throw error;
      }

      await this.consumeRateBudget(route, actor, clientIp);
      if (route.auth === "required" && !actor) throw unauthorized();
      if (route.scope && actor) requireScope(actor, route.scope);

      const rawParams = c.req.param() as Record<string, string>;
      const rawQuery = strictQueryValues(new URL(c.req.url).search);
      const rawBody = route.body ? await readJsonBody(c.req.raw) : undefined;
      refuseUnsafeText(rawParams, "path");
      refuseUnsafeText(rawQuery, "query");
      refuseUnsafeText(rawBody, "body");

      const params = route.params ? parseOrThrow(route.params, rawParams, "path") : {};
      const query = route.query ? parseOrThrow(route.query, rawQuery, "query") : {};
      const body = route.body ? parseOrThrow(route.body, rawBody, "body") : undefined;

      let status = route.status ?? 200;
      const args = {
        setStatus: (other: number) => {
          status = other;
        },
        ctx,
        actor,
        params,
        query,
        body,
        request: c.req.raw,
        clientIp,
        forwarded,
        siteUrl: ctx.config.siteUrl ?? new URL(c.req.url).origin,
      } as unknown as HandlerArgs<D>;

      const run = async () => {
        const output = await handler(args);
        // A stream (GET /v1/jobs/:id/stream, text/event-stream) is its own answer; it has no JSON to check.
        if ((output as unknown) instanceof Response) return { status, body: output as unknown as Response };
        // The handler may call setStatus: read the status after it ran.
        const body = checkResponse(route, output, ctx.config.responseCheckRate);
        return { status, body };
      };

      const cacheMs = ctx.config.sharedCacheMs;
      if (cacheMs > 0 && options.sharedCache?.({ actor, query: query as ParsedQuery<D> })) {
        const key = `${route.method} ${route.path} ${new URL(c.req.url).search}`;
        const entry = await this.sharedCache.get(key, cacheMs, async () => {
          const result = await run();
          return { status: result.status, text: JSON.stringify(result.body) };
        });
        const headers = { etag: entry.etag, "cache-control": `public, max-age=${Math.max(1, Math.floor(cacheMs / 1000))}`, vary: "Authorization" };
        if (matchesEtag(c.req.header("if-none-match"), entry.etag)) return new Response(null, { status: 304, headers });
        return new Response(entry.text, { status: entry.status, headers: { ...headers, "content-type": "application/json" } });
      }

      const key = c.req.header("idempotency-key");
      if (route.idempotencyKey === "required" && !key) throw badRequest(["Idempotency-Key header should not be empty"]);
      const result =
        route.idempotencyKey && key
          ? await withIdempotency(
              ctx,
              { identity: actor?.identityKey ?? `ip:${clientIp}`, scope: `${route.method} ${route.path}`, key, payload: { params, body } },
              run,
            )
          : await run();
      if (result.body instanceof Response) return result.body;
      return c.json(result.body as object, result.status as 200);
    });
  }

  private async consumeRateBudget(route: RouteDef, actor: Actor | null, clientIp: string) {
    const budgets = this.ctx.config.rateBudgets;
    if (route.budget === "none") return;
    if (route.budget === "read") {
      if (actor) await consumeBudget(this.ctx, `read:${actor.identityKey}`, budgets.authReadsPerMinute, 60);
      else await consumeBudget(this.ctx, `read:ip:${clientIp}`, budgets.publicReadsPerMinute, 60);
    } else {
      await consumeBudget(this.ctx, `write:${actor ? actor.identityKey : `ip:${clientIp}`}`, budgets.writesPerMinute, 60);
    }
  }
}

/**
 * The handler's output checked against the route's response schema. With rate 1 (tests,
 * development) every response is checked and must be exactly what the schema would produce (no
 * field the schema would drop or change), so the tests prove that an unchecked response conforms.
 * In production (rate < 1) a sample is checked and the rest go out as the handler built them, which
 * saves a full parse of every row of every list; a sampled mismatch is logged and answered parsed.
 */
function checkResponse(route: RouteDef, output: unknown, rate: number): unknown {
  if (rate < 1 && Math.random() >= rate) return output;
  const parsed = route.response.safeParse(output);
  if (!parsed.success) {
    console.error(`[service] ${route.method} ${route.path}: response does not match its schema`, parsed.error.issues);
    throw new Error("response does not match its schema");
  }
  const difference = jsonDifference(JSON.parse(JSON.stringify(output)), JSON.parse(JSON.stringify(parsed.data)), "");
  if (difference !== null) {
    console.error(`[service] ${route.method} ${route.path}: response differs from its parsed form at ${difference || "(root)"}`);
    if (rate >= 1) throw new Error(`response differs from what its schema produces at ${difference || "(root)"}`);
  }
  return parsed.data;
}

/** Where two JSON values differ (a path), or null when they are the same (key order aside). */
function jsonDifference(a: unknown, b: unknown, at: string): string | null {
  if (a === b) return null;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return at;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return at;
    for (let i = 0; i < a.length; i++) {
      const d = jsonDifference(a[i], other[i], `${at}[${i}]`);
      if (d !== null) return d;
    }
    return null;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
    const d = jsonDifference(x[key], y[key], `${at}.${key}`);
    if (d !== null) return d;
  }
  return null;
}

interface CachedAnswer {
  status: number;
  text: string;
  etag: string;
  expires: number;
}

/** Answers kept for a moment; concurrent misses of one key share a single computation. */
class SharedCache {
  private readonly entries = new Map<string, CachedAnswer>();
  private readonly pending = new Map<string, Promise<CachedAnswer>>();

  async get(key: string, ttlMs: number, compute: () => Promise<{ status: number; text: string }>): Promise<CachedAnswer> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) return hit;
    let waiting = this.pending.get(key);
    if (!waiting) {
      waiting = compute()
        .then(({ status, text }) => {
          const entry = { status, text, etag: `"${createHash("sha1").update(text).digest("base64url")}"`, expires: Date.now() + ttlMs };
          if (this.entries.size > 1000) this.entries.clear();
          this.entries.set(key, entry);
          return entry;
        })
        .finally(() => this.pending.delete(key));
      this.pending.set(key, waiting);
    }
    return waiting;
  }
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t === etag || t === `W/${etag}`;
  });
}

/**
 * Reads the body through a counter and stops at MAX_BODY_BYTES + 1, so that a chunked body (no
 * Content-Length) can never make the server hold more than the limit. The stream is left unread
 * rather than cancelled: cancelling would tear down the socket before the 413 could be sent, and
 * the 413's Connection: close ends it right after.
 */
async function readJsonBody(request: Request): Promise<unknown> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        reader.releaseLock();
        throw payloadTooLarge(MAX_BODY_BYTES);
      }
      chunks.push(value);
    }
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw badRequest(["body must be valid UTF-8"]);
  }
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(["body must be valid JSON"]);
  }
}

function errorResponse(error: unknown, c: Context) {
  if (error instanceof HttpError) {
    for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
    return c.json(error.toBody(), error.status as 400);
  }
  console.error("[service] unhandled error", error);
  return c.json(internalErrorBody(), 500);
}
