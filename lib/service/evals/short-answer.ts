/**
 * Grading of a SHORT_ANSWER item against its keywords (the accepted answers). An answer is right when,
 * after normalising both sides (Unicode NFKC, lower case, runs of spaces as one, trimmed, trailing
 * `.`, `!` and `?` dropped, and a thousands comma between digits dropped: "1,000" is "1000"):
 *
 * 1. it equals one of the keywords; or
 * 2. it is one short statement that names a keyword:
 *    - the keyword appears as whole words (not inside a longer word or number: "4" is not in "42");
 *    - it has at most SHORT_ANSWER_MAX_WORDS words;
 *    - it offers no alternatives: no `,` `;` `|` `/`, line break or the word "or";
 *    - when a keyword holds a number, every number in the answer is one of the keywords' numbers
 *      (so "41 42 43" is wrong when the key is 42).
 *
 * So a list of candidates, numbers or words, never matches: an answer has to commit to one.
 */
export const SHORT_ANSWER_MAX_WORDS = 12;

const NUMBER = /\d+(?:\.\d+)?/g;

export function normaliseShortAnswer(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/(\d),(?=\d{3}(?!\d))/g, "$1")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[.!?]+$/, "")
    .trim();
}

function numbersOf(text: string): number[] {
  return (text.match(NUMBER) ?? []).map(Number);
}

/** The text with every whole-word occurrence of `phrase` blanked out; null when there is none. */
function withoutPhrase(text: string, phrase: string): string | null {
  const edge = /[\p{L}\p{N}]/u;
  let rest = "";
  let from = 0;
  let found = false;
  for (let at = text.indexOf(phrase); at !== -1; at = text.indexOf(phrase, at + 1)) {
    const before = at > 0 ? text[at - 1]! : "";
    const after = text[at + phrase.length] ?? "";
    if (edge.test(before) || edge.test(after) || at < from) continue;
    rest += `${text.slice(from, at)} `;
    from = at + phrase.length;
    found = true;
  }
  return found ? rest + text.slice(from) : null;
}

export function matchesShortAnswer(keywords: string[], response: string): boolean {
  const accepted = keywords.map(normaliseShortAnswer).filter((k) => k.length > 0);
  if (accepted.length === 0) return false;
  const answer = normaliseShortAnswer(response);
  if (accepted.includes(answer)) return true;

  // Line breaks are alternatives too; they are looked for before spaces are collapsed.
  if (/[\r\n]/.test(response.trim())) return false;
  if (answer.split(" ").filter((w) => /[\p{L}\p{N}]/u.test(w)).length > SHORT_ANSWER_MAX_WORDS) return false;
  const keyNumbers = accepted.flatMap(numbersOf);
  return accepted.some((k) => {
    // What the answer says besides the keyword (a keyword may itself hold a comma or a number).
    const rest = withoutPhrase(answer, k);
    if (rest === null) return false;
    if (/[,;|/]/.test(rest) || /(^|[^\p{L}\p{N}])or([^\p{L}\p{N}]|$)/u.test(rest)) return false;
    return keyNumbers.length === 0 || numbersOf(rest).every((n) => keyNumbers.includes(n));
  });
}
