import type { Nodes, Root } from "mdast";
import { toString } from "mdast-util-to-string";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { nestsTooDeep } from "./nesting";

// Parsed with the same GFM grammar as <Markdown>, so a preview shows the words a reader will see:
// no `**`, no link URLs, no raw HTML, no code blocks, no footnote bodies.
const parser = unified().use(remarkParse).use(remarkGfm);

const SKIPPED = new Set(["code", "html", "definition", "footnoteDefinition", "thematicBreak", "yaml"]);
const TEXT_BLOCKS = new Set(["paragraph", "heading", "tableCell"]);

function collect(node: Nodes, out: string[]): void {
  if (SKIPPED.has(node.type)) return;
  if (TEXT_BLOCKS.has(node.type)) {
    out.push(toString(node, { includeHtml: false, includeImageAlt: true }));
    return;
  }
  if ("children" in node) for (const child of node.children) collect(child as Nodes, out);
}

/** The words of a document, or its raw text where it must not be parsed (see <Markdown>'s plain-text fallback). */
function wordsOf(markdown: string): string {
  if (nestsTooDeep(markdown)) return markdown;
  try {
    const parts: string[] = [];
    collect(parser.parse(markdown) as Root, parts);
    return parts.join(" ");
  } catch (error) {
    // One item's excerpt must never fail the list it is in.
    console.error("an excerpt was taken from the raw text: the parser failed on it", error);
    return markdown;
  }
}

/**
 * Plain text of a Markdown document, whitespace collapsed, at most `maxLength` characters. Only the
 * document's beginning is read (enough for the words an excerpt shows, past a code block or two):
 * a board page shows many excerpts, and parsing whole 20,000-character briefs for 240 characters
 * each would hold the server for seconds.
 */
export function plainTextExcerpt(markdown: string, maxLength: number): string {
  const beginning = markdown.length > maxLength * 8 + 2000 ? markdown.slice(0, maxLength * 8 + 2000) : markdown;
  const text = wordsOf(beginning).replace(/\s+/g, " ").trim();
  if (text.length <= maxLength) return text;
  if (maxLength <= 1) return "…".slice(0, maxLength);
  const cut = text.slice(0, maxLength - 1);
  // Prefer to end on a word boundary when one is reasonably close.
  const space = cut.lastIndexOf(" ");
  const base = space > maxLength * 0.6 ? cut.slice(0, space) : cut;
  return `${base.replace(/[\s.,;:!?-]+$/, "")}…`;
}
