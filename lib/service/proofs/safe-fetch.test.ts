import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import zlib from "node:zlib";

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { classifyAddress } from "./address-policy";
import { buildRequestOptions, checkUrlShape, safeFetch, type SafeFetchOptions } from "./safe-fetch";
import { OWN_ORIGIN_HEADER, ownOriginOf } from "./own-origin";
import {
  FAKE_PUBLIC_IP,
  guardDial,
  startOrigin,
  startTrap,
  tableResolver,
  type Origin,
  type Trap,
} from "../testing/proofs-support";

let trap: Trap;
let origin: Origin;
const bomb = zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024));

beforeAll(async () => {
  trap = await startTrap();
  origin = await startOrigin((req, res) => {
    const url = new URL(req.url ?? "/", "http://origin.example");
    switch (url.pathname) {
      case "/ok":
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("hello from origin");
        return;
      case "/redirect":
        res.writeHead(302, { location: url.searchParams.get("to") ?? "/ok" }).end();
        return;
      case "/chain": {
        const n = Number(url.searchParams.get("n"));
        if (n > 0) res.writeHead(302, { location: `/chain?n=${n - 1}` }).end();
        else res.writeHead(200, { "content-type": "text/plain" }).end("end of chain");
        return;
      }
      case "/never":
        return; // accepts, never answers
      case "/stall":
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("the beginning, and then nothing");
        return;
      case "/big":
        res.writeHead(200, { "content-type": "text/plain" }).end("a".repeat(1024 * 1024));
        return;
      case "/gzip":
        res
          .writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" })
          .end(zlib.gzipSync("<p>compressed hello</p>"));
        return;
      case "/bomb":
        res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" }).end(bomb);
        return;
      case "/binary":
        res.writeHead(200, { "content-type": "application/octet-stream" }).end(Buffer.from([0, 1, 2, 3]));
        return;
      case "/own-header":
        res
          .writeHead(200, { "content-type": "text/plain", [OWN_ORIGIN_HEADER]: "https://market.example.test" })
          .end("a page of the app");
        return;
      case "/untyped-binary":
        res.writeHead(200).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]));
        return;
      default:
        res.writeHead(404).end("no such path");
    }
  });
});

afterAll(async () => {
  await origin.close();
  await trap.close();
});

let trapHitsBefore = 0;
beforeEach(() => {
  origin.reset();
  trapHitsBefore = trap.hits();
});

// The trap must never see a connection, whatever the test.
afterEach(async () => {
  await new Promise((r) => setTimeout(r, 5));
  expect(trap.hits() - trapHitsBefore, "connections that reached the trap").toBe(0);
});

/** Options as production would use them, plus the guard dial (see testing/proofs-support.ts). */
function opts(extra: Partial<SafeFetchOptions> = {}, table: Parameters<typeof tableResolver>[0] = {}) {
  const resolver = tableResolver({ "origin.example": [FAKE_PUBLIC_IP], ...table });
  const options: SafeFetchOptions = {
    resolve: resolver.resolve,
    dial: guardDial(origin, trap),
    timeoutMs: 2_000,
    connectTimeoutMs: 1_000,
    ...extra,
  };
  return { options, calls: resolver.calls };
}

describe("SSRF payloads are refused before any connection", () => {
  const T = () => trap.port;
  const T6 = () => trap.port6;
  // [payload, failure code, reason pattern, resolver table]
  const payloads: [string, () => string, string, RegExp, Record<string, string[]>?][] = [
    ["loopback literal", () => `http://127.0.0.1:${T()}/`, "ADDRESS", /127\.0\.0\.1 is loopback/],
    ["loopback elsewhere in 127/8", () => `http://127.8.9.10:${T()}/`, "ADDRESS", /loopback/],
    ["decimal IPv4", () => `http://2130706433:${T()}/`, "ADDRESS", /127\.0\.0\.1 is loopback/],
    ["hex IPv4", () => `http://0x7f000001:${T()}/`, "ADDRESS", /127\.0\.0\.1 is loopback/],
    ["octal IPv4", () => `http://0177.0.0.1:${T()}/`, "ADDRESS", /127\.0\.0\.1 is loopback/],
    ["mixed hex short form", () => `http://0x7f.1:${T()}/`, "ADDRESS", /127\.0\.0\.1 is loopback/],
    ["short form 127.1", () => `http://127.1:${T()}/`, "ADDRESS", /127\.0\.0\.1 is loopback/],
    ["short form 0", () => `http://0:${T()}/`, "ADDRESS", /0\.0\.0\.0 is unspecified/],
    ["0.0.0.0", () => `http://0.0.0.0:${T()}/`, "ADDRESS", /unspecified/],
    ["IPv6 loopback", () => `http://[::1]:${T6()}/`, "ADDRESS", /::1 is loopback/],
    ["IPv6 unspecified", () => `http://[::]:${T6()}/`, "ADDRESS", /unspecified/],
    [
      "IPv4-mapped dotted",
      () => `http://[::ffff:127.0.0.1]:${T()}/`,
      "ADDRESS",
      /maps to IPv4 and address 127\.0\.0\.1 is loopback/,
    ],
    ["IPv4-mapped hex", () => `http://[::ffff:7f00:1]:${T()}/`, "ADDRESS", /127\.0\.0\.1 is loopback/],
    ["IPv4-mapped long form", () => `http://[0:0:0:0:0:ffff:127.0.0.1]:${T()}/`, "ADDRESS", /127\.0\.0\.1 is loopback/],
    ["IPv4-mapped private", () => `http://[::ffff:a00:1]:${T()}/`, "ADDRESS", /10\.0\.0\.1 is private/],
    ["SIIT ::ffff:0:0:0/96", () => `http://[::ffff:0:7f00:1]:${T()}/`, "ADDRESS", /127\.0\.0\.1 is loopback/],
    ["IPv4-compatible ::127.0.0.1", () => `http://[::127.0.0.1]:${T()}/`, "ADDRESS", /not a global unicast/],
    ["unique-local fc00::", () => `http://[fc00::1]:${T6()}/`, "ADDRESS", /unique-local/],
    ["unique-local fd00::/8", () => `http://[fd12:3456:789a::1]/`, "ADDRESS", /unique-local/],
    ["link-local fe80::", () => `http://[fe80::1]:${T6()}/`, "ADDRESS", /link-local/],
    ["site-local fec0::", () => `http://[fec0::1]/`, "ADDRESS", /site-local/],
    ["IPv6 multicast", () => `http://[ff02::1]/`, "ADDRESS", /multicast/],
    ["IPv6 documentation", () => `http://[2001:db8::1]/`, "ADDRESS", /reserved/],
    [
      "6to4 embedding loopback",
      () => `http://[2002:7f00:1::1]/`,
      "ADDRESS",
      /6to4 and address 127\.0\.0\.1 is loopback/,
    ],
    ["6to4 embedding private", () => `http://[2002:a00:1::1]/`, "ADDRESS", /6to4 and address 10\.0\.0\.1 is private/],
    ["NAT64 embedding loopback", () => `http://[64:ff9b::7f00:1]/`, "ADDRESS", /NAT64 and address 127\.0\.0\.1/],
    ["NAT64 embedding metadata", () => `http://[64:ff9b::a9fe:a9fe]/`, "ADDRESS", /169\.254\.169\.254/],
    ["Teredo", () => `http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/`, "ADDRESS", /Teredo.*127\.0\.0\.1/],
    [
      "cloud metadata",
      () => "http://169.254.169.254/latest/meta-data/",
      "ADDRESS",
      /169\.254\.169\.254 is link-local \(the cloud metadata service\)/,
    ],
    ["metadata over https", () => "https://169.254.169.254/", "ADDRESS", /metadata/],
    ["metadata IPv4-mapped", () => "http://[::ffff:169.254.169.254]/", "ADDRESS", /169\.254\.169\.254/],
    ["metadata decimal", () => "http://2852039166/", "ADDRESS", /169\.254\.169\.254/],
    ["link-local v4", () => `http://169.254.1.1:${T()}/`, "ADDRESS", /link-local/],
    ["10/8", () => `http://10.0.0.1:${T()}/`, "ADDRESS", /10\.0\.0\.1 is private/],
    ["10/8 top", () => "http://10.255.255.255/", "ADDRESS", /private/],
    ["172.16/12", () => `http://172.16.0.1:${T()}/`, "ADDRESS", /172\.16\.0\.1 is private/],
    ["172.16/12 top", () => "http://172.31.255.254/", "ADDRESS", /private/],
    ["192.168/16", () => `http://192.168.1.1:${T()}/`, "ADDRESS", /192\.168\.1\.1 is private/],
    ["CGNAT 100.64/10", () => `http://100.64.0.1:${T()}/`, "ADDRESS", /carrier-grade NAT/],
    ["CGNAT top", () => "http://100.127.255.254/", "ADDRESS", /carrier-grade NAT/],
    ["broadcast", () => "http://255.255.255.255/", "ADDRESS", /broadcast/],
    ["multicast 224.x", () => "http://224.0.0.1/", "ADDRESS", /multicast/],
    ["multicast SSDP", () => "http://239.255.255.250:1900/", "ADDRESS", /multicast/],
    ["reserved 240/4", () => "http://240.0.0.1/", "ADDRESS", /reserved/],
    ["TEST-NET-1", () => "http://192.0.2.1/", "ADDRESS", /reserved/],
    ["benchmarking 198.18/15", () => "http://198.18.0.1/", "ADDRESS", /reserved/],
    ["file:", () => "file:///etc/passwd", "SCHEME", /scheme "file" is not allowed/],
    ["ftp:", () => "ftp://example.com/pub/", "SCHEME", /scheme "ftp"/],
    ["gopher:", () => `gopher://127.0.0.1:${T()}/_GET`, "SCHEME", /scheme "gopher"/],
    ["dict:", () => `dict://127.0.0.1:${T()}/info`, "SCHEME", /scheme "dict"/],
    ["data:", () => "data:text/html,<h1>hi</h1>", "SCHEME", /scheme "data"/],
    ["javascript:", () => "javascript:alert(1)", "SCHEME", /scheme "javascript"/],
    ["userinfo trick", () => `http://good.com@127.0.0.1:${T()}/`, "USERINFO", /user name or password/],
    ["userinfo with password", () => "http://user:pass@origin.example/ok", "USERINFO", /user name or password/],
    ["localhost by name", () => `http://localhost:${T()}/`, "HOST_NAME", /local-network name/],
    ["localhost with trailing dot", () => `http://LOCALHOST.:${T()}/`, "HOST_NAME", /local-network name/],
    ["subdomain of localhost", () => `http://app.localhost:${T()}/`, "HOST_NAME", /local-network name/],
    [
      "metadata.google.internal",
      () => "http://metadata.google.internal/computeMetadata/v1/",
      "HOST_NAME",
      /\.internal/,
      { "metadata.google.internal": ["169.254.169.254"] },
    ],
    ["single-label host", () => `http://wiki:${T()}/`, "HOST_NAME", /not a fully qualified/, { wiki: ["10.1.2.3"] }],
    [
      "name resolving to loopback",
      () => `http://evil.example:${T()}/`,
      "ADDRESS",
      /evil\.example resolves to a refused address: address 127\.0\.0\.1 is loopback/,
      { "evil.example": ["127.0.0.1"] },
    ],
    [
      "nip.io style name",
      () => `http://127.0.0.1.nip.io:${T()}/`,
      "ADDRESS",
      /loopback/,
      { "127.0.0.1.nip.io": ["127.0.0.1"] },
    ],
    [
      "metadata alias name",
      () => "http://metadata.example.com/latest/",
      "ADDRESS",
      /169\.254\.169\.254/,
      { "metadata.example.com": ["169.254.169.254"] },
    ],
    [
      "mixed public + private",
      () => `http://mixed.example:${T()}/`,
      "ADDRESS",
      /10\.0\.0\.1 is private/,
      { "mixed.example": [FAKE_PUBLIC_IP, "10.0.0.1"] },
    ],
    [
      "mixed public + ::1",
      () => `http://mixed6.example:${T()}/`,
      "ADDRESS",
      /::1 is loopback/,
      { "mixed6.example": [FAKE_PUBLIC_IP, "::1"] },
    ],
    [
      "name resolving to mapped loopback",
      () => `http://mapped.example:${T()}/`,
      "ADDRESS",
      /127\.0\.0\.1 is loopback/,
      { "mapped.example": ["::ffff:127.0.0.1"] },
    ],
    [
      "name resolving to fd00::",
      () => "http://ula.example/",
      "ADDRESS",
      /unique-local/,
      { "ula.example": ["fd00::1"] },
    ],
    [
      "resolver returning a decimal spelling",
      () => `http://odd.example:${T()}/`,
      "ADDRESS",
      /127\.0\.0\.1 is loopback/,
      { "odd.example": ["2130706433"] },
    ],
    [
      "resolver returning garbage",
      () => "http://junk.example/",
      "ADDRESS",
      /not an IP address/,
      { "junk.example": ["not-an-ip"] },
    ],
    ["SMTP port", () => "http://origin.example:25/", "PORT", /port 25 is reserved/],
    ["SSH port", () => "http://origin.example:22/", "PORT", /port 22/],
  ];

  it("has a table of at least 40 payloads", () => {
    expect(payloads.length).toBeGreaterThanOrEqual(40);
  });

  it.each(payloads)("%s", async (_name, payload, code, reason, table) => {
    const { options } = opts({}, table ?? {});
    const result = await safeFetch(payload(), options);
    expect(result).toMatchObject({ ok: false, kind: "BLOCKED", code });
    if (!result.ok) expect(result.reason).toMatch(reason);
    expect(origin.requests()).toEqual([]);
  });

  it("does not consult the resolver for literal addresses or refused names", async () => {
    const { options, calls } = opts();
    for (const url of [
      `http://2130706433:${T()}/`,
      `http://localhost:${T()}/`,
      "http://origin.example:25/",
      "file:///x",
    ]) {
      await safeFetch(url, options);
    }
    expect(calls).toEqual([]);
  });
});

describe("redirect targets are judged before they are contacted", () => {
  // The origin passes as a public host (origin.example -> FAKE_PUBLIC_IP, dialled to loopback)
  // with allowLoopback OFF, so every loopback spelling below is judged by the production policy.
  const targets: [string, () => string, RegExp][] = [
    ["127.0.0.1", () => `http://127.0.0.1:${trap.port}/`, /127\.0\.0\.1 is loopback/],
    ["decimal", () => `http://2130706433:${trap.port}/`, /loopback/],
    ["octal", () => `http://0177.0.0.1:${trap.port}/`, /loopback/],
    ["[::1]", () => `http://[::1]:${trap.port6}/`, /::1 is loopback/],
    ["[::ffff:7f00:1]", () => `http://[::ffff:7f00:1]:${trap.port}/`, /127\.0\.0\.1 is loopback/],
    ["10.0.0.1", () => `http://10.0.0.1:${trap.port}/`, /10\.0\.0\.1 is private/],
    ["[::ffff:a00:1]", () => `http://[::ffff:a00:1]:${trap.port}/`, /10\.0\.0\.1 is private/],
    ["192.168.0.1", () => "http://192.168.0.1/", /private/],
    ["172.16.5.4", () => "http://172.16.5.4/", /private/],
    ["100.64.0.1", () => "http://100.64.0.1/", /carrier-grade/],
    ["metadata", () => "http://169.254.169.254/latest/meta-data/iam/", /metadata/],
    ["[fc00::1]", () => `http://[fc00::1]:${trap.port6}/`, /unique-local/],
    ["[fe80::1]", () => `http://[fe80::1]:${trap.port6}/`, /link-local/],
    ["0.0.0.0", () => `http://0.0.0.0:${trap.port}/`, /unspecified/],
    ["localhost", () => `http://localhost:${trap.port}/`, /local-network name/],
    ["protocol-relative", () => `//127.0.0.1:${trap.port}/`, /loopback/],
    ["name to loopback", () => `http://evil.example:${trap.port}/`, /loopback/],
    ["file:", () => "file:///etc/passwd", /scheme "file"/],
    ["gopher:", () => `gopher://127.0.0.1:${trap.port}/`, /scheme "gopher"/],
    ["userinfo", () => `http://origin.example@127.0.0.1:${trap.port}/`, /user name or password/],
  ];

  it.each(targets)("redirect to %s is refused", async (_name, target, reason) => {
    const { options } = opts({}, { "evil.example": ["127.0.0.1"] });
    const result = await safeFetch(`http://origin.example/redirect?to=${encodeURIComponent(target())}`, options);
    expect(result).toMatchObject({ ok: false, kind: "BLOCKED" });
    if (result.ok) return;
    expect(result.reason).toMatch(/^the redirect to .* was refused: /);
    expect(result.reason).toMatch(reason);
    expect(result.redirects).toHaveLength(1);
    expect(origin.requests()).toHaveLength(1);
  });

  it("with allowLoopback, a loopback origin still cannot redirect to other private forms", async () => {
    for (const target of [
      "http://10.0.0.1/",
      "http://[::ffff:a00:1]/",
      "http://[::ffff:7f00:1]/",
      "http://0.0.0.0/",
      "http://169.254.169.254/",
    ]) {
      const { options } = opts({ allowLoopback: true });
      const result = await safeFetch(origin.url(`/redirect?to=${encodeURIComponent(target)}`), options);
      expect(result, target).toMatchObject({ ok: false, kind: "BLOCKED", code: "ADDRESS" });
    }
  });

  it("follows 5 redirects", async () => {
    const { options } = opts();
    const result = await safeFetch("http://origin.example/chain?n=5", options);
    expect(result).toMatchObject({
      ok: true,
      status: 200,
      text: "end of chain",
      finalUrl: "http://origin.example/chain?n=0",
    });
    if (result.ok) expect(result.redirects).toHaveLength(5);
  });

  it("refuses a chain of 6 without making the 7th request", async () => {
    const { options } = opts();
    const result = await safeFetch("http://origin.example/chain?n=6", options);
    expect(result).toMatchObject({ ok: false, kind: "BLOCKED", code: "REDIRECT_LIMIT" });
    if (!result.ok) expect(result.reason).toMatch(/more than 5 times/);
    expect(origin.requests()).toHaveLength(6);
  });

  it("re-resolves each hop: a name that rebinds between hops is refused", async () => {
    let n = 0;
    const { options } = opts({}, { "rebind.example": () => (n++ === 0 ? [FAKE_PUBLIC_IP] : ["127.0.0.1"]) });
    const result = await safeFetch(
      `http://rebind.example/redirect?to=${encodeURIComponent(`http://rebind.example:${trap.port}/`)}`,
      options,
    );
    expect(result).toMatchObject({ ok: false, kind: "BLOCKED", code: "ADDRESS" });
    expect(n).toBe(2);
  });
});

describe("DNS rebinding cannot move the socket", () => {
  it("resolves once and connects to the validated address", async () => {
    let n = 0;
    const { options, calls } = opts({}, { "rebind.example": () => (n++ === 0 ? [FAKE_PUBLIC_IP] : ["127.0.0.1"]) });
    const result = await safeFetch("http://rebind.example/ok", options);
    expect(result).toMatchObject({ ok: true, status: 200, text: "hello from origin" });
    expect(calls).toEqual(["rebind.example"]);
  });

  it("pins host, Host header, TLS name and lookup to the validated address", async () => {
    const shape = checkUrlShape("https://rebind.example:8443/a?b=1");
    if (!shape.ok) throw new Error("shape");
    const request = buildRequestOptions(shape, "203.0.114.7", 4, {});
    expect(request).toMatchObject({
      host: "203.0.114.7",
      port: 8443,
      path: "/a?b=1",
      servername: "rebind.example",
      agent: false,
    });
    expect(request.headers).toMatchObject({ Host: "rebind.example:8443" });
    const answer = await new Promise<unknown>((resolve) =>
      request.lookup!("anything.else", { all: true }, (_e: unknown, a: unknown) => resolve(a)),
    );
    expect(answer).toEqual([{ address: "203.0.114.7", family: 4 }]);
  });
});

describe("allowLoopback", () => {
  it("permits 127.0.0.0/8 and ::1 and nothing else", () => {
    const allow = { allowLoopback: true };
    expect(classifyAddress("127.0.0.1", allow).allowed).toBe(true);
    expect(classifyAddress("127.3.2.1", allow).allowed).toBe(true);
    expect(classifyAddress("::1", allow).allowed).toBe(true);
    for (const a of ["10.0.0.1", "0.0.0.0", "::ffff:127.0.0.1", "169.254.169.254", "fd00::1", "192.168.0.1", "::"]) {
      expect(classifyAddress(a, allow).allowed, a).toBe(false);
    }
    expect(classifyAddress(FAKE_PUBLIC_IP).allowed).toBe(true);
    expect(classifyAddress("2606:4700::1111").allowed).toBe(true);
    expect(classifyAddress("64:ff9b::5db8:d70e")).toMatchObject({ allowed: true });
    expect(classifyAddress("::ffff:93.184.215.14")).toEqual({ allowed: true, address: FAKE_PUBLIC_IP, family: 4 });
  });

  it("reaches a loopback server without the dial seam", async () => {
    const result = await safeFetch(origin.url("/ok"), { allowLoopback: true, timeoutMs: 2_000 });
    expect(result).toMatchObject({
      ok: true,
      status: 200,
      contentType: "text/plain",
      text: "hello from origin",
      redirects: [],
    });
  });
});

describe("reading", () => {
  it("stops reading after 256 KiB", async () => {
    const { options } = opts();
    const result = await safeFetch("http://origin.example/big", options);
    expect(result).toMatchObject({ ok: true, truncated: true });
    if (result.ok) expect(result.text).toHaveLength(256 * 1024);
  });

  it("decompresses gzip and caps decompressed bytes of a bomb", async () => {
    const { options } = opts();
    const small = await safeFetch("http://origin.example/gzip", options);
    expect(small).toMatchObject({ ok: true, text: "<p>compressed hello</p>", truncated: false });
    const big = await safeFetch("http://origin.example/bomb", options);
    expect(big).toMatchObject({ ok: true, truncated: true });
    if (big.ok) expect(big.text).toHaveLength(256 * 1024);
  });

  it("does not read binary content as text", async () => {
    const { options } = opts();
    expect(await safeFetch("http://origin.example/binary", options)).toMatchObject({
      ok: true,
      contentType: "application/octet-stream",
      text: null,
    });
    expect(await safeFetch("http://origin.example/untyped-binary", options)).toMatchObject({
      ok: true,
      contentType: null,
      text: null,
    });
  });
});

describe("inconclusive outcomes", () => {
  it("times out a server that never answers", async () => {
    const { options } = opts({ timeoutMs: 300 });
    const started = Date.now();
    const result = await safeFetch("http://origin.example/never", options);
    expect(result).toMatchObject({ ok: false, kind: "INCONCLUSIVE", code: "TIMEOUT" });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("times out a body that stalls after the headers", async () => {
    const { options } = opts({ timeoutMs: 300 });
    expect(await safeFetch("http://origin.example/stall", options)).toMatchObject({
      ok: false,
      kind: "INCONCLUSIVE",
      code: "TIMEOUT",
    });
  });

  it("times out a connection whose TLS handshake never completes", async () => {
    const silent = await startTrap();
    try {
      const { options } = opts({ connectTimeoutMs: 200, dial: guardDial({ port: silent.port }, trap) });
      const result = await safeFetch("https://origin.example/", options);
      expect(result).toMatchObject({ ok: false, kind: "INCONCLUSIVE", code: "TIMEOUT" });
      if (!result.ok) expect(result.reason).toBe("could not connect to origin.example within 0.2 s");
      expect(silent.hits()).toBe(1);
    } finally {
      await silent.close();
    }
  });

  it("stops when the caller cancels", async () => {
    const controller = new AbortController();
    const { options } = opts({ signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(await safeFetch("http://origin.example/never", options)).toMatchObject({
      ok: false,
      kind: "INCONCLUSIVE",
      code: "ABORTED",
    });
  });

  it("names the hop when a redirect target cannot be reached", async () => {
    const { options } = opts();
    const result = await safeFetch(
      `http://origin.example/redirect?to=${encodeURIComponent("http://gone.example/")}`,
      options,
    );
    expect(result).toMatchObject({
      ok: false,
      kind: "INCONCLUSIVE",
      code: "DNS",
      reason: "the redirect to http://gone.example/ could not be followed: could not resolve gone.example",
    });
  });

  it("reports DNS failure", async () => {
    const { options } = opts();
    expect(await safeFetch("http://nxdomain.example/", options)).toMatchObject({
      ok: false,
      kind: "INCONCLUSIVE",
      code: "DNS",
      reason: "could not resolve nxdomain.example",
    });
  });

  it("reports a refused connection", async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const result = await safeFetch(`http://127.0.0.1:${port}/`, { allowLoopback: true, timeoutMs: 2_000 });
    expect(result).toMatchObject({ ok: false, kind: "INCONCLUSIVE", code: "NETWORK" });
    if (!result.ok) expect(result.reason).toMatch(/refused the connection/);
  });

  it("reports a reset connection", async () => {
    const rude = await startOrigin((req) => req.socket.destroy());
    try {
      const result = await safeFetch(rude.url("/"), { allowLoopback: true, timeoutMs: 2_000 });
      expect(result).toMatchObject({ ok: false, kind: "INCONCLUSIVE", code: "NETWORK" });
    } finally {
      await rude.close();
    }
  });
});

function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe.runIf(hasOpenssl())("TLS to a pinned address", () => {
  let dir: string;
  let server: https.Server;
  let cert: string;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "safe-fetch-tls-"));
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-keyout",
        path.join(dir, "key.pem"),
        "-out",
        path.join(dir, "cert.pem"),
        "-subj",
        "/CN=secure.example",
        "-addext",
        "subjectAltName=DNS:secure.example",
      ],
      { stdio: "ignore" },
    );
    cert = readFileSync(path.join(dir, "cert.pem"), "utf8");
    server = https.createServer({ key: readFileSync(path.join(dir, "key.pem")), cert }, (req, res) => {
      res.writeHead(200, { "content-type": "text/plain" }).end(`tls ok for ${req.headers.host}`);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  const tlsOptions = (): SafeFetchOptions => ({
    ...opts({}, { "secure.example": [FAKE_PUBLIC_IP], "wrong.example": [FAKE_PUBLIC_IP] }).options,
    ca: cert,
    dial: guardDial({ port }, trap),
  });

  it("checks the certificate against the URL's name, not the dialled IP", async () => {
    const result = await safeFetch("https://secure.example:8443/x", tlsOptions());
    expect(result).toMatchObject({ ok: true, status: 200, text: "tls ok for secure.example:8443" });
  });

  it("fails when the certificate does not name the host", async () => {
    const result = await safeFetch("https://wrong.example/x", tlsOptions());
    expect(result).toMatchObject({ ok: false, kind: "INCONCLUSIVE", code: "TLS" });
    if (!result.ok) expect(result.reason).toMatch(/ALTNAME/);
  });
});

describe("the service's own origin (ownOrigin)", () => {
  // Here the origin server plays the app: its listen socket is the one to refuse.
  const own = () =>
    ownOriginOf({ siteUrl: "https://market.example.test", listen: { host: "127.0.0.1", port: origin.port } });
  const opts = (extra: SafeFetchOptions = {}): SafeFetchOptions => ({
    allowLoopback: true,
    ownOrigin: own(),
    timeoutMs: 2_000,
    ...extra,
  });

  it("refuses the app's listen port by every spelling of a loopback or unspecified address, even with allowLoopback", async () => {
    for (const host of [
      "127.0.0.1",
      "127.1",
      "2130706433",
      "0x7f000001",
      "0177.0.0.1",
      "127.0.0.2",
      "[::1]",
      "0.0.0.0",
      "[::]",
      "[::ffff:127.0.0.1]",
    ]) {
      const result = await safeFetch(`http://${host}:${origin.port}/ok`, opts());
      expect(result, host).toMatchObject({ ok: false, kind: "BLOCKED" });
      expect(["OWN_ORIGIN", "ADDRESS"], host).toContain((result as { code: string }).code);
    }
    expect(await safeFetch(`http://127.0.0.1:${origin.port}/ok`, opts())).toMatchObject({
      code: "OWN_ORIGIN",
      reason: expect.stringMatching(/this marketplace itself/),
    });
    expect(origin.requests()).toEqual([]);
  });

  it("refuses the site's names on any port, localhost always, and a name that resolves to the app's socket", async () => {
    const { resolve, calls } = tableResolver({ "alias.example.test": ["127.0.0.1"] });
    expect(await safeFetch("https://market.example.test/jobs/1", opts({ resolve }))).toMatchObject({
      code: "OWN_ORIGIN",
    });
    expect(await safeFetch("http://MARKET.example.test.:8080/", opts({ resolve }))).toMatchObject({
      code: "OWN_ORIGIN",
    });
    expect(await safeFetch(`http://localhost:${origin.port}/ok`, opts({ resolve }))).toMatchObject({
      ok: false,
      kind: "BLOCKED",
    });
    expect(await safeFetch(`http://alias.example.test:${origin.port}/ok`, opts({ resolve }))).toMatchObject({
      code: "OWN_ORIGIN",
    });
    expect(calls).toEqual(["alias.example.test"]);
    expect(origin.requests()).toEqual([]);
  });

  it("refuses a redirect into the app and an answer that carries the site's own header", async () => {
    const other = await startOrigin((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      res.writeHead(302, { location: url.searchParams.get("to")! }).end();
    });
    try {
      const viaRedirect = await safeFetch(
        other.url(`/?to=${encodeURIComponent(`http://127.1:${origin.port}/ok`)}`),
        opts(),
      );
      expect(viaRedirect).toMatchObject({
        ok: false,
        code: "OWN_ORIGIN",
        redirects: [`http://127.0.0.1:${origin.port}/ok`],
      });
      expect(origin.requests()).toEqual([]);
      // The origin's /own-header page stands for the app behind an alias the checks cannot see.
      const ownOrigin = ownOriginOf({ siteUrl: "https://market.example.test", listen: null });
      const answer = await safeFetch(origin.url("/own-header"), { allowLoopback: true, ownOrigin, timeoutMs: 2_000 });
      expect(answer).toMatchObject({ ok: false, code: "OWN_ORIGIN" });
      // Another site's header is no reason to refuse.
      const foreign = ownOriginOf({ siteUrl: "https://other.example.test", listen: null });
      expect(
        await safeFetch(origin.url("/own-header"), { allowLoopback: true, ownOrigin: foreign, timeoutMs: 2_000 }),
      ).toMatchObject({ ok: true, status: 200 });
    } finally {
      await other.close();
    }
  });

  it("other loopback ports stay reachable for the local stack; error answers are never read", async () => {
    const other = await startOrigin((_req, res) =>
      res.writeHead(200, { "content-type": "text/plain" }).end("a developer's server"),
    );
    try {
      expect(await safeFetch(other.url("/"), opts())).toMatchObject({
        ok: true,
        status: 200,
        text: "a developer's server",
      });
    } finally {
      await other.close();
    }
    expect(await safeFetch(origin.url("/missing"), { allowLoopback: true, timeoutMs: 2_000 })).toMatchObject({
      ok: true,
      status: 404,
      text: null,
    });
  });
});
