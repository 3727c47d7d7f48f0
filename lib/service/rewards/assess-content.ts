/**
 * The content half of the automatic review: does a post read as prose, and is it more than a
 * near-copy of an earlier one? Pure functions (measured on the corpus in
 * fixtures/content-corpus.ts by assess-content.test.ts); review-contribution.ts applies them.
 *
 * Prose is measured on the text without code (fenced and inline) and links, by signals that word
 * salad, shuffled posts, lorem ipsum and keyboard mash fail and real writing passes:
 * - function words: English prose is about 35–50% the/of/to/and/…; salad and non-language have few;
 * - word order: an article is followed by a noun or adjective, almost never by another function
 *   word ("the of"), and a sentence's full stop by a capital; shuffled words break both;
 * - repetition: a post that repeats its own phrases (a post pasted twice) or a handful of words;
 * - letters: tokens without vowels or letters (keyboard mash, symbol soup).
 * The function-word list is English: a post in another language is refused as "does not read as
 * English prose" (the forum's language; the reason says so).
 *
 * Near-duplicates: a MinHash signature of the post's 4-word shingles; two posts whose estimated
 * Jaccard similarity is at least NEAR_DUPLICATE share most of their phrasing (a copy with a few
 * words changed, reordered paragraphs).
 */

const STOPWORDS = new Set(
  "a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing down during each few for from further had has have having he her here hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or other our ours out over own same she should so some such than that the their them then there these they this those through to too under until up very was we were what when where which while who whom why will with would you your yours also may might must shall us via per it's don't isn't can't won't doesn't i'm we're they're that's there's let's".split(
    " ",
  ),
);
/** Words that start a noun phrase: what follows them is a noun or an adjective, rarely a function word. */
const DETERMINERS = new Set(["the", "a", "an", "every", "its", "their", "our", "your", "my"]);
/** Function words that (almost) never follow a determiner in English. */
const NOT_AFTER_DETERMINER = new Set(
  "the a an of to in on at by for with from and or but is are was were be been it he she they we i you which will would can could should has have had do does did if when than then so as not into about because while".split(
    " ",
  ),
);
const ABBREVIATIONS = /^(e\.g\.|i\.e\.|etc\.|vs\.|approx\.|no\.|fig\.|mr\.|ms\.|dr\.|[a-z]\.)$/i;

export const NEAR_DUPLICATE = 0.5;
const SHINGLE = 4;
const HASHES = 64;

export interface ProseMeasures {
  words: number;
  functionWordRatio: number;
  articleMisfollowRate: number;
  lowercaseAfterStopRate: number;
  typeTokenRatio: number;
  repeatedPhraseRatio: number;
  unreadableTokenRatio: number;
}

/** Markdown without code and link targets: what a reader reads as text. */
function proseOf(body: string): string {
  return body
    .normalize("NFKC")
    .replace(/```[\s\S]*?(```|$)/g, " ")
    .replace(/`[^`\n]*`/g, " ")
    .replace(/\]\([^)]*\)/g, "] ")
    .replace(/https?:\/\/\S+/g, " ")
    .replace(/\b0x[0-9a-f]{6,}\b/gi, " ");
}

export function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’]*/gu) ?? []).map((w) => w.replace(/’/g, "'"));
}

export function measureProse(body: string): ProseMeasures {
  const prose = proseOf(body);
  const words = wordsOf(prose);
  const n = words.length || 1;
  const functionWords = words.filter((w) => STOPWORDS.has(w)).length;

  let determiners = 0;
  let misfollows = 0;
  for (let i = 0; i + 1 < words.length; i++) {
    if (!DETERMINERS.has(words[i]!)) continue;
    determiners += 1;
    if (NOT_AFTER_DETERMINER.has(words[i + 1]!)) misfollows += 1;
  }

  // Sentence ends: a token ending in . ! or ? followed by a word; the next should start a sentence.
  const raw = prose.split(/\s+/).filter(Boolean);
  let stops = 0;
  let lowercaseAfter = 0;
  for (let i = 0; i + 1 < raw.length; i++) {
    const token = raw[i]!;
    if (!/[.!?]["')\]]*$/.test(token) || ABBREVIATIONS.test(token) || /^\d+(\.\d+)*\.?$/.test(token)) continue;
    const next = raw[i + 1]!.replace(/^["'(\[*_#>-]+/, "");
    if (!/^\p{L}/u.test(next)) continue;
    stops += 1;
    if (/^\p{Ll}/u.test(next)) lowercaseAfter += 1;
  }

  const seen = new Set<string>();
  let repeated = 0;
  let phrases = 0;
  for (let i = 0; i + 6 <= words.length; i++) {
    const phrase = words.slice(i, i + 6).join(" ");
    phrases += 1;
    if (seen.has(phrase)) repeated += 1;
    seen.add(phrase);
  }

  const alphabetic = words.filter((w) => /\p{L}/u.test(w) && w.length >= 3 && !STOPWORDS.has(w));
  const unreadable = alphabetic.filter(
    (w) => !/[aeiouyäöüéèàáíóúâêîôû]/.test(w) || /(.)\1\1/.test(w) || w.length > 24,
  ).length;
  const symbols = (prose.match(/[^\p{L}\p{N}\s.,;:!?'"()\[\]\-–—*_#>`/]/gu) ?? []).length;
  const visible = (prose.match(/\S/g) ?? []).length || 1;

  return {
    words: words.length,
    functionWordRatio: functionWords / n,
    articleMisfollowRate: determiners >= 4 ? misfollows / determiners : 0,
    lowercaseAfterStopRate: stops >= 3 ? lowercaseAfter / stops : 0,
    typeTokenRatio: new Set(words).size / n,
    repeatedPhraseRatio: phrases ? repeated / phrases : 0,
    unreadableTokenRatio: Math.max(alphabetic.length ? unreadable / alphabetic.length : 0, symbols / visible),
  };
}

/** Why a post does not read as prose, in words for the rewards page; null when it does. */
export function proseProblem(body: string): string | null {
  const m = measureProse(body);
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  if (m.words < 20) return `does not read as prose: only ${m.words} words outside code and links`;
  if (m.unreadableTokenRatio > 0.25)
    return `does not read as prose: ${pct(m.unreadableTokenRatio)} of its words are not words (keyboard mash or symbols)`;
  if (m.functionWordRatio < 0.2)
    return `does not read as English prose: only ${pct(m.functionWordRatio)} of its words are common words like "the", "of", "and" (word salad, lorem ipsum or another language)`;
  if (m.repeatedPhraseRatio > 0.2)
    return `repeats itself: ${pct(m.repeatedPhraseRatio)} of its phrases occur more than once`;
  if (m.articleMisfollowRate > 0.2 || m.lowercaseAfterStopRate > 0.4)
    return "does not read as prose: its word order is scrambled (articles followed by function words, sentences starting mid-word)";
  if (m.words >= 60 && m.typeTokenRatio < 0.22)
    return `repeats the same few words: ${pct(m.typeTokenRatio)} of its words are distinct`;
  return null;
}

// ── Near-duplicates ────────────────────────────────────────────────────────────────────────────

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function mix(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

const SEEDS = Array.from({ length: HASHES }, (_, i) => mix(0x9e3779b9 ^ Math.imul(i + 1, 0x27d4eb2d)));

/** The post's MinHash signature over its 4-word shingles, as hex (8 characters per hash). */
export function minhashOf(body: string): string {
  const words = wordsOf(body.normalize("NFKC"));
  const shingles = new Set<number>();
  if (words.length < SHINGLE) shingles.add(fnv1a(words.join(" ")));
  for (let i = 0; i + SHINGLE <= words.length; i++) shingles.add(fnv1a(words.slice(i, i + SHINGLE).join(" ")));
  const mins = new Array<number>(HASHES).fill(0xffffffff);
  for (const s of shingles) {
    for (let k = 0; k < HASHES; k++) {
      const h = mix(s ^ SEEDS[k]!);
      if (h < mins[k]!) mins[k] = h;
    }
  }
  return mins.map((m) => m.toString(16).padStart(8, "0")).join("");
}

/** Estimated Jaccard similarity of two posts' shingle sets, from their signatures. */
export function similarity(a: string, b: string): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let same = 0;
  for (let k = 0; k < a.length; k += 8) if (a.slice(k, k + 8) === b.slice(k, k + 8)) same += 1;
  return same / (a.length / 8);
}

/** The earlier post this one nearly copies (estimated Jaccard ≥ NEAR_DUPLICATE), if any. */
export function nearestCopy<T extends { minhash: string | null }>(
  signature: string,
  earlier: T[],
): { post: T; similarity: number } | null {
  let best: { post: T; similarity: number } | null = null;
  for (const post of earlier) {
    if (!post.minhash) continue;
    const s = similarity(signature, post.minhash);
    if (s >= NEAR_DUPLICATE && (!best || s > best.similarity)) best = { post, similarity: s };
  }
  return best;
}
