import { describe, expect, it } from "vitest";
import { isSameOriginRequest } from "./same-origin";

const post = (headers: Record<string, string>) =>
  new Request("http://127.0.0.1:3000/sign-out", { method: "POST", headers: { host: "127.0.0.1:3000", ...headers } });

describe("isSameOriginRequest (CSRF check of the dashboard's POST route handlers)", () => {
  it("accepts a post from this site", () => {
    expect(isSameOriginRequest(post({ origin: "http://127.0.0.1:3000", "sec-fetch-site": "same-origin" }))).toBe(true);
    expect(isSameOriginRequest(post({ origin: "http://127.0.0.1:3000" }))).toBe(true);
    expect(isSameOriginRequest(post({ "sec-fetch-site": "same-origin" }))).toBe(true);
  });

  it("accepts the host a proxy forwarded", () => {
    expect(
      isSameOriginRequest(
        post({ origin: "https://work.example", "x-forwarded-host": "work.example", "sec-fetch-site": "same-origin" }),
      ),
    ).toBe(true);
  });

  it("refuses cross-site and same-site-but-other-origin posts", () => {
    expect(isSameOriginRequest(post({ origin: "https://evil.example", "sec-fetch-site": "cross-site" }))).toBe(false);
    expect(isSameOriginRequest(post({ origin: "https://evil.example" }))).toBe(false);
    expect(isSameOriginRequest(post({ origin: "http://127.0.0.1:3000", "sec-fetch-site": "cross-site" }))).toBe(false);
    expect(isSameOriginRequest(post({ origin: "http://127.0.0.1:4000", "sec-fetch-site": "same-site" }))).toBe(false);
  });

  it("refuses an opaque or missing origin", () => {
    expect(isSameOriginRequest(post({ origin: "null" }))).toBe(false);
    expect(isSameOriginRequest(post({}))).toBe(false);
    expect(isSameOriginRequest(post({ origin: "not a url" }))).toBe(false);
  });
});
