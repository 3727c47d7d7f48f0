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
  /** The public site URL: configured, or the origin this request came to. */
  siteUrl: string;
  /** Answer with another status than the route's (one of its otherStatuses), with the same response schema. */
  setStatus(status: number): void;
}

export type Handler<D extends RouteDef> = (args: HandlerArgs<D>) => Promise<RouteOutput<D>>;

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

  implement<D extends RouteDef>(route: D, handler: Handler<D>): void {
    const method = route.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete";
    this.app[method](route.path, async (c) => {
      const ctx = this.ctx;
      const clientIp = c.env?.clientIp ?? "unknown";
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
        siteUrl: ctx.config.siteUrl ?? new URL(c.req.url).origin,
      } as unknown as HandlerArgs<D>;

      const run = async () => {
        const output = await handler(args);
        const parsed = route.response.safeParse(output);
        if (!parsed.success) {
          console.error(`[service] ${route.method} ${route.path}: response does not match its schema`, parsed.error.issues);
          throw new Error("response does not match its schema");
        }
        return { status, body: parsed.data };
      };

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

