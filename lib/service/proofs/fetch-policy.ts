import { fail } from "../errors";
import type { ServiceConfig } from "../config";
import type { CodeWithStatus } from "@/lib/api/schemas/errors";
import { ownOriginHeaderValue, ownOriginOf, ownUrlReason, type OwnOrigin } from "./own-origin";

/**
 * The fetch policy of this service, from its settings: every outbound fetch of a URL a stranger
 * chose (the deliverable probe, criteria checks) passes these options to safeFetch, and every such
 * URL accepted up front is screened with refuseOwnUrl. One home, so the rules cannot drift apart.
 */

export interface ServiceFetchPolicy {
  /**
   * Loopback addresses are reachable only on the local development chain AND with
   * probeAllowLoopback: a setting alone (PROBE_ALLOW_LOOPBACK left on in a real deployment) never
   * opens loopback to the prober.
   */
  allowLoopback: boolean;
  ownOrigin: OwnOrigin;
}

/** The site this app answers as: SITE_URL, else its listen socket; null when neither is known. */
export function ownSiteOf(config: Pick<ServiceConfig, "siteUrl" | "listen">): string | null {
  if (config.siteUrl) return config.siteUrl;
  if (!config.listen) return null;
  const host = config.listen.host.includes(":") ? `[${config.listen.host}]` : config.listen.host;
  return `http://${host}:${config.listen.port}`;
}

/** The value of OWN_ORIGIN_HEADER this app sends (null: none). */
export function ownHeaderValueOf(config: Pick<ServiceConfig, "siteUrl" | "listen">): string | null {
  const site = ownSiteOf(config);
  return site ? ownOriginHeaderValue(site) : null;
}

export function serviceFetchPolicy(
  config: Pick<ServiceConfig, "siteUrl" | "listen" | "probeAllowLoopback" | "chain">,
): ServiceFetchPolicy {
  return {
    allowLoopback: config.probeAllowLoopback && config.chain?.network === "local",
    ownOrigin: {
      ...ownOriginOf({ siteUrl: config.siteUrl, listen: config.listen }),
      headerValue: ownHeaderValueOf(config),
    },
  };
}

/**
 * Refuses up front (400 with `code`) a URL that names this marketplace itself: its site, any
 * `localhost`, or its own listen address and port by any spelling. Redirects and names that
 * resolve here are refused by safeFetch at fetch time.
 */
export function refuseOwnUrl(
  config: Parameters<typeof serviceFetchPolicy>[0],
  url: string,
  code: CodeWithStatus<400>,
  what: string,
): void {
  const reason = ownUrlReason(url, serviceFetchPolicy(config).ownOrigin);
  if (reason) throw fail(code, [`${what} must not point at this marketplace itself: ${reason}`]);
}
