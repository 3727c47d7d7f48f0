import { describe, expect, it } from "vitest";
import { safeReturnTo } from "./return-to";

const SITE = "https://market.example";

describe("safeReturnTo", () => {
  it("keeps paths of this site, with their query and fragment", () => {
    expect(safeReturnTo("/claim/abc?x=1", SITE)).toBe("/claim/abc?x=1");
    expect(safeReturnTo("/forum/a-thread#reply-2", SITE)).toBe("/forum/a-thread#reply-2");
    expect(safeReturnTo("/jobs/%2F%2Fx", SITE)).toBe("/jobs/%2F%2Fx");
    // Without a configured site URL the result is the same path.
    expect(safeReturnTo("/rewards")).toBe("/rewards");
  });

  it("refuses anything that leaves the site (open redirect)", () => {
    const bad = [
      "https://evil.example",
      "//evil.example",
      "/\\evil.example",
      "\\/evil.example",
      "javascript:alert(1)",
      // ?returnTo=%2F%09%2Fevil.example arrives decoded: browsers drop the tab, leaving //evil.example
      "/\t/evil.example",
      "/\n/evil.example",
      "/\r\n/evil.example",
      "/jobs\r\nSet-Cookie: x=1",
      "/\u0000/evil.example",
      "/\u007f/evil.example",
      "/\u0085/evil.example",
      // dot segments that resolve to a path starting with //
      "/.//evil.example",
      "/a/..//evil.example",
      "/%2e//evil.example",
      " /jobs",
      "",
      null,
      undefined,
    ];
    for (const value of bad) {
      expect(safeReturnTo(value, SITE), JSON.stringify(value)).toBe("/jobs");
      expect(safeReturnTo(value), JSON.stringify(value)).toBe("/jobs");
    }
  });
});
