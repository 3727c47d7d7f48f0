import { describe, expect, it } from "vitest";
import type { ChainConfig } from "@/lib/chain/config";
import { defaultServiceConfig, type ServiceConfig } from "../config";
import { refusalOf } from "../testing/rule-refusal";
import { ownHeaderValueOf, ownSiteOf, refuseOwnUrl, serviceFetchPolicy } from "./fetch-policy";

// The service's fetch policy from its settings (docs/testing.md, "The pyramid"): pure, no network.
// What safeFetch does with it on every hop is tested against real servers in safe-fetch.test.ts and
// own-origin.test.ts.

const chainOn = (network: ChainConfig["network"]) => ({ network }) as ChainConfig;
const config = (over: Partial<ServiceConfig> = {}) => defaultServiceConfig(over);

describe("ownSiteOf and ownHeaderValueOf", () => {
  it.each<[string, Partial<ServiceConfig>, string | null, string | null]>([
    [
      "SITE_URL wins over the socket",
      { siteUrl: "https://work.example/app/", listen: { host: "127.0.0.1", port: 3000 } },
      "https://work.example/app/",
      "https://work.example",
    ],
    [
      "the listen socket, IPv4",
      { listen: { host: "127.0.0.1", port: 3000 } },
      "http://127.0.0.1:3000",
      "http://127.0.0.1:3000",
    ],
    [
      "the listen socket, IPv6 in brackets",
      { listen: { host: "::1", port: 3000 } },
      "http://[::1]:3000",
      "http://[::1]:3000",
    ],
    ["neither known", {}, null, null],
  ])("%s", (_what, over, site, header) => {
    expect(ownSiteOf(config(over))).toBe(site);
    expect(ownHeaderValueOf(config(over))).toBe(header);
  });
});

describe("serviceFetchPolicy: loopback only on the local chain and with the setting", () => {
  it.each<[boolean, ChainConfig["network"] | null, boolean]>([
    [true, "local", true],
    [false, "local", false],
    // PROBE_ALLOW_LOOPBACK left on in a real deployment opens nothing.
    [true, "base", false],
    [true, "base-sepolia", false],
    [true, null, false],
    [false, null, false],
  ])("setting %s on chain %s: loopback %s", (setting, network, allowed) => {
    const policy = serviceFetchPolicy(
      config({ probeAllowLoopback: setting, chain: network ? chainOn(network) : null }),
    );
    expect(policy.allowLoopback).toBe(allowed);
  });

  it("knows the app by its site's name and port, its listen port, and the header it sends", () => {
    const { ownOrigin } = serviceFetchPolicy(
      config({ siteUrl: "https://Work.Example/", listen: { host: "127.0.0.1", port: 3000 } }),
    );
    expect(ownOrigin).toEqual({
      hostnames: ["work.example"],
      ports: [443, 3000],
      addresses: ["127.0.0.1"],
      headerValue: "https://work.example",
    });
  });
});

describe("refuseOwnUrl", () => {
  const app = config({ siteUrl: "https://work.example", listen: { host: "127.0.0.1", port: 3000 } });
  const check = (url: string) => refusalOf(() => refuseOwnUrl(app, url, "DELIVERABLE_URL_NOT_ALLOWED", "outputUrl"));

  it.each([
    ["the site itself", "https://work.example/jobs/1"],
    ["the site on another port", "http://work.example:8080/"],
    ["the site's name in capitals with a trailing dot", "https://WORK.EXAMPLE./"],
    ["localhost on any port", "http://localhost:9999/"],
    ["a name under localhost", "http://app.localhost/"],
    ["loopback on the app's port", "http://127.0.0.1:3000/"],
    ["loopback spelled short", "http://127.1:3000/"],
    ["loopback as one number", "http://2130706433:3000/"],
    ["IPv6 loopback on the app's port", "http://[::1]:3000/"],
    ["IPv4-mapped loopback on the app's port", "http://[::ffff:127.0.0.1]:3000/"],
    ["the unspecified address on the site's port", "https://0.0.0.0/"],
  ])("refuses %s (400 with the caller's code, naming the field)", (_what, url) => {
    const refusal = check(url);
    expect(refusal?.code).toBe("DELIVERABLE_URL_NOT_ALLOWED");
    expect(refusal?.messages).toHaveLength(1);
    expect(refusal?.messages[0]).toMatch(/^outputUrl must not point at this marketplace itself: /);
  });

  it.each([
    ["another site", "https://example.org/report"],
    ["a subdomain of the site (another host)", "https://docs.work.example/"],
    ["loopback on a port the app does not use", "http://127.0.0.1:4000/"],
    ["another address on the app's port", "http://192.0.2.10:3000/"],
    // Not http(s), or not a URL: other rules refuse them, not this one.
    ["an ftp URL", "ftp://localhost/"],
    ["not a URL", "not a url"],
  ])("lets %s through", (_what, url) => {
    expect(check(url)).toBeNull();
  });

  it("without a site URL or socket still refuses localhost, and nothing else by address", () => {
    const unknown = config();
    expect(refusalOf(() => refuseOwnUrl(unknown, "http://localhost/", "WEBHOOK_URL_NOT_ALLOWED", "url"))?.code).toBe(
      "WEBHOOK_URL_NOT_ALLOWED",
    );
    expect(
      refusalOf(() => refuseOwnUrl(unknown, "http://127.0.0.1:3000/", "WEBHOOK_URL_NOT_ALLOWED", "url")),
    ).toBeNull();
  });
});
