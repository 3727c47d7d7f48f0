import { describe, expect, it } from "vitest";
import { DISPLAY_NAME_LIMITS, DisplayName, displayNameProblem } from "./display-name";

// What a display name may be (docs/testing.md, "The pyramid"): pure, no server. Uniqueness among
// people (the comparison key) is lib/service/auth/display-name-key.test.ts; the route is
// lib/service/auth/display-name.test.ts.

describe("displayNameProblem", () => {
  it.each([
    ["Ada", "the shortest (3)"],
    ["a".repeat(DISPLAY_NAME_LIMITS.max), "the longest (40)"],
    ["Ada Lovelace", "one space between words"],
    ["ada_l-ove.lace", "the three separators"],
    ["R2D2", "digits with letters"],
    ["Zoë", "a Latin letter with a diacritic (composed)"],
    ["Алиса", "Cyrillic alone"],
    ["Αλίκη", "Greek alone"],
    ["山田たろう", "Japanese: Han with kana"],
    ["김철수", "Korean Hangul"],
    ["محمد", "Arabic"],
    ["0xygen", "0x followed by a letter that is not hex"],
  ])("accepts %s (%s)", (name) => {
    expect(displayNameProblem(name)).toBeNull();
  });

  it.each<[string, string, string]>([
    ["Al", "too short", "must be at least 3 characters"],
    ["a".repeat(DISPLAY_NAME_LIMITS.max + 1), "too long", "must be at most 40 characters"],
    // Length counts characters, not UTF-16 units: two astral letters are two.
    ["𐐀𐐀", "two astral letters", "must be at least 3 characters"],
    [
      "Ada!",
      "a symbol",
      'may contain only letters, digits (0-9), spaces, "-", "_" and "." (no invisible or direction characters, no symbols)',
    ],
    [
      "Ada\u200bL",
      "a zero-width space",
      'may contain only letters, digits (0-9), spaces, "-", "_" and "." (no invisible or direction characters, no symbols)',
    ],
    [
      "Ada\u202eL",
      "a right-to-left override",
      'may contain only letters, digits (0-9), spaces, "-", "_" and "." (no invisible or direction characters, no symbols)',
    ],
    [
      "Ada٣",
      "a non-ASCII digit",
      'may contain only letters, digits (0-9), spaces, "-", "_" and "." (no invisible or direction characters, no symbols)',
    ],
    [
      "Zoe\u0308",
      "a combining mark",
      'may contain only letters, digits (0-9), spaces, "-", "_" and "." (no invisible or direction characters, no symbols)',
    ],
    ["Ａｄａ", "full-width letters", "must be written in plain letters (no full-width or compatibility forms)"],
    ["Ada  L", "two spaces in a row", "must not contain two spaces in a row"],
    ["0xab12", "an address-like start", "must not look like a wallet address"],
    ["0XAB", "an address-like start in capitals", "must not look like a wallet address"],
    [
      "Аlice",
      "Latin mixed with a Cyrillic А",
      "must use the letters of one script (no Latin mixed with Cyrillic or Greek, for example)",
    ],
    [
      "Alιce",
      "Latin mixed with a Greek ι",
      "must use the letters of one script (no Latin mixed with Cyrillic or Greek, for example)",
    ],
    ["123", "digits only", "must contain at least one letter"],
    ["_._", "separators only", "must contain at least one letter"],
  ])("refuses %s (%s)", (name, _what, problem) => {
    expect(displayNameProblem(name)).toBe(problem);
  });
});

describe("the DisplayName schema", () => {
  it("trims before it judges, and keeps the trimmed name", () => {
    expect(DisplayName.parse("  Ada Lovelace  ")).toBe("Ada Lovelace");
    expect(DisplayName.safeParse("  Al  ").error?.issues[0]?.message).toBe("must be at least 3 characters");
  });
});
