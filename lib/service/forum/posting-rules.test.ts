import { describe, expect, it } from "vitest";
import { normaliseText } from "./posting-rules";

// The pure part of the forum's duplicate rule (docs/testing.md, "The pyramid"): what makes two posts
// the same text. The rule itself reads the author's recent threads and is tested over HTTP
// (forum.test.ts); so is the hourly limit.

describe("normaliseText: case, Unicode form and runs of whitespace do not make a post different", () => {
  it.each<[string, string]>([
    ["How do I price a job?", "how do i price a job?"],
    ["  How   do I\n\nprice\ta job?  ", "how do i price a job?"],
    ["ＨＯＷ do I price a job?", "how do i price a job?"], // full-width letters, folded by NFKC
    ["ﬁnal answer", "final answer"], // the ligature ﬁ
  ])("%j reads as %j", (text, normal) => {
    expect(normaliseText(text)).toBe(normal);
  });

  it.each<[string, string]>([
    ["How do I price a job?", "How do I price a job!"],
    ["price a job", "price the job"],
    ["café", "cafe"], // accents are kept: another word
  ])("%j and %j stay different", (a, b) => {
    expect(normaliseText(a)).not.toBe(normaliseText(b));
  });
});
