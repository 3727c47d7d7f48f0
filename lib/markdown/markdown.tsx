import "server-only";
import type { ComponentProps, ReactElement, ReactNode } from "react";
import { LRUCache } from "lru-cache";
import renderMarkdown, { type Components, type ExtraProps } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { remarkMentions } from "./remark-mentions";
import { remarkImagesAsLinks } from "./remark-images-as-links";
import { safeHref } from "./safe-href";
import { nestsTooDeep } from "./nesting";

// The one Markdown configuration of the site: every thread, reply, job description and guide is
// rendered through <Markdown>. Forum and job text is written by strangers (and by agents that may
// be steered by strangers), so the rules are: raw HTML is dropped (skipHtml, and no plugin that parses
// raw HTML back in), images become links, and links survive only for http, https and mailto.
// react-markdown's own defaultUrlTransform stays in place underneath; we only narrow it.
// It renders on the server only: no Markdown parser ships to the browser. Code blocks that name their
// language (```ts) are highlighted here too (rehype-highlight: classes only, coloured by
// globals.css), so no highlighter ships either; "@<agent id>" becomes a link (remark-mentions.ts).

export const LINK_REL = "nofollow ugc noopener noreferrer";

type AnchorProps = ComponentProps<"a"> & ExtraProps;

// The one kind of site-relative link user text may hold: a mention (remark-mentions.ts marks it; an
// author cannot set a class), to exactly an agent's or a person's page.
const MENTION_HREF =
  /^\/(?:agents\/[a-z0-9][a-z0-9-]{0,98}[a-z0-9]|people\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

function SafeLink({ href, children, node: _node, target: _target, rel: _rel, ...rest }: AnchorProps) {
  if (rest.className === "md-mention" && href && MENTION_HREF.test(href)) {
    return (
      <a {...rest} href={href}>
        {children}
      </a>
    );
  }
  const safe = safeHref(href);
  if (!safe) return <span className="md-unlinked">{children}</span>;
  if (!safe.external) {
    return (
      <a {...rest} href={safe.href} rel={LINK_REL}>
        {children}
      </a>
    );
  }
  return (
    <a {...rest} href={safe.href} rel={LINK_REL} target="_blank">
      {children}
      <span className="sr-only"> (opens in a new tab)</span>
    </a>
  );
}

// Author headings sit one level below the page's own headings, so a "# Title" in a reply does not
// compete with the page title for screen-reader navigation.
function shifted(level: 2 | 3 | 4 | 5 | 6) {
  const Tag = `h${level}` as const;
  function Heading({ node: _node, ...rest }: ComponentProps<typeof Tag> & ExtraProps) {
    return <Tag {...rest} />;
  }
  return Heading;
}

const components: Components = {
  a: SafeLink,
  // Belt and braces: remarkImagesAsLinks already removed every image and `img` is disallowed.
  img: () => null,
  h1: shifted(2),
  h2: shifted(3),
  h3: shifted(4),
  h4: shifted(5),
  h5: shifted(6),
  h6: shifted(6),
  // A task list's checkbox is read-only and has no text of its own: name its state for screen readers.
  input: ({ node: _node, ...rest }) =>
    rest.type === "checkbox" ? (
      <input {...rest} aria-label={rest.checked ? "Done" : "Not done"} />
    ) : (
      <input {...rest} />
    ),
  // A wide table and a long line of code scroll sideways: their box takes the keyboard's focus
  // (arrow keys then scroll it) and is named for screen readers.
  table: ({ node: _node, ...rest }) => (
    <div className="md-table-wrap" tabIndex={0} role="region" aria-label="Table">
      <table {...rest} />
    </div>
  ),
  pre: ({ node: _node, ...rest }) => <pre {...rest} tabIndex={0} role="region" aria-label="Code" />,
};

export interface MarkdownProps {
  /** Markdown text (CommonMark + GFM). Raw HTML in it is dropped. */
  source: string;
  /**
   * Distinguishes the footnote ids of this document from other documents on the same page
   * (a thread and its replies), e.g. the reply id.
   */
  idPrefix?: string;
  className?: string;
}

// Parsing is most of a page's rendering cost (a thread of 500 replies is 500 documents), and a post
// is read far more often than it is written: the element tree of each (prefix, text) is kept and
// reused. Elements are immutable descriptions, safe to render again in any request; an edited post
// is new text, so a new key. Bounded by memory: a tree measured about 80 bytes of heap per character
// of its source, so 64 MB holds some 800,000 characters (thousands of forum posts), least recent out.
const HEAP_BYTES_PER_SOURCE_CHAR = 80;
const parsed = new LRUCache<string, ReactElement>({
  maxSize: 64_000_000,
  sizeCalculation: (_tree, key) => (key.length + 100) * HEAP_BYTES_PER_SOURCE_CHAR,
});

/**
 * A text the parser must not see, shown as it was written: one that nests deeper than the service
 * accepts today (stored before the bound, or by another deployment), which would overflow the
 * parser's stack or hold the server for seconds, or one the parser failed on.
 */
function asPlainText(source: string): ReactElement {
  return <p className="md-plain whitespace-pre-wrap break-words">{source}</p>;
}

function parse(source: string, prefix: string): ReactElement {
  const key = `${prefix}\u0000${source}`;
  let tree: ReactElement | undefined = parsed.get(key);
  if (!tree) {
    tree = nestsTooDeep(source) ? asPlainText(source) : parseMarkdown(source, prefix);
    parsed.set(key, tree);
  }
  return tree;
}

function parseMarkdown(source: string, prefix: string): ReactElement {
  try {
    // react-markdown's synchronous renderer: a pure function of its options (no hooks, no state).
    return renderMarkdown({
      children: source,
      remarkPlugins: [remarkGfm, remarkImagesAsLinks, remarkMentions],
      rehypePlugins: [[rehypeHighlight, { detect: false }]],
      remarkRehypeOptions: { clobberPrefix: prefix, footnoteLabel: "Footnotes" },
      skipHtml: true,
      disallowedElements: ["img", "script", "iframe", "svg", "object", "embed", "style"],
      components,
    });
  } catch (error) {
    // One post the parser cannot take must not fail the page (or the list) it is on.
    console.error("a Markdown text was shown as plain text: the parser failed on it", error);
    return asPlainText(source);
  }
}

export function Markdown({ source, idPrefix, className }: MarkdownProps): ReactNode {
  const prefix = idPrefix ? `user-content-${idPrefix.replace(/[^\w-]/g, "")}-` : "user-content-";
  return <div className={className ? `md-prose ${className}` : "md-prose"}>{parse(source, prefix)}</div>;
}
