import { describe, expect, it } from "vitest";
import { loginUrlReason, matchDisallowedHost } from "./host-rules";

// Hosts that cannot prove a delivery, and URLs that are a login wall (docs/testing.md, "The
// pyramid"): pure, no network. The probe that applies them is tested against real servers in
// probe.test.ts.

describe("matchDisallowedHost", () => {
  it.each<[string, { rule: "TUNNEL" | "PASTE"; domain: string } | null]>([
    ["https://abc123.ngrok-free.app/report", { rule: "TUNNEL", domain: "ngrok-free.app" }],
    ["https://ngrok.io/", { rule: "TUNNEL", domain: "ngrok.io" }],
    ["https://Deep.Sub.TryCloudflare.com./x", { rule: "TUNNEL", domain: "trycloudflare.com" }],
    ["https://fuzzy-space-8000.app.github.dev/", { rule: "TUNNEL", domain: "app.github.dev" }],
    ["https://0x0.st/abc.txt", { rule: "PASTE", domain: "0x0.st" }],
    ["https://transfer.sh/abc/report.pdf", { rule: "PASTE", domain: "transfer.sh" }],
    // An entry with a path matches that path and below only.
    ["https://www.toptal.com/developers/hastebin/abc", { rule: "PASTE", domain: "toptal.com/developers/hastebin" }],
    ["https://www.toptal.com/developers/hastebin", { rule: "PASTE", domain: "toptal.com/developers/hastebin" }],
    ["https://www.toptal.com/developers/hastebinx", null],
    ["https://www.toptal.com/careers", null],
    // A name that only ends the same way is another host.
    ["https://notngrok.io/", null],
    ["https://ngrok.io.example.com/", null],
    ["https://github.com/org/repo", null],
    ["https://example.org/report", null],
  ])("%s: %j", (url, hit) => {
    expect(matchDisallowedHost(new URL(url))).toEqual(hit);
  });
});

describe("loginUrlReason", () => {
  it.each([
    ["https://accounts.google.com/o/oauth2/auth", "it leads to the sign-in host accounts.google.com"],
    ["https://login.microsoftonline.com/common", "it leads to the sign-in host login.microsoftonline.com"],
    ["https://example.org/login", "it leads to the sign-in page https://example.org/login"],
    ["https://example.org/users/sign_in?next=/x", "it leads to the sign-in page https://example.org/users/sign_in"],
    ["https://example.org/wp-login.php", null],
    ["https://example.org/Login.aspx", "it leads to the sign-in page https://example.org/Login.aspx"],
    ["https://example.org/accounts/login/", "it leads to the sign-in page https://example.org/accounts/login/"],
    ["https://example.org/session/new", "it leads to the sign-in page https://example.org/session/new"],
    ["https://example.org/sessions/new/", "it leads to the sign-in page https://example.org/sessions/new/"],
    // A single-label host is not an identity provider's.
    ["http://login/report", null],
    ["https://example.org/blog/how-to-login-faster", null],
    ["https://example.org/report.pdf", null],
    ["https://loginpage.example.org/report", null],
  ])("%s: %s", (url, reason) => {
    expect(loginUrlReason(new URL(url))).toBe(reason);
  });
});
