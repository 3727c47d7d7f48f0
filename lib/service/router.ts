import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { DRAIN_BYTES, DRAIN_MS, MAX_BODY_BYTES } from "@/lib/net/request-body.mjs";
import { Hono, type Context } from "hono";
import type { RouteDef, ParsedBody, ParsedParams, ParsedQuery } from "@/lib/api/contract";
import type { ServiceContext } from "./context";
import { resolveActor, requireScope, watchKeyChanges, type Actor } from "./auth/actor";
import { streamHubOf } from "./events/stream-hub";
import {
  HttpError,
  badRequest,
  bodyTooDeep,
  internalErrorBody,
  payloadTooLarge,
  serviceUnavailable,
  statusOf,
  unauthorized,
} from "./http/errors";
import { DomainError } from "./errors";
import { isDatabaseUnavailable } from "./db/errors";
import { RecentWrites } from "./db/replicas";
import type { Db } from "./db/connection";
import { chainFailureReason, isChainUnavailable } from "@/lib/chain/escrow/errors";
import {
  MAX_JSON_DEPTH,
  jsonNestsDeeperThan,
  parseOrThrow,
  refuseMalformedPath,
  refuseUnsafeText,
  strictQueryValues,
} from "./http/validation";
import { consumeBudget, type BudgetState } from "./http/rate-limit";
import { RATE_POLICY_NAMES, nearestToRefusal, rateLimitHeaders } from "./http/rate-limit-headers";
import { DEFAULT_RATE_BUDGETS } from "./config";
import { clientKeyOf } from "./http/client-origin";
import { IDEMPOTENCY_RESUME_MS, withIdempotency } from "./http/idempotency";
import {
  envelopeKindOf,
  holdsJsonText,
  serializeBody,
  wrapOutput,
  type EnvelopeKind,
  type HandlerOutput,
} from "./http/envelope";
import { ownHeaderValueOf } from "./proofs/fetch-policy";
import { OWN_ORIGIN_HEADER } from "./proofs/own-origin";
import { addLogFields, errorFields, log, requestIdFrom, withLogFields } from "./log";

/** Each request's rate budget after it was counted, for its answer's RateLimit header fields. */
const budgetOfRequest = new WeakMap<Request, BudgetState>();

export interface ServiceBindings {
  /** The caller's address, stamped by the server in front of the service (never by the client). */
  clientIp: string;
  /** The request came through a proxy (carried X-Forwarded-For, Forwarded or X-Real-IP), as judged in front of Next. */
  forwarded: boolean;
  /**
   * Node's own request, when a Node server hands the request over (scripts/server.mjs, the test
   * harness): its body is read straight from it. Reading a Request's body builds the whole web
   * Request and two web streams in front of this one, the costliest part of a small write's answer
   * (npm run bench, the writes line). Absent (Next's /v1 route), the Request's body is read.
   */
  incoming?: IncomingMessage;
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
  /** Add a header to the success answer (x402's PAYMENT-RESPONSE). */
  setHeader(name: string, value: string): void;
  /** The request's Idempotency-Key, on a route that takes one (for a handler that keeps it, see ImplementOptions.replayable). */
  idempotencyKey: string | null;
}

/**
 * A verb's answer: the resource for a `{ data }` route, a Page for a `{ data, meta }` list, the whole
 * body otherwise (http/envelope.ts); the router wraps it.
 */
export type Handler<D extends RouteDef> = (args: HandlerArgs<D>) => Promise<HandlerOutput<D>>;

export interface ImplementOptions<D extends RouteDef> {
  /**
   * The answer is the same for everyone who passes this test (e.g. the board's anonymous first page):
   * it is kept for config.sharedCacheMs (≤ 1 s) and served with ETag and Cache-Control, and a
   * matching If-None-Match gets 304. Budgets, validation and the rest of the gate still run.
   */
  sharedCache?: (args: { actor: Actor | null; query: ParsedQuery<D> }) => boolean;
  /**
   * The handler finds what an earlier run with the same Idempotency-Key made (it keeps the key
   * beside its rows), so running it again is safe: a key left pending by a run that never answered
   * (its process died) is run again after IDEMPOTENCY_RESUME_MS instead of answering
   * IDEMPOTENCY_IN_PROGRESS for ever.
   */
  replayable?: boolean;
  /**
   * A read that a replica may answer (the board, the forum, profiles, figures), when the deployment
   * has replicas (ServiceContext.replicas, env DATABASE_REPLICA_URL): unless the caller wrote within
   * the replica bound and no replica holds that write yet (read your writes, see readDbFor), or
   * every replica lags or is down. A handler that writes after all (a rare claim lapse on a job read)
   * is refused by the standby and run again on the primary, as is one whose replica went away.
   */
  replica?: boolean | ((input: { query: ParsedQuery<D> }) => boolean);
}

/**
 * The largest request body. The biggest legitimate one is a job (a 20000-character description,
 * criteria, skills): even with every character JSON-escaped as \uXXXX it stays under this. The
 * server in front of the service knows it too (Expect: 100-continue, lib/net/request-body.mjs).
 */
export { MAX_BODY_BYTES };

/**
 * Binds route definitions of lib/api to domain functions. Every request passes the same gate in the
 * same order: credential, budget, scope, validation, idempotency; then the handler; then the
 * response is parsed with the route's schema before it leaves, so a database shape never leaks.
 */
export class ServiceRouter {
  readonly app: ServiceApp = new Hono<{ Bindings: ServiceBindings }>();

  constructor(readonly ctx: ServiceContext) {
    // Kept API keys are forgotten on every instance at once when any instance changes a key: the
    // event bus's control messages carry it (auth/actor.ts, KeyCache). Listening starts with the
    // first key kept, not here.
    if (ctx.config.keyCacheMs > 0) watchKeyChanges(ctx.db, () => streamHubOf(ctx).bus);
    // First of all: the request gets an id (the client's X-Request-Id when it is plain, else a new
    // one), answered in X-Request-Id and carried by every log line written while it runs.
    this.app.use("*", async (c, next) => {
      const requestId = requestIdFrom(c.req.header("x-request-id"));
      await withLogFields({ requestId }, next);
      c.res.headers.set("X-Request-Id", requestId);
    });
    this.recentWrites = new RecentWrites(ctx.replicas?.options.maxLagMs ?? 0);
    // Every answer names its site, so this app's prober recognises its own pages behind any alias
    // (a name or proxy it cannot see through) and refuses them (proofs/own-origin.ts).
    this.app.use("*", async (c, next) => {
      await next();
      const site = ownHeaderValueOf(ctx.config);
      if (site) c.res.headers.set(OWN_ORIGIN_HEADER, site);
      // The budget the request was counted against, on whatever answer it got (a 429 sets its own).
      const budget = budgetOfRequest.get(c.req.raw);
      if (budget && !c.res.headers.has("ratelimit")) {
        for (const [name, value] of Object.entries(rateLimitHeaders(budget))) c.res.headers.set(name, value);
      }
    });
    this.app.onError((error, c) => errorResponse(error, c));
    // Before anything else, for every request: a declared body over the limit is refused before a
    // byte of it is read, and a path that does not decode is a 400 rather than a raw id.
    this.app.use("*", async (c, next) => {
      const declared = c.req.header("content-length");
      if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) await refuseBody(c.req.raw, Number(declared));
      refuseMalformedPath(new URL(c.req.url).pathname);
      await next();
    });
    this.app.notFound((c) =>
      c.json(new HttpError(404, `Cannot ${c.req.method} ${new URL(c.req.url).pathname}`, "NOT_FOUND").toBody(), 404),
    );
  }

  private readonly sharedCache = new SharedCache();
  /** Each caller's last write in this process (read your writes); kept as long as the replica bound. */
  private readonly recentWrites: RecentWrites;

  /**
   * Read your writes: a caller's write (any method but GET) is remembered by its credential and by
   * its client address (an agent that signs up, then reads with its new key). Its later reads on
   * this instance go to a replica only once that replica has caught up past the write; the load
   * balancer keeps a credential on one instance (docs/deployment.md).
   */
  private writeKeysOf(actor: Actor | null, clientIp: string): string[] {
    const keys = [`ip:${clientKeyOf(clientIp)}`];
    if (actor) keys.push(actor.identityKey);
    return keys;
  }

  /** One context per replica, kept: caches keyed by the context (the stats, the stream fingerprints) keep working. */
  private readonly replicaContexts = new Map<Db, ServiceContext>();
  private replicaContext(db: Db): ServiceContext {
    let found = this.replicaContexts.get(db);
    if (!found) this.replicaContexts.set(db, (found = { ...this.ctx, db }));
    return found;
  }

  /** The database a replica-eligible read runs on: a replica that holds the caller's writes, else the primary. */
  private readDbFor(actor: Actor | null, clientIp: string): Db | null {
    const replicas = this.ctx.replicas;
    if (!replicas) return null;
    return replicas.pick(this.recentWrites.lastOf(this.writeKeysOf(actor, clientIp)));
  }

  implement<D extends RouteDef>(route: D, handler: Handler<D>, options: ImplementOptions<D> = {}): void {
    const method = route.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete";
    const envelope = envelopeKindOf(route.response);
    this.app[method](route.path, async (c) => {
      try {
        return await this.answer(route, envelope, handler, options, c);
      } catch (error) {
        throw withStatus(error, route);
      }
    });
  }

  private async answer<D extends RouteDef>(
    route: D,
    envelope: EnvelopeKind,
    handler: Handler<D>,
    options: ImplementOptions<D>,
    c: Context<{ Bindings: ServiceBindings }>,
  ): Promise<Response> {
    {
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
        await this.consumeRateBudget(route, null, clientIp, c.req.raw);
        throw error;
      }

      if (actor) addLogFields({ actor: actor.kind === "AGENT" ? `agent:${actor.agentId}` : `user:${actor.userId}` });
      await this.consumeRateBudget(route, actor, clientIp, c.req.raw);
      if (route.auth === "required" && !actor) throw unauthorized();
      if (route.scope && actor) requireScope(actor, route.scope);

      const rawParams = c.req.param() as Record<string, string>;
      const rawQuery = strictQueryValues(new URL(c.req.url).search);
      const rawBody = route.body ? await readJsonBody(c.req.raw, c.env?.incoming) : undefined;
      refuseUnsafeText(rawParams, "path");
      refuseUnsafeText(rawQuery, "query");
      refuseUnsafeText(rawBody, "body");

      const params = route.params ? parseOrThrow(route.params, rawParams, "path") : {};
      const query = route.query ? parseOrThrow(route.query, rawQuery, "query") : {};
      const body = route.body ? parseOrThrow(route.body, rawBody, "body") : undefined;

      const key = c.req.header("idempotency-key");
      let status = route.status ?? 200;
      const headers: Record<string, string> = {};
      const args = {
        setHeader: (name: string, value: string) => {
          headers[name] = value;
        },
        idempotencyKey: route.idempotencyKey && key ? key : null,
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

      const replicaAllowed =
        typeof options.replica === "function" ? options.replica({ query: query as ParsedQuery<D> }) : options.replica;
      const replicaDb = replicaAllowed && route.method === "GET" ? this.readDbFor(actor, clientIp) : null;
      const onReplica = async () => {
        if (!replicaDb) return handler(args);
        try {
          return await handler({ ...args, ctx: this.replicaContext(replicaDb) });
        } catch (error) {
          // The standby refused a write (25006 read_only_sql_transaction), or went away: the primary answers.
          const code = (error as { code?: string } | null)?.code;
          if (isDatabaseUnavailable(error))
            ctx.replicas?.markDown(replicaDb, (error as Error).message ?? String(error));
          else if (code !== "25006") throw error;
          return handler(args);
        }
      };
      const run = async () => {
        const output: unknown = await onReplica();
        // A stream (GET /v1/jobs/:id/stream, text/event-stream) is its own answer; it has no JSON to check.
        if (output instanceof Response) return { status, body: output };
        // The full body is checked, kept by the shared cache and stored for idempotent replays, so a
        // replay answers it as it was stored (never wrapped again).
        // The handler may call setStatus: read the status after it ran.
        const body = checkResponse(route, wrapOutput(envelope, output), ctx.config.responseCheckRate);
        return { status, body };
      };

      const cacheMs = ctx.config.sharedCacheMs;
      if (cacheMs > 0 && options.sharedCache?.({ actor, query: query as ParsedQuery<D> })) {
        const key = `${route.method} ${route.path} ${new URL(c.req.url).search}`;
        const entry = await this.sharedCache.get(key, cacheMs, async () => {
          const result = await run();
          return { status: result.status, text: serializeBody(result.body) };
        });
        const headers = {
          etag: entry.etag,
          "cache-control": `public, max-age=${Math.max(1, Math.floor(cacheMs / 1000))}`,
          vary: "Authorization",
        };
        if (matchesEtag(c.req.header("if-none-match"), entry.etag)) return new Response(null, { status: 304, headers });
        return new Response(entry.text, {
          status: entry.status,
          headers: { ...headers, "content-type": "application/json" },
        });
      }

      if (route.idempotencyKey === "required" && !key) throw badRequest(["Idempotency-Key header should not be empty"]);
      const writes = ctx.replicas && route.method !== "GET";
      let result: Awaited<ReturnType<typeof run>>;
      try {
        result =
          route.idempotencyKey && key
            ? await withIdempotency(
                ctx,
                {
                  identity: actor?.identityKey ?? `ip:${clientIp}`,
                  scope: `${route.method} ${route.path}`,
                  key,
                  payload: { params, body },
                  ...(options.replayable ? { resumeAfterMs: IDEMPOTENCY_RESUME_MS } : {}),
                },
                run,
              )
            : await run();
      } finally {
        // Once the write has committed (or failed): the caller's next reads must see it.
        if (writes) this.recentWrites.record(this.writeKeysOf(actor, clientIp));
      }
      if (result.body instanceof Response) return result.body;
      for (const [name, value] of Object.entries(headers)) c.header(name, value);
      if (route.method === "GET" && result.status === 200) return conditionalAnswer(c.req.raw, actor, result.body);
      return c.json(result.body as object, result.status as 200);
    }
  }

  /**
   * Counts the request against its address's budget (every credential from one address together),
   * then against its own (its identity's, or its network's without a credential); its answer then
   * carries the RateLimit header fields of the one nearer to refusing.
   */
  private async consumeRateBudget(route: RouteDef, actor: Actor | null, ip: string, request: Request) {
    const budgets = this.ctx.config.rateBudgets;
    if (route.budget === "none") return;
    // An IPv6 client is its /64 (client-origin.ts): its addresses share one budget.
    const clientIp = clientKeyOf(ip);
    const address = await consumeBudget(
      this.ctx,
      `address:${clientIp}`,
      budgets.addressPerMinute ?? DEFAULT_RATE_BUDGETS.addressPerMinute,
      60,
      RATE_POLICY_NAMES.address,
    );
    let state: BudgetState;
    if (route.budget === "read") {
      if (actor)
        state = await consumeBudget(
          this.ctx,
          `read:${actor.identityKey}`,
          budgets.authReadsPerMinute,
          60,
          RATE_POLICY_NAMES.read,
        );
      else
        state = await consumeBudget(
          this.ctx,
          `read:ip:${clientIp}`,
          budgets.publicReadsPerMinute,
          60,
          RATE_POLICY_NAMES.publicRead,
        );
    } else {
      state = await consumeBudget(
        this.ctx,
        `write:${actor ? actor.identityKey : `ip:${clientIp}`}`,
        budgets.writesPerMinute,
        60,
        RATE_POLICY_NAMES.write,
      );
    }
    budgetOfRequest.set(request, nearestToRefusal(state, address));
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
  // Serialised items (the board's jobs) are checked as the client reads them, and go out as they are.
  const original = output;
  const serialised = holdsJsonText(output);
  if (serialised) output = JSON.parse(serializeBody(output));
  const parsed = route.response.safeParse(output);
  if (!parsed.success) {
    log.error(
      { route: `${route.method} ${route.path}`, issues: parsed.error.issues },
      "response does not match its schema",
    );
    throw new Error("response does not match its schema");
  }
  const difference = jsonDifference(JSON.parse(JSON.stringify(output)), JSON.parse(JSON.stringify(parsed.data)), "");
  if (difference !== null) {
    log.error(
      { route: `${route.method} ${route.path}`, at: difference || "(root)" },
      "response differs from its parsed form",
    );
    if (rate >= 1) throw new Error(`response differs from what its schema produces at ${difference || "(root)"}`);
  } else if (serialised) {
    return original;
  }
  return parsed.data;
}

/** Where two JSON values differ (a path), or null when they are the same (key order aside). */
function jsonDifference(a: unknown, b: unknown, at: string): string | null {
  if (a === b) return null;
  if (
    typeof a !== "object" ||
    typeof b !== "object" ||
    a === null ||
    b === null ||
    Array.isArray(a) !== Array.isArray(b)
  )
    return at;
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

/**
 * Answers kept for a moment; concurrent misses of one key share a single computation. In an
 * answer's last fifth, its first reader starts the next one in the background and is answered with
 * the one still valid: at a steady rate no reader ever waits for a recomputation (those waits were
 * the board's p99 at 500 req/s), and no answer is served past its time. Idle keys still expire and
 * are recomputed by the next reader.
 */
class SharedCache {
  private readonly entries = new Map<string, CachedAnswer>();
  private readonly pending = new Map<string, Promise<CachedAnswer>>();

  async get(
    key: string,
    ttlMs: number,
    compute: () => Promise<{ status: number; text: string }>,
  ): Promise<CachedAnswer> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) {
      if (hit.expires - now < ttlMs / 5 && !this.pending.has(key)) {
        // A failed refresh is not this reader's: the next reader after expiry computes (and fails) in the open.
        this.refresh(key, ttlMs, compute).catch(() => {});
      }
      return hit;
    }
    return this.pending.get(key) ?? this.refresh(key, ttlMs, compute);
  }

  private refresh(
    key: string,
    ttlMs: number,
    compute: () => Promise<{ status: number; text: string }>,
  ): Promise<CachedAnswer> {
    const waiting = compute()
      .then(({ status, text }) => {
        const entry = {
          status,
          text,
          etag: `"${createHash("sha1").update(text).digest("base64url")}"`,
          expires: Date.now() + ttlMs,
        };
        if (this.entries.size > 1000) this.entries.clear();
        this.entries.set(key, entry);
        return entry;
      })
      .finally(() => this.pending.delete(key));
    this.pending.set(key, waiting);
    return waiting;
  }
}

/**
 * A read answered with a validator of its own (conditional requests): the ETag is a digest of who
 * asks, what they asked (path and query) and the exact answer, so it changes whenever the answer
 * does (a change by anyone that shows in it) and differs between callers and between filters, even
 * where the answers happen to be alike. A request whose If-None-Match names it gets 304 and no body:
 * the work of the read is done, the client's download and parse of an unchanged page are saved.
 * Private to the caller: Cache-Control private, no-cache (a shared cache must not keep it, a client
 * revalidates every time), Vary: Authorization.
 */
function conditionalAnswer(request: Request, actor: Actor | null, body: unknown): Response {
  const text = serializeBody(body);
  const url = new URL(request.url);
  const etag = `"${createHash("sha1")
    .update(`${actor?.identityKey ?? "anonymous"}\n${url.pathname}${url.search}\n`)
    .update(text)
    .digest("base64url")}"`;
  const headers = { etag, "cache-control": "private, no-cache", vary: "Authorization" };
  if (matchesEtag(request.headers.get("if-none-match") ?? undefined, etag))
    return new Response(null, { status: 304, headers });
  return new Response(text, { status: 200, headers: { ...headers, "content-type": "application/json" } });
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t === etag || t === `W/${etag}`;
  });
}

/**
 * Refuses a body over the limit with 413, after reading and dropping the rest of it within
 * DRAIN_BYTES and DRAIN_MS (lib/net/request-body.mjs): an answer written while the client is still
 * sending ends in a connection reset that can reach the client before its 413. A client that sent
 * `Expect: 100-continue` got no go-ahead and sends nothing; a body beyond the bounds is not waited
 * for. Either way the answer then closes the connection (the stream is left unread, not cancelled:
 * cancelling would tear the socket down before the 413 could be sent).
 */
async function refuseBody(
  request: Request,
  declared: number | null,
  reader = request.body?.getReader(),
  alreadyRead = 0,
): Promise<never> {
  const sendsNothing = /100-continue/i.test(request.headers.get("expect") ?? "");
  if (!reader || sendsNothing || (declared !== null && declared > DRAIN_BYTES)) {
    reader?.releaseLock();
    throw payloadTooLarge(MAX_BODY_BYTES, true);
  }
  let read = alreadyRead;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), DRAIN_MS)));
  try {
    while (read <= DRAIN_BYTES) {
      const next = await Promise.race([reader.read(), late]);
      if (next === "late") break;
      if (next.done) throw payloadTooLarge(MAX_BODY_BYTES);
      read += next.value.byteLength;
    }
  } finally {
    clearTimeout(timer);
  }
  try {
    reader.releaseLock();
  } catch {
    // A read still pending when the time ran out: the connection closes with the answer anyway.
  }
  throw payloadTooLarge(MAX_BODY_BYTES, true);
}

/**
 * Reads the body through a counter and stops keeping it at MAX_BODY_BYTES + 1, so that a chunked
 * body (no Content-Length) can never make the server hold more than the limit; the rest is dropped
 * by refuseBody. From Node's request when there is one (ServiceBindings.incoming), else from the
 * Request's stream: the same bytes and the same bounds either way.
 */
async function readJsonBody(request: Request, incoming?: IncomingMessage): Promise<unknown> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (incoming) {
    size = await readIncoming(request, incoming, chunks);
  } else if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) await refuseBody(request, null, reader, size);
      chunks.push(value);
    }
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks, size));
  } catch {
    throw badRequest(["body must be valid UTF-8"]);
  }
  if (text.trim() === "") return {};
  // Before JSON.parse: a body of 20,000 "[" is refused in one linear scan, never parsed or walked.
  if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) throw bodyTooDeep(MAX_JSON_DEPTH);
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(["body must be valid JSON"]);
  }
}

/**
 * Node's request body into `chunks`, as readJsonBody reads a Request's: past MAX_BODY_BYTES the
 * listeners come off and refuseBody drops the rest (through a web reader over what is left) and
 * answers 413. Resolves with the size read.
 */
function readIncoming(request: Request, incoming: IncomingMessage, chunks: Uint8Array[]): Promise<number> {
  if (incoming.readableEnded) return Promise.resolve(0);
  return new Promise((resolve, reject) => {
    let size = 0;
    const off = () => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onError);
      incoming.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) {
        off();
        incoming.pause();
        refuseBody(
          request,
          null,
          (Readable.toWeb(incoming) as ReadableStream<Uint8Array<ArrayBuffer>>).getReader(),
          size,
        ).catch(reject);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      off();
      resolve(size);
    };
    const onError = (error: Error) => {
      off();
      reject(error);
    };
    // Closed before its end: the client went away mid-body.
    const onClose = () => {
      off();
      reject(new Error("the request body ended early: the client closed the connection"));
    };
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("error", onError);
    incoming.on("close", onClose);
  });
}

/**
 * A domain error (lib/service/errors.ts) with the status its code answers on this route: the
 * catalogue's, or for a code with several, the one the route declares (domainStatusOf).
 */
function withStatus(error: unknown, route: RouteDef | null): HttpError;
function withStatus(error: unknown, route: RouteDef | null): unknown;
function withStatus(error: unknown, route: RouteDef | null): unknown {
  if (!(error instanceof DomainError) || error instanceof HttpError) return error;
  const status = statusOf(error, route?.errors);
  return new HttpError(status, error.messages, error.code, error.extra as never, error.headers);
}

/**
 * The one mapping of what escaped a handler to an answer. An outage is not a bug: a database that
 * did not answer is 503 SERVICE_UNAVAILABLE with Retry-After (the request may be repeated), an RPC
 * that did not answer is 503 CHAIN_UNAVAILABLE with a short reason (never its URL, which may hold
 * a key). Anything else is a 500. The whole error goes to the server log in every case.
 */
function errorResponse(error: unknown, c: Context) {
  let known: HttpError | null = error instanceof DomainError ? withStatus(error, null) : null;
  if (!known && isDatabaseUnavailable(error)) {
    log.warn(
      { method: c.req.method, path: new URL(c.req.url).pathname, reason: (error as Error).message },
      "the database did not answer",
    );
    known = serviceUnavailable();
  } else if (!known && isChainUnavailable(error)) {
    log.warn(
      { method: c.req.method, path: new URL(c.req.url).pathname, reason: chainFailureReason(error) },
      "the chain did not answer",
    );
    known = new HttpError(
      503,
      `the payment chain could not be reached (${chainFailureReason(error)}); retry later`,
      "CHAIN_UNAVAILABLE",
    );
  }
  if (known) {
    for (const [name, value] of Object.entries(known.headers)) c.header(name, value);
    return c.json(known.toBody(), known.status as 400);
  }
  log.error({ method: c.req.method, path: new URL(c.req.url).pathname, ...errorFields(error) }, "unhandled error");
  return c.json(internalErrorBody(), 500);
}
