import type { Db } from "./db/connection";
import type { ServiceConfig } from "./config";
import type { ChainConfig } from "@/lib/chain/config";
import { HttpError } from "./http/errors";

/** Everything a domain function needs, passed explicitly so tests build their own. */
export interface ServiceContext {
  db: Db;
  config: ServiceConfig;
  now: () => Date;
}

export function requireChain(ctx: ServiceContext): ChainConfig {
  if (!ctx.config.chain) {
    throw new HttpError(503, "no payment chain is configured for this deployment", "CHAIN_UNAVAILABLE");
  }
  return ctx.config.chain;
}

/**
 * A background task of a domain (its worker.ts), run by workers.ts. It lives here, below the
 * domains, so that a domain's worker does not import the module that lists every worker.
 */
export interface Worker {
  name: string;
  /** How often to run, in milliseconds. */
  everyMs: number;
  run(ctx: ServiceContext): Promise<void>;
}
