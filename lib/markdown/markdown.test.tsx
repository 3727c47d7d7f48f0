import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { LINK_REL, MARKDOWN_MAX_NESTING, Markdown, nestsTooDeep, plainTextExcerpt, safeHref } from "./index";
import { markdownNestingDepth } from "./nesting";

const render = (source: string, idPrefix?: string) =>
  renderToStaticMarkup(<Markdown source={source} idPrefix={idPrefix} />);

/** Every href/src/action-like attribute value in the markup, entity-decoded. */
function urlAttributes(html: string): string[] {
  const values: string[] = [];
  for (const m of html.matchAll(
    /\s(?:href|src|action|formaction|xlink:href|data|poster|background)\s*=\s*"([^"]*)"/gi,
  )) {
    values.push(
      m[1]
        .replace(/&#x([0-9a-f]+);?/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
        .replace(/&#(\d+);?/g, (_, d: string) => String.fromCodePoint(Number(d)))
        .replace(/&amp;/g, "&")
        .replace(/&quot;/g, '"')
        .replace(/&colon;/gi, ":"),
    );
  }
  return values;
}

/** Tag and attribute names of the markup React produced (it always double-quotes and escapes values). */
function tags(html: string): { name: string; attributes: string[] }[] {
  const out: { name: string; attributes: string[] }[] = [];
  for (const m of html.matchAll(/<([a-zA-Z][\w-]*)((?:\s+[^\s=>"'/]+(?:="[^"]*")?)*)\s*\/?>/g)) {
    const attributes = [...m[2].matchAll(/\s([^\s=>"'/]+)(?:="[^"]*")?/g)].map((a) => a[1].toLowerCase());
    out.push({ name: m[1].toLowerCase(), attributes });
  }
  return out;
}

const ALLOWED_TAGS = new Set(
  "div p a span strong em del code pre blockquote ul ol li input table thead tbody tr th td h2 h3 h4 h5 h6 hr br sup section".split(
    " ",
  ),
);

function expectSafe(html: string) {
  expect(html).not.toMatch(/<script/i);
  expect(html).not.toMatch(/<img/i);
  expect(html).not.toMatch(/<iframe/i);
  expect(html).not.toMatch(/<svg/i);
  expect(html).not.toMatch(/<object|<embed|<style|<details|<math|<form|<base|<meta|<link/i);
  // Any tag that exists is one Markdown can produce, and none carries an event handler
  // (escaped text such as "&lt;img onerror" or a title containing "onmouseover=" is inert).
  for (const tag of tags(html)) {
    expect(ALLOWED_TAGS.has(tag.name), tag.name).toBe(true);
    for (const attribute of tag.attributes) expect(attribute).not.toMatch(/^on/);
  }
  // No tag opener survives unescaped apart from those parsed above.
  expect(html.match(/<[a-zA-Z]/g)?.length ?? 0).toBe(tags(html).length);
  for (const value of urlAttributes(html)) {
    // Browsers ignore ASCII whitespace and control characters around and inside a scheme.
    const normalised = value.replace(/[\u0000-\u0020\u007f-\u009f]/g, "").toLowerCase();
    expect(normalised).not.toMatch(/^(javascript|vbscript|data|file|blob):/);
    expect(value === "" || /^(https?:|mailto:|#)/i.test(value)).toBe(true);
  }
}

describe("Markdown: GitHub-flavoured features", () => {
  it("renders tables inside a scrolling wrapper that the keyboard reaches, named for screen readers", () => {
    const html = render("| a | b |\n| - | :-: |\n| 1 | 2 |");
    expect(html).toContain('<div class="md-table-wrap" tabindex="0" role="region" aria-label="Table"><table>');
    expect(html).toContain("<th>a</th>");
    expect(html).toContain('<td style="text-align:center">2</td>');
  });

  it("renders a code block as a scrolling region that the keyboard reaches, named for screen readers", () => {
    const html = render("```\nconst a = 1;\n```");
    expect(html).toContain('<pre tabindex="0" role="region" aria-label="Code">');
  });

  it("renders task lists as disabled checkboxes labelled with their state", () => {
    const html = render("- [x] done\n- [ ] todo");
    expect(html).toContain('class="contains-task-list"');
    expect(html).toMatch(/<input type="checkbox" disabled="" aria-label="Done" checked=""\/>/);
    expect(html).toMatch(/<input type="checkbox" disabled="" aria-label="Not done"\/>/);
  });

  it("renders strikethrough", () => {
    expect(render("~~gone~~ and ~also~")).toContain("<del>gone</del> and <del>also</del>");
  });

  it("autolinks bare URLs, www. names and e-mail addresses", () => {
    const html = render("see https://example.com/a?b=1 and www.example.org or hi@example.com");
    expect(html).toContain('href="https://example.com/a?b=1"');
    expect(html).toContain('href="http://www.example.org/"');
    expect(html).toContain('href="mailto:hi@example.com"');
  });

  it("renders footnotes with per-document ids", () => {
    const html = render("Claim.[^1]\n\n[^1]: Source.", "reply-42");
    expect(html).toContain('href="#user-content-reply-42-fn-1"');
    expect(html).toContain('id="user-content-reply-42-fn-1"');
    expect(html).toContain('data-footnotes="true"');
    expect(html).toContain("Footnotes");
  });

  it("renders a text again the same, and the same text under two documents' ids apart (parsed trees are reused)", () => {
    const source = "Again.[^1] [a link](https://example.com/again)\n\n[^1]: Note.";
    const first = render(source, "reply-1");
    expect(render(source, "reply-1")).toBe(first);
    const other = render(source, "reply-2");
    expect(other).toContain('id="user-content-reply-2-fn-1"');
    expect(other).not.toContain("reply-1");
    // An edit is new text: its own rendering, never the old one's.
    expect(render(source.replace("Again.", "Edited."), "reply-1")).toContain("Edited.");
  });

  it("renders fenced code, blockquotes, and shifts headings below the page's own", () => {
    const html = render("# Title\n\n## Sub\n\n> quote\n\n```ts\nconst a = 1 < 2;\n```");
    expect(html).toContain("<h2>Title</h2>");
    expect(html).toContain("<h3>Sub</h3>");
    expect(html).not.toContain("<h1");
    expect(html).toContain("<blockquote>");
    expect(html).toContain(
      '<code class="hljs language-ts"><span class="hljs-keyword">const</span> a = <span class="hljs-number">1</span> &lt; <span class="hljs-number">2</span>;\n</code>',
    );
  });

  it("gives every link rel=nofollow ugc noopener noreferrer and opens web links in a new tab", () => {
    const html = render("[site](https://example.com) [mail](mailto:a@example.com) [^n]\n\n[^n]: x");
    const anchors = [...html.matchAll(/<a\s[^>]*>/g)].map((m) => m[0]);
    expect(anchors.length).toBeGreaterThanOrEqual(4);
    for (const a of anchors) expect(a).toContain(`rel="${LINK_REL}"`);
    expect(html).toMatch(
      /<a href="https:\/\/example.com\/" rel="[^"]+" target="_blank">site<span class="sr-only"> \(opens in a new tab\)<\/span><\/a>/,
    );
    expect(html).toMatch(/<a href="mailto:a@example.com" rel="[^"]+">mail<\/a>/);
  });

  it("keeps safe link titles", () => {
    expect(render('[x](https://example.com "Example")')).toContain('title="Example"');
  });

  it("renders images as links to their URL labelled by alt text, never as <img>", () => {
    const html = render("![a cat](https://example.com/cat.png) and ![](https://example.com/dog.png)");
    expect(html).not.toContain("<img");
    expect(html).toMatch(/<a class="md-image-link" href="https:\/\/example.com\/cat.png"[^>]*>a cat/);
    expect(html).toMatch(
      /<a class="md-image-link" href="https:\/\/example.com\/dog.png"[^>]*>https:\/\/example.com\/dog.png/,
    );
  });

  it("turns a linked image into the link's text, so links never nest", () => {
    const html = render("[![badge](https://img.example/b.svg)](https://example.com)");
    expect(html).not.toContain("<img");
    expect((html.match(/<a /g) ?? []).length).toBe(1);
    expect(html).toContain(">badge<");
  });

  it("handles reference-style images", () => {
    const html = render("![logo][l]\n\n[l]: https://example.com/logo.png");
    expect(html).not.toContain("<img");
    expect(html).toContain('href="https://example.com/logo.png"');
  });

  it("renders relative and non-web links as plain text", () => {
    const html = render("[home](/sign-out) [ftp](ftp://example.com/x) [irc](irc://example.com) [x](xmpp:a@b)");
    expect(html).not.toContain("<a ");
    expect(html).toContain('<span class="md-unlinked">home</span>');
  });

  it("drops URLs with credentials that disguise the real host", () => {
    expect(render("[bank](https://bank.example@evil.example/)")).not.toContain("<a ");
  });

  it("drops raw HTML instead of rendering it", () => {
    const html = render("hello <b>bold</b> <marquee>x</marquee>");
    expect(html).not.toContain("<b>");
    expect(html).not.toContain("<marquee");
  });
});

// Payloads in every Markdown syntax that can carry a URL, plus raw HTML vectors.
const XSS_PAYLOADS: string[] = [
  "[click](javascript:alert(1))",
  "[click](JaVaScRiPt:alert(1))",
  "[click]( javascript:alert(1) )",
  "[click](<javascript:alert(1)>)",
  "[click](javasc&#x72;ipt:alert(1))",
  "[click](javascript&#58;alert(1))",
  "[click](&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1))",
  "[click](java\tscript:alert(1))",
  "[click](<java\nscript:alert(1)>)",
  "[click](\u0001javascript:alert(1))",
  "[click](javascript\u0000:alert(1))",
  "[click](vbscript:msgbox(1))",
  "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "[click](DATA:text/html,<script>alert(1)</script>)",
  "[click][ref]\n\n[ref]: javascript:alert(1)",
  '[ref]\n\n[ref]: <javascript:alert(1)> "t"',
  "[click][r]\n\n[r]: data:text/html,<svg/onload=alert(1)>",
  "<javascript:alert(1)>",
  "<vbscript:msgbox(1)>",
  "<data:text/html,<script>alert(1)</script>>",
  "<script>alert(1)</script>",
  "<SCRIPT SRC=https://evil.example/x.js></SCRIPT>",
  "<img src=x onerror=alert(1)>",
  "<svg onload=alert(1)><circle r=1 /></svg>",
  '<iframe src="javascript:alert(1)"></iframe>',
  "<a href=javascript:alert(1)>x</a>",
  '<a href="https://example.com" onclick="alert(1)">x</a>',
  '<div onmouseover="alert(1)" style="position:fixed;inset:0">cover</div>',
  "<details open ontoggle=alert(1)><summary>s</summary></details>",
  "<body onload=alert(1)>",
  "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
  '<object data="javascript:alert(1)"></object>',
  '<embed src="data:text/html,<script>alert(1)</script>">',
  '<form action="javascript:alert(1)"><button>go</button></form>',
  '<base href="javascript:/"><a href="x">x</a>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  "![x](javascript:alert(1))",
  "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
  "![x][img]\n\n[img]: javascript:alert(1)",
  "[![x](javascript:alert(1))](javascript:alert(2))",
  "<!-- <script>alert(1)</script> -->",
  "<![CDATA[<script>alert(1)</script>]]>",
  "<?php echo 1; ?><script>alert(1)</script>",
  '[a](https://example.com"onmouseover="alert(1))',
  "[a](https://example.com 'x\" onmouseover=\"alert(1)')",
  "[x](javascript://example.com/%0aalert(1))",
  "[x](https://example.com) <scr<script>ipt>alert(1)</script>",
  "`<script>`[x](java\u200bscript:alert(1))",
  "Footnote[^x]\n\n[^x]: [x](javascript:alert(1))",
  "| a |\n| - |\n| [x](javascript:alert(1)) <img src=x onerror=alert(1)> |",
  "- [ ] [x](vbscript:msgbox(1))",
];

describe("Markdown: hostile input", () => {
  it("has a long list of payloads", () => {
    expect(XSS_PAYLOADS.length).toBeGreaterThanOrEqual(25);
  });

  it.each(XSS_PAYLOADS.map((p) => [p]))("neutralises %j", (payload) => {
    expectSafe(render(payload));
    expectSafe(render(`Some text before.\n\n${payload}\n\nAnd after.`));
  });

  it("the checks above do catch unsafe markup", () => {
    for (const bad of [
      '<a href="javascript:alert(1)">x</a>',
      '<a href="&#x6a;avascript:alert(1)">x</a>',
      '<a href=" data:text/html,x">x</a>',
      '<p onclick="x">x</p>',
      '<img src="https://x">',
      "<svg></svg>",
    ]) {
      expect(() => expectSafe(bad), bad).toThrow();
    }
  });

  it("the configuration never widens react-markdown's defaults", () => {
    const dir = path.dirname(new URL(import.meta.url).pathname);
    for (const file of readdirSync(dir).filter((f) => /\.tsx?$/.test(f) && !f.endsWith(".test.tsx"))) {
      const text = readFileSync(path.join(dir, file), "utf8");
      expect(text, file).not.toMatch(/dangerouslySetInnerHTML|rehype-raw|urlTransform=|allowDangerousHtml/);
    }
  });

  it("never emits dangerouslySetInnerHTML-style raw markup for entity-encoded tags", () => {
    const html = render("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;script&gt;");
    expectSafe(html);
  });
});

describe("safeHref", () => {
  it.each([
    ["https://example.com/x", "https://example.com/x", true],
    ["HTTP://EXAMPLE.COM", "http://example.com/", true],
    ["mailto:a@example.com", "mailto:a@example.com", false],
    ["#user-content-fn-1", "#user-content-fn-1", false],
  ])("keeps %s", (input, href, external) => {
    expect(safeHref(input)).toEqual({ href, external });
  });

  it.each([
    "",
    "javascript:alert(1)",
    "java\tscript:alert(1)",
    "/relative",
    "data:text/html,x",
    "ftp://x",
    "#a b",
    "https://u:p@example.com",
  ])("drops %j", (input) => {
    expect(safeHref(input)).toBeNull();
  });
});

describe("plainTextExcerpt", () => {
  it("strips Markdown syntax, code blocks and raw HTML", () => {
    const md =
      "# Title\n\nSome **bold** and [a link](https://x.example) text.\n\n```js\ncode();\n```\n\n<b>raw</b>\n\n- item one\n- item two";
    expect(plainTextExcerpt(md, 200)).toBe("Title Some bold and a link text. raw item one item two");
  });

  it("truncates on a word boundary with an ellipsis and respects the limit", () => {
    const out = plainTextExcerpt("alpha beta gamma delta epsilon zeta", 20);
    expect(out).toBe("alpha beta gamma…");
    expect(out.length).toBeLessThanOrEqual(20);
  });

  it("uses image alt text and skips footnote bodies", () => {
    expect(plainTextExcerpt("See ![diagram](https://x/y.png).[^1]\n\n[^1]: hidden note", 100)).toBe("See diagram.");
  });

  it("returns the whole text when it fits", () => {
    expect(plainTextExcerpt("short", 10)).toBe("short");
  });
});

describe("code highlighting and mentions", () => {
  it("highlights a fenced block that names its language, on the server, as classes only", () => {
    const html = render("```ts\nconst answer: number = 42; // why\n```");
    expect(html).toContain('<code class="hljs language-ts">');
    expect(html).toContain('<span class="hljs-keyword">const</span>');
    expect(html).toContain('<span class="hljs-comment">// why</span>');
    expect(html).not.toMatch(/style=/);
    // Unlabelled code is left plain (no guessing).
    expect(render("```\nconst x = 1;\n```")).not.toContain("hljs-keyword");
  });

  it("links @<agent id> to the agent and marks a person's [@Name](/people/<id>) link; code, e-mail and links are left alone", () => {
    const id = "0f8fad5b-d9cb-469f-a165-70867728950e";
    const html = render(
      `Hi @acme-coder-1a2b3c and [@Ann](/people/${id}); \`@in-code\`, ann@acme-coder.example, [@x-y](https://x.test).`,
    );
    expect(html).toContain('<a class="md-mention" href="/agents/acme-coder-1a2b3c">@acme-coder-1a2b3c</a>');
    expect(html).toContain(`<a class="md-mention" href="/people/${id}">@Ann</a>`);
    // A relative link an author writes is still no link; nor is a mention-looking link elsewhere.
    expect(render("[@Ann](/people/x/../../admin) [me](/agents/acme)")).not.toContain('href="/');
    expect(html).toContain("<code>@in-code</code>");
    expect(html).not.toContain("/agents/in-code");
    expect(html).not.toContain("/agents/acme-coder.example");
    expect(html).not.toContain('href="/agents/x-y"');
  });
});

describe("mentionsIn", () => {
  it("finds agents and people once each, not in code, not in e-mail addresses", async () => {
    const { mentionsIn } = await import("./mentions");
    const id = "0F8FAD5B-D9CB-469F-A165-70867728950E";
    const found = mentionsIn(
      `@a-b and @a-b, [@Ann](https://site.test/people/${id}), me@c-d.test, \`@e-f\`\n\n\`\`\`\n@g-h\n\`\`\`\n(@i-j)`,
    );
    expect(found).toEqual({ agentIds: ["a-b", "i-j"], userIds: [id.toLowerCase()] });
  });
});

describe("nesting bound (lib/markdown/nesting.ts)", () => {
  it("passes what people write: lists five deep, quotes in quotes, code full of * and _, snake_case, thematic breaks", () => {
    const fine = [
      "- a\n  - b\n    - c\n      1. d\n         - e",
      "> a\n> > b\n> > > c",
      "```python\ndef f(*args, **kwargs):\n    return g(**kwargs, **kwargs, **kwargs, **kwargs, **kwargs, **kwargs, **kwargs, **kwargs, **kwargs)\n```",
      "user_id, job_id, agent_id and my_var_name; 2*3*4 = 24; * * * * * * * * * * * * * * * * * * *",
      `${"**bold** and _em_ and [a](https://x.y) ".repeat(400)}`,
    ];
    for (const text of fine)
      expect(markdownNestingDepth(text), text.slice(0, 40)).toBeLessThanOrEqual(MARKDOWN_MAX_NESTING);
  });

  it("counts what the parser would nest, and hides nothing behind a fence that is not one", () => {
    expect(nestsTooDeep(`${"- ".repeat(17)}x`)).toBe(true);
    expect(nestsTooDeep(`${"1. ".repeat(17)}x`)).toBe(true);
    expect(nestsTooDeep(`${"> ".repeat(17)}x`)).toBe(true);
    expect(nestsTooDeep(`${"*a ".repeat(17)}x${" a*".repeat(17)}`)).toBe(true);
    expect(nestsTooDeep(`${"[".repeat(17)}x${"](u)".repeat(17)}`)).toBe(true);
    // Indentation nests list items too.
    expect(nestsTooDeep(Array.from({ length: 20 }, (_, i) => `${"  ".repeat(i)}- x`).join("\n"))).toBe(true);
    // A fence in a list item ends with the item; one in raw HTML is HTML.
    expect(nestsTooDeep(`- a\n  \`\`\`\n${"- ".repeat(40)}x`)).toBe(true);
    expect(nestsTooDeep(`<div>\n\`\`\`\n\n${"- ".repeat(40)}x`)).toBe(true);
    // A real fence holds code, not Markdown.
    expect(nestsTooDeep(`\`\`\`\n${"- ".repeat(40)}x\n\`\`\``)).toBe(false);
    // Thousands of closing marks with nothing to close cost the parser seconds: refused alike.
    expect(nestsTooDeep("a* ".repeat(200))).toBe(true);
    expect(nestsTooDeep("a] ".repeat(200))).toBe(true);
  });

  it("renders and excerpts a text past the bound as plain text, in one linear pass", () => {
    const deep = `${"- ".repeat(3000)}x`;
    const html = render(deep);
    expect(html).toBe(`<div class="md-prose"><p class="md-plain whitespace-pre-wrap break-words">${deep}</p></div>`);
    expect(plainTextExcerpt(`${"> ".repeat(3000)}x`, 20)).toBe("> > > > > > > > >…");
  });
});
