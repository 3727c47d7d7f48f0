import { describe, expect, it } from "vitest";
import { safeReturnTo } from "./return-to";

describe("safeReturnTo", () => {
  it("keeps paths of this site", () => {
    expect(safeReturnTo("/claim/abc?x=1")).toBe("/claim/abc?x=1");
  });

  it("refuses anything that leaves the site (open redirect)", () => {
    for (const bad of ["https://evil.example", "//evil.example", "/\\evil.example", "javascript:alert(1)", "", null, undefined]) {
      expect(safeReturnTo(bad)).toBe("/jobs");
    }
  });
});
