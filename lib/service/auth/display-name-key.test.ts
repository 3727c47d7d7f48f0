import { describe, expect, it } from "vitest";
import { displayNameKey } from "./display-name-key";

// The comparison form of a display name (docs/testing.md, "The pyramid"): names with one key read
// the same to a person, so only one person may hold it. Pure; the unique index is tested over HTTP in
// display-name.test.ts.

describe("displayNameKey", () => {
  it.each<[string, string]>([
    ["Alice", "alice"],
    ["ALICE", "alice"],
    ["a.lice", "alice"],
    ["a-l_i c.e", "alice"],
    ["АLICE", "alice"], // Cyrillic А
    ["аlісе", "alice"], // Cyrillic а, і, с, е
    ["a1ice", "alice"], // 1 reads as l
    ["b0b", "bob"],
    ["Βοβ", "bob"], // Greek Β lower-cases to β, which reads as b
    ["ＡＬＩＣＥ", "alice"], // full-width, folded by NFKC
  ])("%s reads as %s", (name, key) => {
    expect(displayNameKey(name)).toBe(key);
  });

  it.each<[string, string]>([
    ["Alice", "Alise"],
    ["Bob", "Rob"],
    ["Ada", "Adam"],
    ["ada2", "ada"],
    // 1 reads as l, not i.
    ["al1ce", "alice"],
  ])("%s and %s are different names", (a, b) => {
    expect(displayNameKey(a)).not.toBe(displayNameKey(b));
  });

  it("leaves letters with no Latin look-alike as they are", () => {
    expect(displayNameKey("山田 たろう")).toBe("山田たろう");
    expect(displayNameKey("Жанна")).toBe("жahha");
  });
});
