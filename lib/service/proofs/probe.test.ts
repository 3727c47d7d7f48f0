import zlib from "node:zlib";

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { PASTE_DOMAINS, TUNNEL_DOMAINS } from "./host-rules";
import { isValidProofContentMarker, probeDeliverable, PROOF_STATUSES, type ProbeOptions } from "./probe";
import {
  FAKE_PUBLIC_IP,
  guardDial,
  startOrigin,
  startTrap,
  tableResolver,
  type Origin,
  type Trap,
} from "../testing/proofs-support";

const MARKER = "awm-proof-7f3a9c";
const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

let origin: Origin;
let trap: Trap;

beforeAll(async () => {
  trap = await startTrap();
  origin = await startOrigin((req, res) => {
    const url = new URL(req.url ?? "/", "http://site.example");
    const html = (status: number, body: string) =>
      res.writeHead(status, { "content-type": "text/html; charset=utf-8" }).end(body);
    switch (url.pathname) {
      case "/good":
        return html(200, page("Market report | Acme", `<h1>Market report</h1><p>${MARKER}</p>`));
      case "/no-marker":
        return html(200, page("Market report", "<h1>Market report</h1><p>No marker here.</p>"));
      case "/about-errors":
        // Words that the heuristics look for, used as content: must not trip them.
        return html(
          200,
          page(
            "Error handling in Rust | Blog",
            `<h1>Error handling in Rust</h1><p>When the page is not found, show a sign in link. ${MARKER}</p>`,
          ),
        );
      case "/login":
        return html(
          200,
          page("Sign in · Acme", '<form method="post"><input name="user"><input type="password" name="pw"></form>'),
        );
      case "/password-only":
        return html(200, page("Welcome", '<form><input type = "password"></form>'));
      case "/signin":
        return html(200, page("Welcome back", "<p>Hello.</p>"));
      case "/fake-404":
        return html(
          200,
          page("404: This page could not be found.", "<h1>404</h1><h2>This page could not be found.</h2>"),
        );
      case "/oops":
        return html(200, page("Acme", "<h1>Something went wrong</h1>"));
      case "/denied":
        return html(200, page("Access denied | Acme", "<p>Nope.</p>"));
      case "/text-error":
        res.writeHead(200, { "content-type": "text/plain" }).end("Not Found\n");
        return;
      case "/json-error":
        res.writeHead(200, { "content-type": "application/json" }).end('{"statusCode":404,"message":"Not Found"}');
        return;
      case "/json-good":
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ result: [1, 2], marker: MARKER }));
        return;
      case "/empty":
        res.writeHead(200, { "content-type": "text/plain" }).end("");
        return;
      case "/500":
        return html(500, page("Internal Server Error", "oops"));
      case "/404":
        return html(404, page("Not Found", "gone"));
      case "/401":
        return html(401, page("Unauthorized", ""));
      case "/chain": {
        const n = Number(url.searchParams.get("n"));
        res.writeHead(302, { location: n > 0 ? `/chain?n=${n - 1}` : "/good" }).end();
        return;
      }
      case "/redirect":
        res.writeHead(302, { location: url.searchParams.get("to") ?? "/good" }).end();
        return;
      case "/slow":
        return; // never answers
      case "/binary":
        res
          .writeHead(200, { "content-type": "image/png" })
          .end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
        return;
      case "/binary-marked":
        res
          .writeHead(200, { "content-type": "image/png" })
          .end(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0]), Buffer.from(MARKER)]));
        return;
      case "/huge-late":
        return html(200, `<!doctype html><title>Data dump</title><pre>${"x".repeat(300 * 1024)}${MARKER}</pre>`);
      case "/huge-early":
        return html(200, `<!doctype html><title>Data dump</title><pre>${MARKER}${"x".repeat(1024 * 1024)}</pre>`);
      case "/gzip":
        res
          .writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" })
          .end(zlib.gzipSync(page("Report", `<p>${MARKER}</p>`)));
        return;
      default:
        return html(404, "no such path");
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
afterEach(() => expect(trap.hits() - trapHitsBefore).toBe(0));

const NOW = new Date("2025-06-01T12:00:00.000Z");

/** site.example and accounts.example pose as public hosts served by the loopback origin. */
function options(extra: Partial<ProbeOptions> = {}) {
  const resolver = tableResolver({ "site.example": [FAKE_PUBLIC_IP], "accounts.example": [FAKE_PUBLIC_IP] });
  const opts: ProbeOptions = {
    resolve: resolver.resolve,
    dial: guardDial(origin, trap),
    timeoutMs: 2_000,
    now: () => NOW,
    ...extra,
  };
  return { opts, calls: resolver.calls };
}

const site = (path: string) => `http://site.example${path}`;

describe("probeDeliverable", () => {
  it("exports the status list", () => {
    expect(PROOF_STATUSES).toEqual([
      "LIVE",
      "INVALID_URL",
      "DISALLOWED_HOST",
      "BLOCKED",
      "UNREACHABLE",
      "HTTP_ERROR",
      "LOGIN_REQUIRED",
      "ERROR_PAGE",
      "MARKER_MISSING",
    ]);
  });

  it("a good page with the marker is LIVE", async () => {
    const result = await probeDeliverable(site("/good"), { ...options().opts, marker: MARKER });
    expect(result).toEqual({
      status: "LIVE",
      reason: null,
      httpStatus: 200,
      finalUrl: "http://site.example/good",
      contentType: "text/html",
      checkedAt: "2025-06-01T12:00:00.000Z",
      contentSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it("a page without a marker requirement is LIVE", async () => {
    expect(await probeDeliverable(site("/no-marker"), options().opts)).toMatchObject({ status: "LIVE" });
  });

  it("a missing marker fails", async () => {
    const result = await probeDeliverable(site("/no-marker"), { ...options().opts, marker: MARKER });
    expect(result).toMatchObject({ status: "MARKER_MISSING", httpStatus: 200 });
    expect(result.reason).toMatch(/marker does not appear in the artifact/);
  });

  it("content that merely talks about errors and sign-in is LIVE", async () => {
    expect(await probeDeliverable(site("/about-errors"), { ...options().opts, marker: MARKER })).toMatchObject({
      status: "LIVE",
    });
  });

  it("JSON artifacts are text artifacts", async () => {
    const { opts } = options();
    expect(await probeDeliverable(site("/json-good"), { ...opts, marker: MARKER })).toMatchObject({ status: "LIVE" });
    expect(await probeDeliverable(site("/json-good"), { ...opts, marker: "something-else" })).toMatchObject({
      status: "MARKER_MISSING",
    });
  });

  it.each([
    ["/login", /sign-in page \("Sign in · Acme"\)/],
    ["/password-only", /asks for a password/],
  ])("a login page behind 200 fails (%s)", async (path, reason) => {
    const result = await probeDeliverable(site(path), { ...options().opts, marker: MARKER });
    expect(result).toMatchObject({ status: "LOGIN_REQUIRED", httpStatus: 200 });
    expect(result.reason).toMatch(reason);
  });

  it.each([
    ["/fake-404", /404: This page could not be found/],
    ["/oops", /Something went wrong/],
    ["/denied", /Access denied/],
    ["/text-error", /Not Found/],
    ["/json-error", /error response/],
    ["/empty", /empty/],
  ])("an error page behind 200 fails (%s)", async (path, reason) => {
    const result = await probeDeliverable(site(path), options().opts);
    expect(result).toMatchObject({ status: "ERROR_PAGE", httpStatus: 200 });
    expect(result.reason).toMatch(reason);
  });

  it.each([
    ["/500", "HTTP_ERROR", 500],
    ["/404", "HTTP_ERROR", 404],
    ["/401", "LOGIN_REQUIRED", 401],
  ])("HTTP error status %s fails", async (path, status, httpStatus) => {
    const result = await probeDeliverable(site(path), options().opts);
    expect(result).toMatchObject({ status, httpStatus });
    expect(result.reason).toMatch(new RegExp(`HTTP ${httpStatus}`));
  });

  it("follows a redirect chain to a good page", async () => {
    const result = await probeDeliverable(site("/chain?n=3"), { ...options().opts, marker: MARKER });
    expect(result).toMatchObject({ status: "LIVE", finalUrl: "http://site.example/good", httpStatus: 200 });
    expect(origin.requests()).toHaveLength(5);
  });

  it("a redirect to a sign-in path fails even when that page looks harmless", async () => {
    const result = await probeDeliverable(
      site(`/redirect?to=${encodeURIComponent("/signin?next=/doc")}`),
      options().opts,
    );
    expect(result).toMatchObject({ status: "LOGIN_REQUIRED", finalUrl: "http://site.example/signin?next=/doc" });
    expect(result.reason).toMatch(/sign-in page http:\/\/site\.example\/signin/);
  });

  it("a redirect to an accounts.* host fails", async () => {
    const to = "http://accounts.example/good";
    const result = await probeDeliverable(site(`/redirect?to=${encodeURIComponent(to)}`), options().opts);
    expect(result).toMatchObject({ status: "LOGIN_REQUIRED" });
    expect(result.reason).toMatch(/sign-in host accounts\.example/);
  });

  it("a redirect to a login page fails", async () => {
    const result = await probeDeliverable(site("/redirect?to=/login"), { ...options().opts, marker: MARKER });
    expect(result).toMatchObject({ status: "LOGIN_REQUIRED" });
  });

  it("a slow server is UNREACHABLE, never proof", async () => {
    const started = Date.now();
    const result = await probeDeliverable(site("/slow"), { ...options().opts, timeoutMs: 300 });
    expect(result).toMatchObject({ status: "UNREACHABLE", httpStatus: null });
    expect(result.reason).toMatch(/could not be checked.*not proof of delivery/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("a DNS failure is UNREACHABLE", async () => {
    const result = await probeDeliverable("http://nowhere.example/x", options().opts);
    expect(result).toMatchObject({ status: "UNREACHABLE" });
    expect(result.reason).toMatch(/could not resolve nowhere\.example/);
  });

  it("a binary artifact is LIVE without a marker; with one, only when the marker's bytes are in it", async () => {
    expect(await probeDeliverable(site("/binary"), options().opts)).toMatchObject({
      status: "LIVE",
      contentType: "image/png",
      contentSha256: null,
    });
    const result = await probeDeliverable(site("/binary"), { ...options().opts, marker: MARKER });
    expect(result).toMatchObject({ status: "MARKER_MISSING", contentType: "image/png" });
    expect(await probeDeliverable(site("/binary-marked"), { ...options().opts, marker: MARKER })).toMatchObject({
      status: "LIVE",
      contentType: "image/png",
    });
  });

  it("a marker after the first 256 KiB does not count", async () => {
    const result = await probeDeliverable(site("/huge-late"), { ...options().opts, marker: MARKER });
    expect(result).toMatchObject({ status: "MARKER_MISSING" });
    expect(result.reason).toMatch(/first 256 KiB/);
  });

  it("a marker early in a huge page counts", async () => {
    expect(await probeDeliverable(site("/huge-early"), { ...options().opts, marker: MARKER })).toMatchObject({
      status: "LIVE",
    });
  });

  it("gzip-encoded pages are checked after decoding", async () => {
    expect(await probeDeliverable(site("/gzip"), { ...options().opts, marker: MARKER })).toMatchObject({
      status: "LIVE",
    });
  });

  it("a redirect to a private address is BLOCKED", async () => {
    const result = await probeDeliverable(
      site(`/redirect?to=${encodeURIComponent(`http://10.0.0.1:${trap.port}/`)}`),
      options().opts,
    );
    expect(result).toMatchObject({ status: "BLOCKED" });
    expect(result.reason).toMatch(
      /^The redirect to http:\/\/10\.0\.0\.1:\d+\/ was refused: address 10\.0\.0\.1 is private\.$/,
    );
  });

  it("a redirect to a tunnel is refused before it is contacted", async () => {
    const { opts, calls } = options();
    const result = await probeDeliverable(
      site(`/redirect?to=${encodeURIComponent("https://abc123.ngrok-free.app/report")}`),
      opts,
    );
    expect(result).toMatchObject({ status: "DISALLOWED_HOST", finalUrl: "https://abc123.ngrok-free.app/report" });
    expect(result.reason).toMatch(/temporary tunnel/);
    expect(calls).toEqual(["site.example"]);
  });

  it("a redirect to a raw IP is refused", async () => {
    const result = await probeDeliverable(
      site(`/redirect?to=${encodeURIComponent(`http://${FAKE_PUBLIC_IP}/x`)}`),
      options().opts,
    );
    expect(result).toMatchObject({ status: "DISALLOWED_HOST" });
    expect(result.reason).toMatch(/raw IP address/);
    expect(origin.requests()).toHaveLength(1);
  });
});

describe("hosts refused without any network", () => {
  const cases: [string, string, RegExp][] = [
    ["https://abcd-1-2-3-4.ngrok-free.app/report.html", "DISALLOWED_HOST", /temporary tunnel \(ngrok-free\.app\)/],
    ["https://abc.ngrok.io/", "DISALLOWED_HOST", /temporary tunnel/],
    ["https://quiet-river.trycloudflare.com/x", "DISALLOWED_HOST", /temporary tunnel \(trycloudflare\.com\)/],
    ["https://funny-cat-42.loca.lt/", "DISALLOWED_HOST", /temporary tunnel \(loca\.lt\)/],
    ["https://abc.localtunnel.me/", "DISALLOWED_HOST", /temporary tunnel/],
    ["https://abc.serveo.net/", "DISALLOWED_HOST", /temporary tunnel/],
    ["https://abc123.localhost.run/", "DISALLOWED_HOST", /temporary tunnel/],
    ["https://abc123.lhr.life/", "DISALLOWED_HOST", /temporary tunnel/],
    ["https://x-8080.app.github.dev/", "DISALLOWED_HOST", /temporary tunnel/],
    ["https://termbin.com/abcd", "DISALLOWED_HOST", /short-retention paste/],
    ["https://0x0.st/Hx1a.txt", "DISALLOWED_HOST", /short-retention paste or file-drop service \(0x0\.st\)/],
    ["https://transfer.sh/abc/report.txt", "DISALLOWED_HOST", /short-retention/],
    ["https://file.io/abc", "DISALLOWED_HOST", /short-retention/],
    ["https://paste.rs/abc", "DISALLOWED_HOST", /short-retention/],
    ["https://dpaste.com/ABCD", "DISALLOWED_HOST", /short-retention/],
    ["https://dpaste.org/abcd", "DISALLOWED_HOST", /short-retention/],
    ["https://litterbox.catbox.moe/x.txt", "DISALLOWED_HOST", /short-retention/],
    ["https://www.toptal.com/developers/hastebin/abc", "DISALLOWED_HOST", /short-retention/],
    [`http://${FAKE_PUBLIC_IP}/report`, "DISALLOWED_HOST", /raw IP address/],
    ["http://2130706433/report", "DISALLOWED_HOST", /raw IP address 127\.0\.0\.1;/],
    ["http://[2606:4700::1111]/report", "DISALLOWED_HOST", /raw IP address/],
    ["http://127.0.0.1/report", "DISALLOWED_HOST", /raw IP address/],
    ["ftp://site.example/x", "INVALID_URL", /scheme "ftp"/],
    ["not a url", "INVALID_URL", /could not be parsed/],
    ["http://user:secret@site.example/x", "LOGIN_REQUIRED", /user name or password/],
    ["http://site.example:22/x", "BLOCKED", /port 22/i],
  ];

  it.each(cases)("%s", async (url, status, reason) => {
    const { opts, calls } = options();
    const result = await probeDeliverable(url, opts);
    expect(result.status).toBe(status);
    expect(result.reason).toMatch(reason);
    expect(result.reason).toMatch(/^[A-Z0-9].*\.$/);
    expect(calls).toEqual([]);
    expect(origin.requests()).toEqual([]);
  });

  it("does not let a tunnel subdomain lookalike through, nor block a lookalike domain", async () => {
    const { opts } = options();
    expect((await probeDeliverable("https://ngrok.io.evil.example/", opts)).status).not.toBe("DISALLOWED_HOST");
    expect((await probeDeliverable("https://notngrok.io/", opts)).status).not.toBe("DISALLOWED_HOST");
  });

  it("lists cover the named services", () => {
    for (const d of ["ngrok.io", "trycloudflare.com", "loca.lt", "serveo.net", "localhost.run"])
      expect(TUNNEL_DOMAINS).toContain(d);
    for (const d of ["termbin.com", "0x0.st", "transfer.sh", "file.io", "paste.rs", "dpaste.com"])
      expect(PASTE_DOMAINS).toContain(d);
  });
});

describe("local stack (allowLoopback)", () => {
  it("accepts a loopback literal, never localhost (it names this very app)", async () => {
    const opts: ProbeOptions = { allowLoopback: true, timeoutMs: 2_000, marker: MARKER };
    expect(await probeDeliverable(origin.url("/good"), opts)).toMatchObject({ status: "LIVE" });
    const viaName = await probeDeliverable(`http://localhost:${origin.port}/good`, {
      ...opts,
      resolve: async () => ["127.0.0.1"],
    });
    expect(viaName).toMatchObject({ status: "BLOCKED" });
  });

  it("still refuses other raw IPs and private addresses", async () => {
    const opts: ProbeOptions = { allowLoopback: true, timeoutMs: 2_000 };
    expect((await probeDeliverable("http://10.0.0.1/", opts)).status).toBe("DISALLOWED_HOST");
    const redirect = await probeDeliverable(
      origin.url(`/redirect?to=${encodeURIComponent("http://[::ffff:a00:1]/")}`),
      opts,
    );
    expect(redirect.status).toBe("BLOCKED");
  });
});

describe("markers", () => {
  it("must be 8 to 200 characters", async () => {
    expect(isValidProofContentMarker("1234567")).toBe(false);
    expect(isValidProofContentMarker("12345678")).toBe(true);
    expect(isValidProofContentMarker("x".repeat(200))).toBe(true);
    expect(isValidProofContentMarker("x".repeat(201))).toBe(false);
    expect(isValidProofContentMarker("🔒🔒🔒🔒🔒🔒🔒🔒")).toBe(true);
    await expect(probeDeliverable(site("/good"), { ...options().opts, marker: "short" })).rejects.toThrow(RangeError);
  });
});
