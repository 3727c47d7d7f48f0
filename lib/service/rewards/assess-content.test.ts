import { describe, expect, it } from "vitest";
import { measureProse, minhashOf, nearestCopy, proseProblem } from "./assess-content";
import { JUNK_POSTS, REAL_POSTS } from "./fixtures/content-corpus";
import { uniqueText } from "@/lib/testing/unique-text";

// The content review measured on a corpus of real forum posts and junk (fixtures/content-corpus.ts).
// The review itself is exercised over HTTP in rewards.test.ts; this measures how well it separates.

const refusal = (body: string, earlier: string[]) =>
  proseProblem(body) ??
  (nearestCopy(
    minhashOf(body),
    earlier.map((e) => ({ minhash: minhashOf(e) })),
  )
    ? "near-copy"
    : null);

describe("content review on the corpus", () => {
  it("accepts at least 95% of real posts and refuses at least 95% of junk (figures printed)", () => {
    expect(REAL_POSTS.length).toBeGreaterThanOrEqual(25);
    expect(JUNK_POSTS.length).toBeGreaterThanOrEqual(25);
    for (const post of REAL_POSTS) expect(post.length).toBeGreaterThanOrEqual(400);

    // Each real post against all the others as earlier posts: none is a near-copy of another.
    const realRefused = REAL_POSTS.map((post, i) => ({
      i,
      why: refusal(
        post,
        REAL_POSTS.filter((_, j) => j !== i),
      ),
    })).filter((r) => r.why);
    const junkPassed = JUNK_POSTS.filter((junk) => !refusal(junk.body, junk.earlier ?? []));
    const realAccepted = 1 - realRefused.length / REAL_POSTS.length;
    const junkRefused = 1 - junkPassed.length / JUNK_POSTS.length;
    console.log(
      `[content review] real posts accepted: ${REAL_POSTS.length - realRefused.length}/${REAL_POSTS.length} (${(realAccepted * 100).toFixed(1)}%); ` +
        `junk refused: ${JUNK_POSTS.length - junkPassed.length}/${JUNK_POSTS.length} (${(junkRefused * 100).toFixed(1)}%)`,
    );
    for (const r of realRefused) console.log(`  real post ${r.i} refused: ${r.why}`);
    for (const j of junkPassed) console.log(`  junk passed: ${j.label} ${JSON.stringify(measureProse(j.body))}`);
    expect(realAccepted).toBeGreaterThanOrEqual(0.95);
    expect(junkRefused).toBeGreaterThanOrEqual(0.95);
  });

  it("the test suites' uniqueText reads as prose and is no near-copy of another uniqueText", () => {
    const texts = Array.from({ length: 120 }, (_, i) => uniqueText([200, 250, 400, 450, 600, 2000][i % 6]!));
    expect(texts.filter((t) => proseProblem(t))).toEqual([]);
    const signatures = texts.map((t) => ({ minhash: minhashOf(t) }));
    expect(
      signatures.filter((s, i) =>
        nearestCopy(
          s.minhash,
          signatures.filter((_, j) => j !== i),
        ),
      ),
    ).toEqual([]);
  });
});
