// How deeply a Markdown text nests, measured without parsing it. Markdown parsers (micromark, and
// the mdast/hast/React trees built from its output) recurse once per level of a list, a quote or an
// emphasis: "- ".repeat(3000) overflows the stack, and 3000 nested emphasis delimiters take seconds
// of CPU. This is one linear pass over the text with no recursion, so it is safe on any input: the
// service refuses a text deeper than MARKDOWN_MAX_NESTING when it is written, and the renderer
// shows a text stored before as plain text instead of parsing it.
//
// It errs on the side of counting too deep (an unclosed `*word`, indentation in a list item's
// code), never too shallow, so a text it passes cannot nest deeper than the bound; the bound is far
// above what anyone writes (lists and quotes nest two to five levels in practice).

/** The deepest nesting of lists and quotes, or of emphasis, links and strikethrough, a Markdown text may have. */
export const MARKDOWN_MAX_NESTING = 16;

/** Emphasis marks or "]" that close nothing, at most, in one paragraph (see InlineMarks). */
export const MARKDOWN_MAX_STRAY_MARKS = 100;

/** Why a text is refused, in the words of a validation message. */
export const MARKDOWN_NESTING_RULE = `must not nest lists, quotes or emphasis more than ${MARKDOWN_MAX_NESTING} levels deep, nor hold more than ${MARKDOWN_MAX_STRAY_MARKS} unmatched emphasis marks or "]" in one paragraph`;

const SPACE = 0x20;
const TAB = 0x09;
const isBlank = (c: number) => c === SPACE || c === TAB;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
// Unicode whitespace and punctuation as CommonMark's flanking rules see them, close enough to err deep.
const isWhitespaceChar = (ch: string | undefined) => ch === undefined || /\s/u.test(ch);
const isPunctuationChar = (ch: string | undefined) => ch !== undefined && /[\p{P}\p{S}]/u.test(ch);

/** A thematic break (`* * *`, `- - -`, `___`) reads like a chain of list markers but nests nothing. */
const THEMATIC_BREAK = /^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;

/**
 * The nesting depth of one line's containers: list markers and `>` at its start, plus half its
 * indentation before them (each nested list level indents its items by at least two columns).
 * Returns the depth and where the line's text begins.
 */
function containerDepth(line: string): { depth: number; textStart: number } {
  let i = 0;
  let columns = 0;
  while (i < line.length && isBlank(line.charCodeAt(i))) {
    columns += line.charCodeAt(i) === TAB ? 4 : 1;
    i++;
  }
  if (THEMATIC_BREAK.test(line.slice(i).trimEnd())) return { depth: 0, textStart: line.length };
  let markers = 0;
  for (;;) {
    const c = line.charCodeAt(i);
    let next = -1;
    if (c === 0x3e /* > */) next = i + 1;
    else if (
      (c === 0x2d /* - */ || c === 0x2b /* + */ || c === 0x2a) /* * */ &&
      (i + 1 === line.length || isBlank(line.charCodeAt(i + 1)))
    )
      next = i + 1;
    else if (isDigit(c)) {
      let j = i;
      while (j < line.length && j - i < 9 && isDigit(line.charCodeAt(j))) j++;
      const d = line.charCodeAt(j);
      if ((d === 0x2e /* . */ || d === 0x29) /* ) */ && (j + 1 === line.length || isBlank(line.charCodeAt(j + 1))))
        next = j + 1;
    }
    if (next < 0) break;
    markers++;
    i = next;
    while (i < line.length && isBlank(line.charCodeAt(i))) i++;
  }
  // Indentation counts only where the line opens a container (a nested item or quote); plain
  // indented lines are continuation text or code.
  return { depth: markers === 0 ? 0 : markers + Math.floor(columns / 2), textStart: i };
}

/**
 * A fence (``` or ~~~) that surely opens a code block at the top level of the document: at the first
 * column (an indented one may belong to a list item, and ends with it). Its char and length, else null.
 */
function fenceOf(line: string): { char: string; length: number } | null {
  const m = /^(`{3,}|~{3,})/.exec(line);
  if (!m) return null;
  if (m[1]![0] === "`" && line.slice(m[0].length).includes("`")) return null;
  return { char: m[1]![0]!, length: m[1]!.length };
}

/**
 * Inline nesting of one paragraph's text: emphasis delimiter runs (`*`, `_`, `~`) that can open are
 * counted as open until a run of the same kind that can close takes them back, and `[` until `]`.
 * A mark that closes with nothing of its kind open is a stray: the parser looks back over the whole
 * paragraph for its opener, so thousands of them cost seconds ("a* ".repeat(6000)). Code spans are
 * not told apart (their delimiters count too, which only errs deep).
 */
class InlineMarks {
  private readonly open = { "*": 0, _: 0, "~": 0, "[": 0 };
  depth = 0;
  deepest = 0;
  strays = 0;
  mostStrays = 0;

  add(text: string, from: number): void {
    let i = from;
    while (i < text.length) {
      const ch = text[i]!;
      if (ch === "[") this.push("[", 1);
      else if (ch === "]") this.close("]", 1);
      else if (ch === "*" || ch === "_" || ch === "~") {
        let j = i;
        while (j < text.length && text[j] === ch) j++;
        const run = ch === "~" ? 1 : j - i;
        const before = i > 0 ? text[i - 1] : undefined;
        const after = text[j];
        const leftFlanking =
          !isWhitespaceChar(after) &&
          (!isPunctuationChar(after) || isWhitespaceChar(before) || isPunctuationChar(before));
        const rightFlanking =
          !isWhitespaceChar(before) &&
          (!isPunctuationChar(before) || isWhitespaceChar(after) || isPunctuationChar(after));
        const left = rightFlanking ? this.close(ch, run) : run;
        if (leftFlanking && left > 0) this.push(ch, left);
        i = j;
        continue;
      }
      i++;
    }
  }

  /** Takes back up to `n` open marks of this kind; what found none open is a stray. Returns how many found none. */
  private close(ch: "*" | "_" | "~" | "]", n: number): number {
    const kind = ch === "]" ? "[" : ch;
    const closed = Math.min(this.open[kind], n);
    this.open[kind] -= closed;
    this.depth -= closed;
    if (closed < n) {
      this.strays++;
      if (this.strays > this.mostStrays) this.mostStrays = this.strays;
    }
    return n - closed;
  }

  private push(kind: "*" | "_" | "~" | "[", n: number) {
    this.open[kind] += n;
    this.depth += n;
    if (this.depth > this.deepest) this.deepest = this.depth;
  }

  endParagraph() {
    this.open["*"] = this.open._ = this.open["~"] = this.open["["] = 0;
    this.depth = 0;
    this.strays = 0;
  }
}

/**
 * The deepest nesting of a Markdown text (lists and quotes, or inline emphasis, links and
 * strikethrough, whichever is deeper), as an upper bound; a paragraph with more than
 * MARKDOWN_MAX_STRAY_MARKS stray marks counts as deeper than `stopAbove`. Stops counting once past
 * `stopAbove`.
 */
export function markdownNestingDepth(text: string, stopAbove = MARKDOWN_MAX_NESTING): number {
  let deepest = 0;
  let fence: { char: string; length: number } | null = null;
  // Inside raw HTML a fence line is HTML, not a fence: once a line opens with "<", no fence is
  // trusted to hide what follows it.
  let trustFences = true;
  const inline = new InlineMarks();
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).replace(/\r$/, "");
    start = end + 1;
    if (fence) {
      const closing = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (closing && closing[1]![0] === fence.char && closing[1]!.length >= fence.length) fence = null;
      continue;
    }
    if (line.trim() === "") {
      inline.endParagraph();
      continue;
    }
    if (/^[ \t>]*</.test(line)) trustFences = false;
    const opened = trustFences ? fenceOf(line) : null;
    if (opened) {
      // Only a fence outside every container holds everything up to its closing fence; one inside
      // a list or a quote ends with its container, so its lines are counted like any other.
      fence = opened;
      inline.endParagraph();
      continue;
    }
    const { depth, textStart } = containerDepth(line);
    if (depth > deepest) deepest = depth;
    inline.add(line, textStart);
    if (inline.deepest > deepest) deepest = inline.deepest;
    // A paragraph of strays costs the parser as much as deep nesting: it counts as too deep.
    if (inline.mostStrays > MARKDOWN_MAX_STRAY_MARKS) return Math.max(deepest, stopAbove + 1);
    if (deepest > stopAbove) return deepest;
  }
  return deepest;
}

/** The text nests deeper than MARKDOWN_MAX_NESTING: refused when written, shown as plain text when stored before. */
export function nestsTooDeep(text: string): boolean {
  return markdownNestingDepth(text) > MARKDOWN_MAX_NESTING;
}
