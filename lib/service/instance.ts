import "server-only";
import type { IncomingMessage } from "node:http";
import path from "node:path";
import { getEnv, siteUrl } from "@/lib/env";
import { loadChainConfig } from "@/lib/chain/config";
import { createServiceApp } from "./app";
import { defaultServiceConfig, DEFAULT_RATE_BUDGETS, type ServiceConfig } from "./config";
import type { ServiceContext } from "./context";
import { openDatabase } from "./db/connection";
import { ReadReplicas } from "./db/replicas";
import type { ServiceApp, ServiceBindings } from "./router";
import { CLIENT_IP_HEADER, FORWARDED_HEADER } from "@/lib/net/client-address.mjs";
import { devOutboxToken, originHashSecret, webhookSecretKey } from "@/lib/server-secrets.mjs";
import { startWorkers, workers } from "./workers";
import { postgresLeadership, SINGLE_PROCESS_LEADERSHIP } from "./worker-leadership";
import { SERVICE_HANDLER_GLOBAL, SERVICE_SHUTDOWN_GLOBAL } from "@/lib/net/service-handler.mjs";
import { log } from "./log";

interface ServiceInstance {
  app: ServiceApp;
  ctx: ServiceContext;
}

// One service per process, kept on globalThis so that Next's module reloading in development does
// not open a second PGlite on the same directory.
const globalForService = globalThis as unknown as {
  __awmService?: Promise<ServiceInstance>;
  [SERVICE_HANDLER_GLOBAL]?: (request: Request, incoming?: IncomingMessage) => Promise<Response>;
  [SERVICE_SHUTDOWN_GLOBAL]?: () => Promise<void>;
};

function configFromEnv(): ServiceConfig {
  const env = getEnv();
  let chain: ServiceConfig["chain"] = null;
  try {
    chain = loadChainConfig(process.env);
  } catch (error) {
    log.warn({ reason: (error as Error).message }, "no payment chain configured");
  }
  if (env.PROBE_ALLOW_LOOPBACK && chain?.network !== "local") {
    log.warn("PROBE_ALLOW_LOOPBACK is ignored: loopback deliverables are allowed only on the local development chain");
  }
  const scale = env.RATE_LIMIT_SCALE;
  return defaultServiceConfig({
    siteUrl: env.SITE_URL ?? siteUrl(env),
    rateBudgets: {
      publicReadsPerMinute: DEFAULT_RATE_BUDGETS.publicReadsPerMinute * scale,
      authReadsPerMinute: DEFAULT_RATE_BUDGETS.authReadsPerMinute * scale,
      writesPerMinute: DEFAULT_RATE_BUDGETS.writesPerMinute * scale,
      addressPerMinute: DEFAULT_RATE_BUDGETS.addressPerMinute * scale,
    },
    // The outbox exists only on the local development chain; elsewhere no file is even created.
    devOutboxToken: chain?.network === "local" ? devOutboxToken(env) : null,
    probeAllowLoopback: env.PROBE_ALLOW_LOOPBACK,
    listen: { host: env.HOST, port: env.PORT },
    smtpUrl: env.SMTP_URL ?? null,
    mailFrom: env.MAIL_FROM,
    chain,
    rewardsAdminAddresses: env.REWARDS_ADMIN_ADDRESSES,
    operatorAddresses: env.OPERATOR_ADDRESSES,
    originHashSecret: originHashSecret(env),
    webhookSecretKey: webhookSecretKey(env),
    rewardsOriginWindowHours: env.REWARDS_ORIGIN_WINDOW_HOURS,
    rewardsMinAccountAgeHours: env.REWARDS_MIN_ACCOUNT_AGE_HOURS,
    disputeAnswerHours: env.DISPUTE_ANSWER_HOURS,
    disputeRulingHours: env.DISPUTE_RULING_HOURS,
    packCooldownBaseSeconds: env.PACK_COOLDOWN_BASE_SECONDS,
    packCooldownMaxSeconds: env.PACK_COOLDOWN_MAX_SECONDS,
    packAttemptsPerGroup: env.PACK_ATTEMPTS_PER_GROUP_PER_DAY,
    // Tests and development check every response; production a sample (router.ts, checkResponse).
    responseCheckRate: env.RESPONSE_CHECK_RATE ?? (env.NODE_ENV === "production" ? 0.01 : 1),
    sharedCacheMs: env.SHARED_CACHE_MS,
    keyCacheMs: env.KEY_CACHE_MS,
    idempotencyLeaseMs: env.IDEMPOTENCY_LEASE_MS,
  });
}

export function getService(): Promise<ServiceInstance> {
  globalForService.__awmService ??= (async () => {
    const env = getEnv();
    if (env.DATABASE_REPLICA_URL.length > 0 && !env.DATABASE_URL) {
      throw new Error("DATABASE_REPLICA_URL needs DATABASE_URL: replicas are standbys of a PostgreSQL primary");
    }
    const preparedStatements = env.DATABASE_PREPARED_STATEMENTS === "on";
    const db = await openDatabase(
      env.DATABASE_URL
        ? { databaseUrl: env.DATABASE_URL, preparedStatements }
        : { dataDir: path.resolve(env.DATA_DIR) },
    );
    // Public reads go to the replicas while they keep up (db/replicas.ts, docs/deployment.md).
    let replicas: ReadReplicas | null = null;
    if (env.DATABASE_REPLICA_URL.length > 0) {
      replicas = new ReadReplicas(db, {
        urls: env.DATABASE_REPLICA_URL,
        maxLagMs: env.REPLICA_MAX_LAG_MS,
        checkEveryMs: env.REPLICA_CHECK_MS,
        preparedStatements,
      });
      await replicas.start();
    }
    const ctx: ServiceContext = { db, config: configFromEnv(), now: () => new Date(), replicas };
    // With PostgreSQL every process of every instance starts the workers, and the database decides
    // which one runs each (worker-leadership.ts); PGlite has one process, which runs them all.
    let stopWorkers = () => {};
    const leadership = env.DATABASE_URL ? postgresLeadership(env.DATABASE_URL) : SINGLE_PROCESS_LEADERSHIP;
    if (env.WORKERS === "on") stopWorkers = startWorkers(ctx, workers, leadership);
    // scripts/server.mjs, on SIGTERM, once the requests in flight are answered: no new rounds, the
    // workers' leads handed back (their session ends), then the pools closed.
    globalForService[SERVICE_SHUTDOWN_GLOBAL] = async () => {
      stopWorkers();
      await ctx.streams?.close().catch(() => {});
      await leadership.close().catch(() => {});
      await replicas?.close().catch(() => {});
      await db.destroy().catch(() => {});
    };
    try {
      return { app: createServiceApp(ctx), ctx };
    } catch (error) {
      // A configuration the service refuses (createServiceApp's startup checks: the escrow windows):
      // said once, plainly, in the log; every /v1 request then fails with it until it is fixed.
      stopWorkers();
      log.fatal({ reason: (error as Error).message }, "the service refuses to start");
      throw error;
    }
  })();
  return globalForService.__awmService;
}

/**
 * Who is calling, as scripts/server.mjs stamped it on the raw request (lib/net/client-address.mjs).
 * Without its stamp (e.g. `next dev`) the request counts as proxied, so the outbox stays closed.
 */
export function clientOf(request: Request): ServiceBindings {
  return {
    clientIp: request.headers.get(CLIENT_IP_HEADER) ?? "unknown",
    forwarded: request.headers.get(FORWARDED_HEADER) !== "0",
  };
}

/** One /v1 request, answered by this process's service: the Next route's body. */
export async function handleServiceRequest(request: Request): Promise<Response> {
  const { app } = await getService();
  return app.fetch(request, clientOf(request));
}

// scripts/server.mjs answers /v1 itself, ahead of Next's routing, once the build's /v1 route has
// loaded this module in its process (lib/net/service-handler.mjs says why it is done this way); it
// hands over Node's request too, whose body the service then reads directly (ServiceBindings.incoming).
globalForService[SERVICE_HANDLER_GLOBAL] = async (request: Request, incoming?: IncomingMessage) => {
  const { app } = await getService();
  return app.fetch(request, { ...clientOf(request), ...(incoming ? { incoming } : {}) });
};
